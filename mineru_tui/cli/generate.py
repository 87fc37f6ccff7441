"""``mineru-tui generate``: one image through the model, raw output streamed to stdout.

The model's text goes to stdout token by token; a progress line (stage timings, prompt tokens,
tok/s) goes to stderr. Model, image and prompt problems are one ``error:`` line and exit 1.
This is the engine's own command (the two-stage page reader will build on it in ``parse``).
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TextIO

from mineru_tui.console import isatty, one_line


class Progress:
    """Engine events → stdout (the text, token by token) and stderr (stages, rate, summary).

    Stage lines (preprocess, vision, prefill) all come before the first token, so they never
    interleave with the text. While tokens stream into a file or pipe, a live token counter is
    kept on a terminal's stderr; when stdout is the terminal too, the text itself is the progress.
    """

    def __init__(self, out: TextIO, err: TextIO, show: bool, counter: bool):
        self.out, self.err, self.show, self.counter = out, err, show, counter
        self._drawn_at = 0.0
        self._counter_shown = False

    def __call__(self, ev) -> None:
        from mineru_tui.engines.events import Done, StageEvent, TokenEvent

        if isinstance(ev, TokenEvent):
            self.out.write(ev.text_delta)
            self.out.flush()
            if self.counter and ev.elapsed - self._drawn_at >= 0.5:
                self._drawn_at = ev.elapsed
                self.err.write(f"\r\x1b[2K{ev.n_generated} tokens")
                self.err.flush()
                self._counter_shown = True
        elif isinstance(ev, StageEvent) and ev.done and ev.stage != "decode" and self.show:
            unit = {"vision": " image tokens", "prefill": " prompt tokens"}.get(ev.stage, " tokens")
            extra = f" ({ev.tokens}{unit})" if ev.tokens else ""
            self.err.write(f"{ev.stage} {ev.seconds:.2f} s{extra}\n")
            self.err.flush()
        elif isinstance(ev, Done):
            self.out.write("\n")
            self.out.flush()
            if self._counter_shown:
                self.err.write("\r\x1b[2K")
            if self.show:
                t = ev.timings
                n = sum(len(r.token_ids) for r in ev.results)
                self.err.write(f"{n} tokens, decode {t.decode_tokens_per_s:.1f} tok/s · total {t.total_s:.2f} s\n")
                self.err.flush()


def run_generate(image: Path, prompt: str | None, task: str, model_spec: str, max_new_tokens: int | None,
                 knobs: dict, verbose: bool, quiet: bool, stdout: TextIO | None = None,
                 stderr: TextIO | None = None) -> int:
    """Load the model, generate, stream; returns the exit code (0 ok, 1 error, 130 interrupted)."""
    from mineru_tui.engines.numpy import load_model
    from mineru_tui.engines.errors import ImageError, ModelError, PromptError
    from mineru_tui.reader.tasks import TASKS

    out = stdout or sys.stdout
    err = stderr or sys.stderr
    chosen = TASKS[task]
    sampling = replace(chosen.sampling, **{k: v for k, v in knobs.items() if v is not None})
    show = not quiet and (verbose or isatty(err))
    counter = not quiet and isatty(err) and not isatty(out)
    try:
        sampling.validate()
    except ValueError as e:  # a knob out of range (e.g. --repetition-penalty 0)
        err.write(f"error: {one_line(str(e))}\n")
        return 1
    try:
        t0 = time.perf_counter()
        model = load_model(model_spec)
        if verbose:
            err.write(f"model {model.checkpoint.path} loaded in {time.perf_counter() - t0:.1f} s\n")
        progress = Progress(out, err, show=show, counter=counter)
        result = model.generate(str(image), chosen.prompt if prompt is None else prompt,
                                max_new_tokens=max_new_tokens, on_event=progress, **asdict(sampling))
    except (ModelError, ImageError, PromptError) as e:
        err.write(f"error: {one_line(str(e))}\n")
        return 1
    except KeyboardInterrupt:
        out.write("\n")
        out.flush()
        err.write("interrupted\n")
        return 130
    if result.finish_reason == "length" and not quiet:
        err.write(f"note: stopped at --max-new-tokens ({len(result.token_ids)} tokens)\n")
    return 0

