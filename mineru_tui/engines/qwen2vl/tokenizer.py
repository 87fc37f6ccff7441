"""Tokenizer, chat template and detokenisation for Qwen2-VL (MinerU2.5) checkpoints.

* ``Tokenizer`` wraps ``tokenizers.Tokenizer`` (``tokenizer.json``): encode without added special
  tokens (Qwen2 has no BOS; special tokens written in the text are matched), decode keeping
  special tokens (``<|box_start|>``, OTSL cells, ... must survive into the output text).
* The checkpoint's own chat template is rendered with jinja2 the way transformers does it
  (sandboxed, ``trim_blocks``/``lstrip_blocks``, ``raise_exception``); the stock Qwen2-VL
  template is used when the checkpoint ships none.
* ``build_prompt`` lays out MinerU's messages (system "You are a helpful assistant.", user content
  [image, text]) and expands every ``<|image_pad|>`` to the image's token count.
* ``IncrementalDetokenizer`` turns a stream of ids into text deltas that never split a UTF-8
  character (``tokenizers``' own ``DecodeStream``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import tokenizers

from mineru_tui.engines.errors import ModelError, PromptError

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "QWEN2VL_CHAT_TEMPLATE",
    "IncrementalDetokenizer",
    "PromptError",
    "PromptTokens",
    "Tokenizer",
    "load_tokenizer",
    "render_chat_template",
]

MAX_TOKENIZER_BYTES = 256 << 20  # tokenizer.json; MinerU2.5's (Qwen2's vocabulary) is 7 MiB
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."  # mineru_vl_utils DEFAULT_SYSTEM_PROMPT
IMAGE_PAD = "<|image_pad|>"

# The stock Qwen2-VL chat template (used by transformers when a checkpoint has none of its own).
QWEN2VL_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}{% endfor %}<|im_end|>\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


# ----------------------------------------------------------------------------- chat template


@lru_cache(maxsize=8)
def _compile_template(source: str):
    """Compile like transformers' ``_compile_jinja_template`` (sandbox, trim/lstrip, helpers)."""
    import jinja2
    from jinja2.ext import Extension, loopcontrols
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class GenerationTag(Extension):
        """``{% generation %}…{% endgeneration %}`` (assistant-mask marker): renders its body."""

        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

        def _render(self, caller):
            return caller()

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env.from_string(source)


def render_chat_template(template: str, messages: list[dict[str, Any]], add_generation_prompt: bool = True, **kwargs: Any) -> str:
    """Render a chat template the way ``apply_chat_template(tokenize=False)`` does."""
    import jinja2

    try:
        return _compile_template(template).render(messages=messages, add_generation_prompt=add_generation_prompt, **kwargs)
    except jinja2.TemplateError as e:
        raise PromptError(f"chat template failed: {e}") from None


def _template_from_config(value: Any) -> str | None:
    """``chat_template`` may be a string or a list of {"name", "template"} (pick "default")."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        named = {t.get("name"): t.get("template") for t in value if isinstance(t, dict)}
        return named.get("default") or next(iter(named.values()), None)
    return None


def _read_json_if_exists(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelError(f"{path}: cannot read ({e})") from None
    except RecursionError:
        raise ModelError(f"{path}: cannot read (its JSON is nested too deeply)") from None
    return data if isinstance(data, dict) else {}


def find_chat_template(model_dir: Path, tokenizer_config: dict[str, Any]) -> tuple[str, str]:
    """(template, where it came from): the processor's template first, as transformers' processor."""
    jinja = model_dir / "chat_template.jinja"  # transformers-5 saves it as a plain file
    if jinja.exists():
        return jinja.read_text(encoding="utf-8"), str(jinja)
    for name, cfg in (("chat_template.json", _read_json_if_exists(model_dir / "chat_template.json")), ("tokenizer_config.json", tokenizer_config)):
        t = _template_from_config(cfg.get("chat_template"))
        if t:
            return t, str(model_dir / name)
    return QWEN2VL_CHAT_TEMPLATE, "stock Qwen2-VL template"


# ----------------------------------------------------------------------------- tokenizer


@dataclass(frozen=True)
class PromptTokens:
    """A tokenised prompt for one sequence.

    input_ids: "[L]" int64, every ``<|image_pad|>`` already repeated num_image_tokens[i] times
    mm_token_type_ids: "[L]" int64, 1 at image-pad tokens, 0 elsewhere (groups for M-RoPE)
    """

    input_ids: np.ndarray
    mm_token_type_ids: np.ndarray
    num_image_tokens: tuple[int, ...]
    text: str  # the rendered template, before expanding <|image_pad|>

    def __len__(self) -> int:
        return int(self.input_ids.shape[0])


class Tokenizer:
    """``tokenizer.json`` + chat template of one checkpoint."""

    def __init__(
        self,
        tok: tokenizers.Tokenizer,
        chat_template: str = QWEN2VL_CHAT_TEMPLATE,
        special_tokens: dict[str, str] | None = None,
        model_max_length: int | None = None,
    ):
        self._tok = tok
        self.chat_template = chat_template
        self.special_tokens = dict(special_tokens or {})  # bos_token, eos_token, ... for templates
        self.model_max_length = model_max_length
        self.image_token_id = self.token_id(IMAGE_PAD)

    @classmethod
    def from_dir(cls, model_dir: str | os.PathLike[str]) -> Tokenizer:
        """Load ``tokenizer.json``, ``tokenizer_config.json`` and the chat template of a checkpoint."""
        model_dir = Path(model_dir)
        path = model_dir / "tokenizer.json"
        if not path.exists():
            raise ModelError(f"{model_dir}: no tokenizer.json (the fast-tokenizer file is required)")
        try:  # the Rust loader aborts the process on a file too large for it: sized first
            size = path.stat().st_size
        except OSError as e:
            raise ModelError(f"{path}: cannot read it ({e.strerror or e})") from None
        if size > MAX_TOKENIZER_BYTES:
            raise ModelError(f"{path}: {size / 2**20:.0f} MiB, larger than a tokenizer can be "
                             f"({MAX_TOKENIZER_BYTES >> 20} MiB; MinerU2.5's is 7 MiB)")
        try:
            tok = tokenizers.Tokenizer.from_file(str(path))
        except Exception as e:  # tokenizers raises plain Exception subclasses
            raise ModelError(f"{path}: cannot load tokenizer ({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
        cfg = _read_json_if_exists(model_dir / "tokenizer_config.json")
        template, _ = find_chat_template(model_dir, cfg)
        specials = {}
        for k in ("bos_token", "eos_token", "pad_token", "unk_token"):
            v = cfg.get(k)
            v = v.get("content") if isinstance(v, dict) else v
            if isinstance(v, str):
                specials[k] = v
        mml = cfg.get("model_max_length")
        return cls(tok, template, specials, int(mml) if isinstance(mml, (int, float)) and mml < 1e12 else None)

    # -- basic

    @property
    def vocab_size(self) -> int:
        """Number of ids the tokenizer knows (added tokens included; may be < the embedding rows)."""
        return self._tok.get_vocab_size(with_added_tokens=True)

    def token_id(self, token: str) -> int:
        """Id of a token string (e.g. ``"<|im_end|>"``); KeyError when the vocabulary lacks it."""
        i = self._tok.token_to_id(token)
        if i is None:
            raise KeyError(f"token {token!r} is not in the vocabulary")
        return i

    def id_to_token(self, token_id: int) -> str | None:
        return self._tok.id_to_token(int(token_id))

    def encode(self, text: str) -> list[int]:
        """Text → ids; no special tokens added, special tokens written in the text are matched."""
        return self._tok.encode(text, add_special_tokens=False).ids

    def decode(self, ids: Iterable[int]) -> str:
        """Ids → text, keeping special tokens (MinerU decodes with skip_special_tokens=False)."""
        return self._tok.decode([int(i) for i in ids], skip_special_tokens=False)

    # -- prompts

    def render(self, messages: list[dict[str, Any]], add_generation_prompt: bool = True, **kwargs: Any) -> str:
        """Render this checkpoint's chat template (``apply_chat_template(tokenize=False)``)."""
        return render_chat_template(self.chat_template, messages, add_generation_prompt, **{**self.special_tokens, **kwargs})

    @staticmethod
    def mineru_messages(text: str, num_images: int, system: str | None = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
        """MinerU's message layout: optional system turn, user content = images first, then text."""
        content: list[dict[str, Any]] = [{"type": "image"} for _ in range(num_images)]
        content.append({"type": "text", "text": text})
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": content})
        return messages

    def build_prompt(
        self,
        text: str,
        num_image_tokens: int | Sequence[int] | None,
        *,
        system: str | None = DEFAULT_SYSTEM_PROMPT,
        max_len: int | None = None,
    ) -> PromptTokens:
        """Tokenise one MinerU request.

        ``num_image_tokens``: the visual-token count of each image (``PreprocessedImage``
        .num_image_tokens), an int for one image, a list for several, None/[] for text only.
        ``max_len``: the model context (max_position_embeddings); a longer prompt → PromptError.
        """
        if not text or not text.strip():
            raise PromptError("the prompt is empty")
        if num_image_tokens is None:
            counts: tuple[int, ...] = ()
        elif isinstance(num_image_tokens, (int, np.integer)):
            counts = (int(num_image_tokens),)
        else:
            counts = tuple(int(n) for n in num_image_tokens)
        if any(n <= 0 for n in counts):
            raise PromptError(f"each image needs at least one token, got {list(counts)}")

        rendered = self.render(self.mineru_messages(text, len(counts), system))
        template_ids = np.asarray(self.encode(rendered), dtype=np.int64)
        pad_at = np.flatnonzero(template_ids == self.image_token_id)
        if len(pad_at) != len(counts):
            raise PromptError(
                f"the prompt has {len(pad_at)} {IMAGE_PAD} tokens for {len(counts)} images "
                f"(the text must not contain {IMAGE_PAD})"
            )
        # Splice instead of tokenising "<|image_pad|>"×N: added tokens split the text before BPE,
        # so the ids around them are the same either way (and 1369 pads stay cheap).
        repeats = np.ones(len(template_ids), dtype=np.int64)
        repeats[pad_at] = counts
        input_ids = np.repeat(template_ids, repeats)
        length = int(input_ids.shape[0])
        if max_len is not None and length > max_len:
            raise PromptError(
                f"the prompt is {length} tokens ({sum(counts)} for the image), more than the model's context of {max_len}"
            )
        mm_token_type_ids = (input_ids == self.image_token_id).astype(np.int64)
        return PromptTokens(input_ids, mm_token_type_ids, counts, rendered)

    def detokenizer(self) -> IncrementalDetokenizer:
        """A fresh streaming detokenizer for one sequence."""
        return IncrementalDetokenizer(self)


def load_tokenizer(model_dir: str | os.PathLike[str]) -> Tokenizer:
    """``Tokenizer.from_dir``."""
    return Tokenizer.from_dir(model_dir)


# ----------------------------------------------------------------------------- streaming


class IncrementalDetokenizer:
    """Ids in, text deltas out; never emits half a UTF-8 character, keeps special tokens.

    ``tokenizers.decoders.DecodeStream`` does the streaming (it holds back bytes until a
    character is complete, for byte-level BPE and every other decoder alike). It has no end of
    sequence, so :meth:`flush` compares with a full ``decode`` once: an incomplete character
    left at the end becomes U+FFFD as in ``Tokenizer.decode``, and
    ``"".join(push(i) for i in ids) + flush() == decode(ids)``.
    """

    def __init__(self, tokenizer: Tokenizer):
        self._tok = tokenizer
        self._stream = tokenizers.decoders.DecodeStream(skip_special_tokens=False)
        self._ids: list[int] = []
        self._emitted: list[str] = []

    def push(self, token_id: int) -> str:
        """Add one id; return the newly complete text (possibly "")."""
        self._ids.append(int(token_id))
        piece = self._stream.step(self._tok._tok, int(token_id)) or ""
        if piece:
            self._emitted.append(piece)
        return piece

    def flush(self) -> str:
        """End of sequence: whatever is still held back (an incomplete character → U+FFFD)."""
        text = self._tok.decode(self._ids)
        done = "".join(self._emitted)
        tail = text[len(done):] if text.startswith(done) else ""
        if tail:
            self._emitted.append(tail)
        return tail
