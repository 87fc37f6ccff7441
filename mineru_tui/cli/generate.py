"""``mineru-tui generate``: one image through the model, raw output streamed to stdout.

The model's text goes to stdout token by token; a progress line (stage timings, prompt tokens,
tok/s) goes to stderr. Model, image and prompt problems are one ``error:`` line and exit 1.
It opens an engine as ``parse`` does (``--engine``, default numpy: the exact reference) and
sends it one request with one of MinerU's tasks (:mod:`mineru_tui.reader.tasks`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path
from enum import Enum
from typing import List, Optional, TextIO

import typer

from mineru_tui.cli.options import (EngineName, check_max_new_tokens, concurrency_option, device_option, engine_fields,
                                    engine_option, model_option, precision_option, server_url_option)
from mineru_tui.console import isatty, one_line
from mineru_tui.engines.defaults import DEFAULT_MODEL, TASK_NAMES

GENERATE_HELP = """Run the MinerU2.5 model on one IMAGE and print its raw output.

\b
The text streams to stdout as it is generated (layout tokens, OTSL/HTML,
LaTeX as the model writes them); stage timings and tok/s go to stderr
(on a terminal, or with -v).
--task picks MinerU's prompt and decoding knobs: text (default), table,
formula, image, or layout (run it on the whole page). --prompt sends your
own prompt text with the task's knobs.

\b
--model takes a checkpoint directory or a Hugging Face repo id (default
{DEFAULT_MODEL}, looked up in the Hugging Face cache;
set HF_HUB_OFFLINE=1 to never touch the network). --engine picks what runs
it, as for parse (default numpy, the exact reference; openvino, http with
--server-url, llama-cpp, coreml, or auto).

\b
Exit codes: 0 ok, 1 model/image/prompt error (one "error:" line), 2 usage,
130 interrupted.
""".replace("{DEFAULT_MODEL}", DEFAULT_MODEL)


# The task choices are reader/tasks.py's names (read from engines/defaults.py: no numpy here)
Task = Enum("Task", {name: name for name in TASK_NAMES}, type=str)


def generate(
    image: Path = typer.Argument(..., metavar="IMAGE", help="A page image or crop (PNG, JPEG, ...)."),
    task: Task = typer.Option(Task("text"), "--task", "-t", help="MinerU task: prompt and knobs."),
    prompt: Optional[str] = typer.Option(None, "--prompt", "-p",
                                         help="Your own prompt text instead of the task's."),
    model: Optional[str] = model_option(),
    engine: EngineName = engine_option(EngineName.numpy),
    server_url: List[str] = server_url_option(),
    concurrency: int = concurrency_option(),
    device: Optional[str] = device_option(),
    precision: Optional[str] = precision_option(),
    max_new_tokens: Optional[int] = typer.Option(None, "--max-new-tokens", "-n", metavar="N",
                                                 help="Stop after N tokens (default: the "
                                                      "model's context)."),
    no_repeat_ngram_size: Optional[int] = typer.Option(None, "--no-repeat-ngram-size", metavar="N",
                                                       help="Ban repeating N-grams (task default 100)."),
    presence_penalty: Optional[float] = typer.Option(None, "--presence-penalty", metavar="X"),
    frequency_penalty: Optional[float] = typer.Option(None, "--frequency-penalty", metavar="X"),
    repetition_penalty: Optional[float] = typer.Option(None, "--repetition-penalty", metavar="X"),
    verbose: bool = typer.Option(False, "-v", "--verbose",
                                 help="Timings on stderr even when it is not a terminal."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Only errors on stderr."),
) -> None:
    if verbose and quiet:
        raise typer.BadParameter("-v and -q cannot be used together", param_hint="-v/-q")
    check_max_new_tokens(max_new_tokens)

    knobs = dict(no_repeat_ngram_size=no_repeat_ngram_size, presence_penalty=presence_penalty,
                 frequency_penalty=frequency_penalty, repetition_penalty=repetition_penalty)
    fields = engine_fields(engine, model, server_url, concurrency, device, precision)
    raise typer.Exit(run_generate(image, prompt, task.value, model or DEFAULT_MODEL, max_new_tokens, knobs,
                                  verbose=verbose, quiet=quiet, engine_fields=fields))


def register(app: typer.Typer) -> None:
    """Add ``generate`` to the ``mineru-tui`` command."""
    app.command(help=GENERATE_HELP, no_args_is_help=True)(generate)


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
                 stderr: TextIO | None = None, engine_fields: dict | None = None) -> int:
    """Open the engine, generate, stream; returns the exit code (0 ok, 1 error, 130 interrupted).
    ``engine_fields``: :class:`~mineru_tui.engines.EngineOptions` fields (default: the numpy
    engine on ``model_spec``)."""
    import threading

    from mineru_tui.engines import EngineError, EngineOptions, Request, open_engine
    from mineru_tui.engines.events import Done
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
    options = EngineOptions(**{"engine": "numpy", **(engine_fields or {}), "model": model_spec})
    request = Request(str(image), chosen.prompt if prompt is None else prompt, sampling, max_new_tokens)
    cancel = threading.Event()
    engine = None
    try:
        t0 = time.perf_counter()
        engine = open_engine(options)
        if verbose:
            err.write(f"engine {engine.name} ({engine.model_id}) opened in {time.perf_counter() - t0:.1f} s\n")
        progress = Progress(out, err, show=show, counter=counter)
        done = None
        for ev in engine.stream([request], cancel=cancel):
            if isinstance(ev, Done):
                done = ev
                if any(r.finish_reason == "error" for r in ev.results):
                    break  # a bad image or prompt: one error line below, nothing on stdout
            progress(ev)
    except EngineError as e:
        from mineru_tui.cli.options import engine_error_line

        server = options.engine in ("http", "llama-cpp") or bool(options.server_urls)
        err.write(one_line(engine_error_line(str(e), options.model, server=server)) + "\n")
        if verbose:
            err.write(f"  detail: {one_line(str(e))}\n")
        return 1
    except KeyboardInterrupt:
        cancel.set()
        out.write("\n")
        out.flush()
        err.write("interrupted\n")
        return 130
    finally:
        if engine is not None:
            engine.close()
    result = done.results[0] if done is not None and done.results else None
    if result is None or result.finish_reason == "error":
        err.write(f"error: {one_line(result.error if result is not None and result.error else 'no answer')}\n")
        return 1
    if result.finish_reason == "length" and not quiet:
        err.write(f"note: stopped at --max-new-tokens ({len(result.token_ids)} tokens)\n")
    return 0
