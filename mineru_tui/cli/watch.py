"""The ``watch`` command: ``mineru-tui watch DIR`` (the app) or ``--plain`` (lines on stderr).

Only Typer is imported here. The app (Textual) loads only when ``watch`` runs without ``--plain``; the watch service
(watchdog) only when ``watch`` runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from mineru_tui.cli.options import (Effort, EngineName, Mode, check_max_new_tokens,
                                    bundle_option, concurrency_option, device_option, effort_option, engine_fields,
                                    engine_option, image_analysis_option, max_new_tokens_option,
                                    mode_option, model_option, precision_option, reading_fields,
                                    server_url_option)

WATCH_HELP = """Watch DIR and read every document that lands in it, live.

\b
Files read from their structure are read at once: Office (.docx .pptx
.xlsx), OpenDocument, legacy Office (.doc .xls .ppt), RTF, HTML, MHTML,
EPUB, CSV/TSV. PDFs and page images are read page by page with the
MinerU2.5 model (--engine, --model; --effort low reads a PDF's own text
without it). Files already in DIR are queued too; a file is read once it
is complete (no events for a moment, size and mtime stable, it opens).
Temporary, hidden and lock files are ignored (~$x.docx, .~lock.x#,
*.part, *.crdownload, *.tmp, dotfiles).

\b
Results go to --output-dir (default: DIR-mineru beside DIR) in the layout
of `parse -o`: OUT/<stem>/<stem>.md, _content_list.json, _middle.json,
images/. OUT/.mineru-tui-watch.json remembers what was read, by content:
a restart does not read finished files again, a renamed or copied file is
recognised, a changed file is read again, a failed one only when it
changes or you press r.

\b
--plain runs without the app: one line per event on stderr, for servers
and service managers; SIGTERM or Ctrl-C stop it cleanly (exit 0).
"""


def watch(
    folder: Path = typer.Argument(..., metavar="DIR",
                                  help="The folder to watch (recursively)."),
    output_dir: Optional[Path] = typer.Option(
        None, "--output-dir", "-o", metavar="OUT",
        help="Where results go (default: DIR-mineru beside DIR)."),
    plain: bool = typer.Option(False, "--plain",
                               help="No app: one line per event on stderr."),
    poll: bool = typer.Option(False, "--poll",
                              help="Poll the folder instead of using native file events "
                                   "(network folders; chosen automatically when needed)."),
    engine: EngineName = engine_option(says_which=""),  # watch has no -v
    model: Optional[str] = model_option(),
    mode: Mode = mode_option(),
    effort: Effort = effort_option(),
    image_analysis: bool = image_analysis_option(),
    max_new_tokens: Optional[int] = max_new_tokens_option(),
    server_url: List[str] = server_url_option(),
    concurrency: int = concurrency_option(),
    device: Optional[str] = device_option(),
    precision: Optional[str] = precision_option(),
    bundle: Optional[Path] = bundle_option(),
) -> None:
    check_max_new_tokens(max_new_tokens)
    raise typer.Exit(run_watch(folder, output_dir, plain=plain, poll=poll,
                               engine=engine_fields(engine, model, server_url, concurrency, device, precision, bundle),
                               reading=reading_fields(mode, effort, image_analysis,
                                                      max_new_tokens)))


def register(app: typer.Typer) -> None:
    """Add ``watch`` to the ``mineru-tui`` command."""
    app.command(help=WATCH_HELP, no_args_is_help=True)(watch)


def run_watch(folder: Path, output_dir: Path | None, *, plain: bool, poll: bool,
              engine: dict, reading: dict) -> int:
    """Start the app or the plain runner; return the exit code."""
    from mineru_tui.watch.service import WatchConfig

    if not folder.is_dir():
        print(f"error: {folder}: not a folder", file=sys.stderr)
        return 1
    config = WatchConfig(folder, output_dir, poll=poll, engine=engine, reading=reading)
    if plain:
        from mineru_tui.watch.plain import run_plain
        return run_plain(config)
    if not sys.stdout.isatty():
        print("error: the app needs a terminal; use --plain for lines on stderr", file=sys.stderr)
        return 2
    try:
        import textual  # noqa: F401  (checked here; the app runs in a child process)
    except ImportError as e:
        print(f"error: the app needs Textual ({e}); install it or use --plain", file=sys.stderr)
        return 1
    # the app runs in a child; this process restores the terminal if the child is killed
    from mineru_tui.tui.terminal_guard import run_guarded
    return run_guarded(config)
