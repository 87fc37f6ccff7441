"""The host's model object: a checkpoint, its tokenizer and two forward passes, with
generate / batch / stream forms over the host's generation loop.

    from mineru_tui.engines.numpy import load_model       # numpy's forward passes
    model = load_model()                                  # DEFAULT_MODEL, or a dir / repo id
    res = model.generate("page.png", "\\nText Recognition:", max_new_tokens=512)
    res.text, res.token_ids, res.finish_reason, res.timings

The model is the host side (preprocessing, prompt, generation loop) around two replaceable
forward passes: ``vision`` (a ``VisionTower``-like callable) and ``text`` (a ``TextForward``),
given by whoever builds it (numpy, OpenVINO, Core ML). Commands reach a model through an engine
(``engine.py``: requests, per-request errors, continuous batching); these methods are the
knob-level form benchmarks, ``bundle verify`` and tests use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from mineru_tui.engines.errors import ImageError, PromptError
from mineru_tui.engines.events import CancelFlag, Done, Event, EventCallback, GenerationResult

from .checkpoint import Checkpoint
from .generate import PreparedRequest, run_generation
from .kv_cache import TextForward
from .preprocess import preprocess_image
from .sampling import SamplingParams
from .tokenizer import Tokenizer

ImageInput = Any  # a path, bytes, a PIL image, or None for a text-only request


class Model:
    """A loaded MinerU2.5 / Qwen2-VL checkpoint ready to generate (greedy decoding)."""

    def __init__(self, checkpoint: Checkpoint, tokenizer: Tokenizer, vision: Callable, text: TextForward):
        self.checkpoint = checkpoint
        self.config = checkpoint.config
        self.tokenizer = tokenizer
        self.vision = vision
        self.text = text
        gen = checkpoint.generation
        self.stop_ids: tuple[int, ...] = tuple(checkpoint.stop_token_ids)
        # MinerU strips bos/eos/pad ids from the decoded text (special tokens otherwise stay)
        extra = [gen.pad_token_id, gen.bos_token_id, checkpoint.config.pad_token_id]
        self.strip_ids: tuple[int, ...] = tuple(sorted(set(self.stop_ids) | {int(i) for i in extra if i is not None}))

    @property
    def context_length(self) -> int:
        """Total tokens (prompt + generated) the model accepts: ``max_position_embeddings``."""
        return self.config.text.max_position_embeddings

    # ------------------------------------------------------------------ preparation

    def prepare(self, image: ImageInput, prompt: str) -> PreparedRequest:
        """Preprocess the image and tokenise the MinerU prompt (ImageError / PromptError)."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise PromptError("the prompt is empty")
        if image is None:
            tokens = self.tokenizer.build_prompt(prompt, None, max_len=self.context_length - 1)
            return PreparedRequest(tokens.input_ids, tokens.mm_token_type_ids)
        pre = preprocess_image(image, self.checkpoint.preprocessor)
        tokens = self.tokenizer.build_prompt(prompt, pre.num_image_tokens, max_len=self.context_length - 1)
        return PreparedRequest(tokens.input_ids, tokens.mm_token_type_ids, pre.pixel_values, tuple(pre.grid_thw))

    def _prepare_all(self, items: Sequence[tuple[ImageInput, str]]) -> list[PreparedRequest]:
        out = []
        for i, (image, prompt) in enumerate(items):
            try:
                out.append(self.prepare(image, prompt))
            except (ImageError, PromptError) as e:
                if len(items) == 1:
                    raise
                raise type(e)(f"request {i}: {e}") from None
        return out

    # ------------------------------------------------------------------ generation

    def stream_batch(
        self,
        items: Sequence[tuple[ImageInput, str]],
        *,
        max_new_tokens: int | None | Sequence[int | None] = None,
        no_repeat_ngram_size: int = 100,
        presence_penalty: float = 0.0,
        frequency_penalty: float = 0.0,
        repetition_penalty: float = 1.0,
        sampling: Sequence[SamplingParams] | None = None,
        stop_ids: Sequence[int] | None = None,
        cancel: CancelFlag | None = None,
        max_batch: int | None = None,
    ) -> Iterator[Event]:
        """Generate for several (image, prompt) pairs together; yields events, ``Done`` last.

        ``sampling`` (one :class:`SamplingParams` per item) replaces the four knob arguments,
        and ``max_new_tokens`` may be a sequence too, so each row keeps its own knobs and limit.
        ``max_batch`` rows decode together at most (None: all); the next item joins as a row
        ends (continuous batching, ``generate.py``). Input errors (ImageError, PromptError) are
        raised before anything is generated.
        """
        import time

        from mineru_tui.engines.events import StageEvent, Timing

        if not items:
            raise PromptError("nothing to generate: no (image, prompt) pairs")
        params: SamplingParams | list[SamplingParams]
        if sampling is not None:
            params = list(sampling)
            if len(params) != len(items):
                raise ValueError(f"{len(params)} sampling params for {len(items)} items")
            for p in params:
                p.validate()
        else:
            params = SamplingParams(no_repeat_ngram_size, presence_penalty, frequency_penalty, repetition_penalty)
            params.validate()
        t0 = time.perf_counter()
        timing = Timing()
        yield StageEvent("preprocess", False, 0.0)
        requests = self._prepare_all(items)
        timing.preprocess_s = time.perf_counter() - t0
        yield StageEvent("preprocess", True, timing.preprocess_s, timing.preprocess_s)
        yield from run_generation(
            self.config,
            self.vision,
            self.text,
            requests,
            self.tokenizer.detokenizer,
            max_new_tokens=max_new_tokens,
            params=params,
            stop_ids=self.stop_ids if stop_ids is None else tuple(stop_ids),
            strip_ids=self.strip_ids,
            cancel=cancel,
            timing=timing,
            t0=t0,
            max_batch=max_batch,
        )

    def stream(self, image: ImageInput, prompt: str, **kwargs: Any) -> Iterator[Event]:
        """Iterator form of ``generate``: StageEvent / TokenEvent / SequenceDone …, ``Done`` last."""
        return self.stream_batch([(image, prompt)], **kwargs)

    def generate_batch(
        self,
        items: Sequence[tuple[ImageInput, str]],
        *,
        on_event: EventCallback | None = None,
        **kwargs: Any,
    ) -> list[GenerationResult]:
        """Results in request order; each sequence stops on its own (see ``stream_batch``)."""
        done: Done | None = None
        for ev in self.stream_batch(items, **kwargs):
            if on_event is not None:
                on_event(ev)
            if isinstance(ev, Done):
                done = ev
        assert done is not None
        return done.results

    def generate(
        self,
        image: ImageInput,
        prompt: str,
        *,
        max_new_tokens: int | None = None,
        no_repeat_ngram_size: int = 100,
        presence_penalty: float = 0.0,
        frequency_penalty: float = 0.0,
        repetition_penalty: float = 1.0,
        stop_ids: Sequence[int] | None = None,
        on_event: EventCallback | None = None,
        cancel: CancelFlag | None = None,
    ) -> GenerationResult:
        """Greedy generation for one image and MinerU task prompt (e.g. ``"\\nText Recognition:"``).

        ``image``: path, bytes or PIL image (None: text only). ``stop_ids`` default to the
        checkpoint's; ``[]`` disables stopping. ``max_new_tokens=None`` runs to the context limit.
        Returns token ids (stop id included), text (stop/pad ids stripped), finish_reason
        ("stop" | "length" | "cancelled") and timings.
        """
        return self.generate_batch(
            [(image, prompt)],
            on_event=on_event,
            max_new_tokens=max_new_tokens,
            no_repeat_ngram_size=no_repeat_ngram_size,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
            repetition_penalty=repetition_penalty,
            stop_ids=stop_ids,
            cancel=cancel,
        )[0]
