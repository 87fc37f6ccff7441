"""The ``parse`` command: documents to Markdown or MinerU's output set (the job: :mod:`.batch`).

Only Typer is imported here; the batch runner, the document model and the readers load when
``parse`` runs them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from mineru_tui.cli.options import (Effort, EngineName, Format, MineruFormat, Mode, check_max_new_tokens,
                                    bundle_option, concurrency_option, device_option, effort_option,
                                    engine_fields,
                                    engine_option, image_analysis_option, max_new_tokens_option,
                                    mode_option, model_option, precision_option, reading_fields,
                                    server_url_option)
from mineru_tui.console import isatty

PARSE_HELP = """Parse FILEs (or folders of them) to Markdown or MinerU JSON.

\b
Without -o: one file prints its Markdown (or, with --format json, its content list)
on stdout. Several inputs print each file's Markdown after a line
"<!-- mineru-tui: PATH -->", or with --format json one JSON list of
{"file", "content_list"} objects ({"file", "error"} for a file that failed).
Images are then referenced by name only and not written.

\b
With -o DIR: each input gets MinerU 3.x's and MinerU 4's output sets
  DIR/<stem>/<stem>.md, <stem>_middle.json, <stem>_content_list.json, images/
  DIR/<stem>/markdown.md, middle_json.json, structured_content.json (MinerU 4)
(--mineru-format 3|4 writes one), written atomically. Only a set this tool
wrote is replaced: anything else under that name is left alone and the set
goes to <stem>_2, <stem>_3... (a note says so), as does a name used twice
in one batch.

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


def parse(
    files: Optional[List[Path]] = typer.Argument(None, metavar="FILE",
                                                 help="Files or folders to parse."),
    output: Optional[Path] = typer.Option(
        None, "-o", "--output", metavar="DIR",
        help="Write the MinerU output set per input under DIR instead of printing."),
    fmt: Format = typer.Option(Format.md, "--format", "-f",
                               help="What stdout gets: md (Markdown) or json (content "
                                    "list). Ignored with -o, which writes both."),
    mineru_format: MineruFormat = typer.Option(
        MineruFormat.both, "--mineru-format", metavar="3|4|both",
        help="With -o: MinerU 3.x's files (<stem>.md, <stem>_middle.json, "
             "<stem>_content_list.json), MinerU 4's (markdown.md, middle_json.json, "
             "structured_content.json, model_output.json), or both."),
    verbose: bool = typer.Option(False, "-v", "--verbose",
                                 help="A line per file, every warning, and tracebacks of "
                                      "internal errors, on stderr."),
    quiet: bool = typer.Option(False, "-q", "--quiet",
                               help="Only the final error lines on stderr."),
    debug: bool = typer.Option(False, "--debug",
                               help="Show the traceback of internal errors."),
    engine: EngineName = engine_option(),
    model: Optional[str] = model_option(),
    mode: Mode = mode_option(),
    effort: Effort = effort_option(),
    pages: Optional[str] = typer.Option(None, "--pages", metavar="RANGES",
                                        help="Pages to read, 1-based: 1-3,7 (PDF pages, TIFF frames)."),
    image_analysis: bool = image_analysis_option(),
    max_new_tokens: Optional[int] = max_new_tokens_option(),
    server_url: List[str] = server_url_option(),
    concurrency: int = concurrency_option(),
    device: Optional[str] = device_option(),
    precision: Optional[str] = precision_option(),
    bundle: Optional[Path] = bundle_option(),
    workers: int = typer.Option(1, "--workers", metavar="N",
                                help="Files read at once, sharing the engine: keeps several "
                                     "servers busy (--engine http). Output order unchanged."),
) -> None:
    if not files:  # a hint, not 80 lines of help
        print(USAGE, file=sys.stderr, end="")
        raise typer.Exit(2)
    if verbose and quiet:
        raise typer.BadParameter("-v and -q cannot be used together", param_hint="-v/-q")
    check_max_new_tokens(max_new_tokens)
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
        engine=LazyEngine(EngineOptions(**engine_fields(engine, model, server_url, concurrency, device, precision,
                                                        bundle)),
                          announce=_once(_say_line) if verbose else None),
        pages=pages, **reading_fields(mode, effort, image_analysis, max_new_tokens))
    opts = Options(out_dir=output, fmt=fmt.value, verbose=verbose, quiet=quiet,
                   debug=debug, progress=not quiet and (verbose or isatty(sys.stderr)),
                   reading=reading, live=not quiet and isatty(sys.stderr), workers=workers,
                   mineru_format=mineru_format.value)
    raise typer.Exit(run(list(files), opts))


USAGE = """usage: mineru-tui parse FILE... [-o DIR] [--effort low|medium|high] [-v]
  mineru-tui parse report.docx > report.md     Markdown on stdout; -o DIR writes MinerU's set
  mineru-tui parse --help                      every option
"""


def register(app: typer.Typer) -> None:
    """Add ``parse`` to the ``mineru-tui`` command."""
    app.command(help=PARSE_HELP)(parse)


def _once(say):
    """``say`` for each distinct line once (the engine line is announced again each time an
    engine fails to open; a run says it once)."""
    said: set[str] = set()

    def say_once(line: str) -> None:
        if line not in said:
            said.add(line)
            say(line)
    return say_once


def _say_line(line: str) -> None:
    """One line on stderr, now (``-v``'s note of what ``--engine auto`` picked)."""
    print(line, file=sys.stderr, flush=True)
