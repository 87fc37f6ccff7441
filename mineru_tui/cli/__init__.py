"""The ``mineru-tui`` command (Typer).

Only Typer is imported at startup; the batch runner, the document model and the readers
(lxml for Office files; numpy, Pillow, pypdfium2 and the engine for pages) load when ``parse``
actually runs them, and Textual never does on this path.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from mineru_tui import __version__
from mineru_tui.console import isatty
from mineru_tui.engines.defaults import DEFAULT_MODEL, MODEL_ENV, TASK_NAMES

HELP = """Documents to Markdown and MinerU-compatible JSON, on your own machine.

Nothing leaves the machine. Office files (.docx, .pptx, .xlsx and their macro/template
variants) are read directly from their XML; PDFs and page images are read by the MinerU2.5
model (numpy here, Core ML on a Mac, or servers: --engine). `watch` reads every file dropped
into a folder, live.
"""

PARSE_HELP = """Parse FILEs (or folders of them) to Markdown or MinerU JSON.

\b
Without -o: one file prints its Markdown (or, with --format json, its content list)
on stdout. Several inputs print each file's Markdown after a line
"<!-- mineru-tui: PATH -->", or with --format json one JSON list of
{"file", "content_list"} objects ({"file", "error"} for a file that failed).
Images are then referenced by name only and not written.

\b
With -o DIR: each input gets the MinerU output set
  DIR/<stem>/<stem>.md, <stem>_middle.json, <stem>_content_list.json, images/
written atomically. Only a set this tool wrote is replaced: anything else
under that name is left alone and the set goes to <stem>_2, <stem>_3...
(a note says so), as does a name used twice in one batch.

\b
PDFs and images (PNG, JPEG, TIFF, WebP, BMP) are read with the MinerU2.5
model (--engine, --model): layout, then each block; --mode text for a
faster plain-text pass. With -o, <stem>_model.json (the raw model answers)
and <stem>_layout.pdf (the boxes over each page) are written too.

\b
The type is decided from the file's bytes, not its name. Folders are walked
recursively in sorted order; hidden files and non-documents are skipped.
Progress goes to stderr (on a terminal, or with -v); results only to stdout.

\b
Exit codes: 0 all ok, 1 some input failed (each named at the end as
"error: PATH: REASON"), 2 usage error, 130 interrupted, 143 terminated.
"""


class Format(str, Enum):
    md = "md"
    json = "json"


class EngineName(str, Enum):
    auto = "auto"
    numpy = "numpy"
    coreml = "coreml"
    http = "http"
    llama_cpp = "llama-cpp"


class Mode(str, Enum):
    two_stage = "two-stage"
    text = "text"


class Effort(str, Enum):
    low = "low"
    medium = "medium"
    high = "high"


app = typer.Typer(
    name="mineru-tui",
    help=HELP,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain Click help and errors: no rich import, faster startup
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mineru-tui {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Documents to Markdown and MinerU-compatible JSON, on your own machine."""


def server_url_option():
    """``--server-url``, as ``parse`` and ``watch`` take it."""
    return typer.Option([], "--server-url", metavar="URL[,URL...]",
                        help="OpenAI-compatible servers for --engine http (vLLM, llama-server, "
                             "mineru-tui serve); implies it.")


def concurrency_option():
    """``--concurrency``, as ``parse`` and ``watch`` take it."""
    return typer.Option(0, "--concurrency", metavar="N",
                        help="Requests in flight per server (http: 8; llama-cpp: its 4 slots).",
                        show_default=False)


def engine_fields(engine: EngineName, model: Optional[str], server_url: List[str],
                  concurrency: int) -> dict:
    """The ``EngineOptions`` fields the engine options give (``parse`` and ``watch`` alike)."""
    return {"engine": engine.value, "model": model, "server_urls": tuple(server_url),
            "concurrency": max(concurrency, 0)}


@app.command(help=PARSE_HELP, no_args_is_help=True)
def parse(
    files: List[Path] = typer.Argument(..., metavar="FILE",
                                       help="Files or folders to parse."),
    output: Optional[Path] = typer.Option(
        None, "-o", "--output", metavar="DIR",
        help="Write the MinerU output set per input under DIR instead of printing."),
    fmt: Format = typer.Option(Format.md, "--format", "-f",
                               help="What stdout gets: md (Markdown) or json (content "
                                    "list). Ignored with -o, which writes both."),
    verbose: bool = typer.Option(False, "-v", "--verbose",
                                 help="A line per file, every warning, and tracebacks of "
                                      "internal errors, on stderr."),
    quiet: bool = typer.Option(False, "-q", "--quiet",
                               help="Only the final error lines on stderr."),
    debug: bool = typer.Option(False, "--debug",
                               help="Show the traceback of internal errors."),
    engine: EngineName = typer.Option(EngineName.auto, "--engine",
                                      help="What runs the MinerU2.5 model for PDFs and images "
                                           "(auto: numpy on this machine)."),
    model: Optional[str] = typer.Option(None, "--model", "-m", envvar=MODEL_ENV, metavar="DIR|REPO",
                                        help=f"Checkpoint directory or Hugging Face repo id (env "
                                             f"{MODEL_ENV}; default {DEFAULT_MODEL})."),
    mode: Mode = typer.Option(Mode.two_stage, "--mode",
                              help="two-stage: layout, then every block read (MinerU's way); "
                                   "text: one plain-text pass per page, faster."),
    effort: Effort = typer.Option(Effort.medium, "--effort",
                                  help="PDFs: medium uses a page's own text layer for text "
                                       "blocks when it is usable; high has the model read every "
                                       "block; low reads only the text layer (no model)."),
    pages: Optional[str] = typer.Option(None, "--pages", metavar="RANGES",
                                        help="Pages to read, 1-based: 1-3,7 (PDF pages, TIFF frames)."),
    image_analysis: bool = typer.Option(False, "--image-analysis",
                                        help="Also describe pictures and charts with the model."),
    max_new_tokens: Optional[int] = typer.Option(None, "--max-new-tokens", metavar="N",
                                                 help="Cap every model answer at N tokens "
                                                      "(quick trials; env MINERU_TUI_MAX_NEW_TOKENS)."),
    server_url: List[str] = server_url_option(),
    concurrency: int = concurrency_option(),
    workers: int = typer.Option(1, "--workers", metavar="N",
                                help="Files read at once, sharing the engine: keeps several "
                                     "servers busy (--engine http). Output order unchanged."),
) -> None:
    if verbose and quiet:
        raise typer.BadParameter("-v and -q cannot be used together", param_hint="-v/-q")
    if max_new_tokens is not None and max_new_tokens < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--max-new-tokens")
    if workers < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--workers")
    if pages is not None:
        from mineru_tui.errors import InputError
        from mineru_tui.pdf.page_range import check_pages
        try:
            check_pages(pages)
        except InputError as e:  # the message already names --pages and the bad part
            raise typer.BadParameter(str(e).removeprefix(f"--pages {pages!r}: "),
                                     param_hint="--pages") from None
    from mineru_tui.cli.batch import Options, out_dir_problem, run
    from mineru_tui.convert import ConvertOptions
    from mineru_tui.engines import EngineOptions, LazyEngine

    if output is not None and (problem := out_dir_problem(output)):
        raise typer.BadParameter(problem, param_hint="-o/--output")
    reading = ConvertOptions(
        engine=LazyEngine(EngineOptions(**engine_fields(engine, model, server_url, concurrency))),
        mode=mode.value,
        effort=effort.value, pages=pages, image_analysis=image_analysis,
        extra={"max_new_tokens": max_new_tokens} if max_new_tokens else {})
    opts = Options(out_dir=output, fmt=fmt.value, verbose=verbose, quiet=quiet,
                   debug=debug, progress=not quiet and (verbose or isatty(sys.stderr)),
                   reading=reading, live=not quiet and isatty(sys.stderr), workers=workers)
    raise typer.Exit(run(list(files), opts))


GENERATE_HELP = """Run the MinerU2.5 model on one IMAGE and print its raw output.

\b
The text streams to stdout as it is generated (layout tokens, OTSL/HTML,
LaTeX as the model writes them); stage timings and tok/s go to stderr.
--task picks MinerU's prompt and decoding knobs: text (default), table,
formula, image, or layout (run it on the whole page). --prompt sends your
own prompt text with the task's knobs.

\b
--model takes a checkpoint directory or a Hugging Face repo id (default
{DEFAULT_MODEL}, looked up in the Hugging Face cache;
set HF_HUB_OFFLINE=1 to never touch the network). Runs on the numpy engine.

\b
Exit codes: 0 ok, 1 model/image/prompt error (one "error:" line), 2 usage,
130 interrupted.
""".replace("{DEFAULT_MODEL}", DEFAULT_MODEL)


# The task choices are reader/tasks.py's names (read from reader/defaults.py: no numpy here)
Task = Enum("Task", {name: name for name in TASK_NAMES}, type=str)


@app.command(help=GENERATE_HELP, no_args_is_help=True)
def generate(
    image: Path = typer.Argument(..., metavar="IMAGE", help="A page image or crop (PNG, JPEG, ...)."),
    task: Task = typer.Option(Task("text"), "--task", "-t", help="MinerU task: prompt and knobs."),
    prompt: Optional[str] = typer.Option(None, "--prompt", "-p",
                                         help="Your own prompt text instead of the task's."),
    model: str = typer.Option(DEFAULT_MODEL, "--model", "-m",
                              envvar=MODEL_ENV, metavar="DIR|REPO",
                              help="Checkpoint directory or Hugging Face repo id "
                                   "(env MINERU_TUI_MODEL)."),
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
    if max_new_tokens is not None and max_new_tokens < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--max-new-tokens")
    from mineru_tui.cli.generate import run_generate

    knobs = dict(no_repeat_ngram_size=no_repeat_ngram_size, presence_penalty=presence_penalty,
                 frequency_penalty=frequency_penalty, repetition_penalty=repetition_penalty)
    raise typer.Exit(run_generate(image, prompt, task.value, model, max_new_tokens, knobs,
                                  verbose=verbose, quiet=quiet))


from mineru_tui.cli.bundle import bundle_app  # noqa: E402  (Typer only; the bundle code loads when run)
from mineru_tui.cli.watch import register as _register_watch  # noqa: E402

app.add_typer(bundle_app, name="bundle")
_register_watch(app)


def _light_coercion() -> None:
    """Convert this command's few parameter types without Pydantic.

    Typer 0.29 converts every parameter value (even the unused ``--help`` flag) through a
    Pydantic ``TypeAdapter``; importing Pydantic and building the adapters costs about as
    much as the rest of the start-up together: measured 2026-12 on the 2-core dev machine,
    20 runs each, median CPU time of ``parse missing.docx`` 154 ms with this hook, 302 ms
    without (``parse --help`` 112 vs 258 ms, ``parse`` of a small .docx 279 vs 421 ms). Our parameters are bools, str/int/float, paths, a list of paths and
    Enums, so a plain conversion does. This hooks Typer's (private) coercion factory only when it
    has the expected shape; anything else, or another Typer, keeps Typer's own path.
    pyproject.toml pins the Typer versions it was tested with (0.29.x); tests/cli/test_cli.py
    checks that ``parse`` starts without importing Pydantic.
    """
    try:
        import typer.core as tcore
        from typer._coercion import RuntimeParam
        from typing import get_args, get_origin
        original = tcore.build_runtime_param
    except (ImportError, AttributeError):
        return
    if getattr(original, "_mineru_light", False):
        return

    def convert(annotation):
        if annotation is bool:
            return lambda v: v if isinstance(v, bool) else str(v).lower() in ("1", "true", "yes", "on")
        if annotation is Path:
            return lambda v: v if isinstance(v, Path) else Path(v)
        if annotation in (str, int, float):
            def to_scalar(v):
                try:
                    return v if isinstance(v, annotation) else annotation(v)
                except ValueError:
                    raise typer.BadParameter(f"{v!r} is not a valid {annotation.__name__}") from None
            return to_scalar
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            def to_enum(v):
                try:
                    return v if isinstance(v, annotation) else annotation(v)
                except ValueError:
                    raise typer.BadParameter(f"{v!r} is not one of "
                                             f"{', '.join(m.value for m in annotation)}") from None
            return to_enum
        return None

    def build(descriptor):
        ann = descriptor.annotation
        multi = get_origin(ann) is list
        args = [a for a in get_args(ann) if a is not type(None)]
        inner = args[0] if (multi or get_origin(ann) is not None) and len(args) == 1 else ann
        fn = convert(inner)
        pi = descriptor.parameter_info
        plain = (getattr(pi, "parser", None) is None and not getattr(pi, "exists", False)
                 and getattr(pi, "file_okay", True) and getattr(pi, "dir_okay", True)
                 and not getattr(pi, "writable", False) and not getattr(pi, "resolve_path", False)
                 and not getattr(pi, "allow_dash", False)
                 and getattr(pi, "path_type", None) is None
                 and getattr(pi, "case_sensitive", True))
        if fn is None or not plain or descriptor.file_annotation is not None:
            return original(descriptor)  # validation we do not replicate: Typer's own path

        class Light(RuntimeParam):
            def _coerce_value(self, value, param, ctx):
                if multi:
                    return [fn(v) for v in value]
                return fn(value)

        return Light(parameter_info=descriptor.parameter_info, annotation=ann)

    build._mineru_light = True
    tcore.build_runtime_param = build


_light_coercion()

from mineru_tui.cli import serve as _cli_serve  # noqa: E402 - only Typer; serve's stack loads when run

_cli_serve.register(app)


def main() -> None:
    """Console-script entry point.

    Ctrl-C ends with 130 and SIGTERM with 143, wherever they land: before or after the
    batch loop (which handles its own), or swallowed by a library on the way
    (:mod:`mineru_tui.interrupts` remembers them).
    """
    from mineru_tui import interrupts

    if not interrupts.installed():  # the script's entry point installs them first thing
        interrupts.install()
    code = 0
    try:
        app(prog_name="mineru-tui")
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except (KeyboardInterrupt, interrupts.Terminated):
        code = 0
    except Exception:
        if interrupts.received() is None:
            raise
        code = 0  # the signal's exception, wrapped on the way (see mineru_tui.__main__)
    finally:
        interrupts.ignore()  # the run is over; a later signal changes nothing
    signalled = interrupts.exit_code()
    if signalled is None:
        sys.exit(code)
    if code not in (130, 143):
        print("terminated" if signalled == 143 else "interrupted", file=sys.stderr)
        code = signalled
    interrupts.exit_now(code)

if __name__ == "__main__":
    main()
