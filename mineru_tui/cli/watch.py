"""The ``watch`` command: ``mineru-tui watch DIR`` (the app) or ``--plain`` (lines on stderr).

Kept out of :mod:`mineru_tui.cli` so the ``parse`` path stays small; only Typer is imported
here. The app (Textual) loads only when ``watch`` runs without ``--plain``; the watch service
(watchdog) only when ``watch`` runs.
"""


import sys
from pathlib import Path

import typer

WATCH_HELP = """Watch DIR and read every document that lands in it, live.

\b
Office files (.docx, .pptx, .xlsx) are read at once; PDFs and page images
with the MinerU2.5 model (--engine, --model). Files already in DIR are
queued too; a file is read once it is complete (no events for a moment,
size and mtime stable, it opens). Temporary, hidden and lock files are
ignored (~$x.docx, .~lock.x#, *.part, *.crdownload, *.tmp, dotfiles).

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


def register(app: typer.Typer) -> None:
    """Add ``watch`` to the ``mineru-tui`` command (with parse's engine and reading options).

    The options' types come from :mod:`mineru_tui.cli`, which calls this at its end; this
    module has no ``from __future__ import annotations`` because Typer evaluates the
    annotations of the nested function against this module's globals.
    """
    from mineru_tui.cli import (Effort, EngineName, Mode, concurrency_option, engine_fields,
                                server_url_option)
    from mineru_tui.engines.defaults import DEFAULT_MODEL, MODEL_ENV

    @app.command(help=WATCH_HELP, no_args_is_help=True)
    def watch(
        folder: Path = typer.Argument(..., metavar="DIR",
                                      help="The folder to watch (recursively)."),
        output_dir: Path | None = typer.Option(
            None, "--output-dir", "-o", metavar="OUT",
            help="Where results go (default: DIR-mineru beside DIR)."),
        plain: bool = typer.Option(False, "--plain",
                                   help="No app: one line per event on stderr."),
        poll: bool = typer.Option(False, "--poll",
                                  help="Poll the folder instead of using native file events "
                                       "(network folders; chosen automatically when needed)."),
        engine: EngineName = typer.Option(EngineName.auto, "--engine",
                                          help="What runs the MinerU2.5 model for PDFs and "
                                               "images (auto: numpy on this machine)."),
        model: str | None = typer.Option(None, "--model", "-m", envvar=MODEL_ENV,
                                            metavar="DIR|REPO",
                                            help=f"Checkpoint directory or Hugging Face repo id "
                                                 f"(env {MODEL_ENV}; default {DEFAULT_MODEL})."),
        mode: Mode = typer.Option(Mode.two_stage, "--mode",
                                  help="two-stage: layout, then every block; text: one "
                                       "plain-text pass per page."),
        effort: Effort = typer.Option(Effort.medium, "--effort",
                                      help="PDFs: low (text layer only), medium, high (the "
                                           "model reads every block)."),
        image_analysis: bool = typer.Option(False, "--image-analysis",
                                            help="Also describe pictures and charts."),
        max_new_tokens: int | None = typer.Option(None, "--max-new-tokens", metavar="N",
                                                     help="Cap every model answer at N tokens."),
        server_url: list[str] = server_url_option(),
        concurrency: int = concurrency_option(),
    ) -> None:
        if max_new_tokens is not None and max_new_tokens < 1:
            raise typer.BadParameter("must be at least 1", param_hint="--max-new-tokens")
        reading = {"mode": mode.value, "effort": effort.value, "image_analysis": image_analysis,
                   "extra": {"max_new_tokens": max_new_tokens} if max_new_tokens else {}}
        raise typer.Exit(run_watch(folder, output_dir, plain=plain, poll=poll,
                                   engine=engine_fields(engine, model, server_url, concurrency),
                                   reading=reading))


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
        from mineru_tui.tui.app import run_app
    except ImportError as e:
        print(f"error: the app needs Textual ({e}); install it or use --plain", file=sys.stderr)
        return 1
    return run_app(config)
