"""The ``mineru-tui`` command (Typer): the app, its commands and the entry point.

One module per command (:mod:`.parse`, :mod:`.generate`, :mod:`.bundle`, :mod:`.watch`,
:mod:`.serve`), the options they share in :mod:`.options`. Only Typer is imported at
start-up; the batch runner, the document model and the readers (lxml for Office files; numpy,
Pillow, pypdfium2 and the engine for pages) load when a command runs them, and Textual only
when ``watch`` starts its app.
"""

from __future__ import annotations

import sys

import typer

from mineru_tui import __version__
from mineru_tui.cli import bundle, generate, model, parse, serve, typer_fast, watch



def _auto_here() -> str:
    """What ``--engine auto`` runs on this machine, without importing an engine (the help
    must stay fast): Core ML on a Mac, OpenVINO where it is installed, else numpy."""
    import importlib.util

    if sys.platform == "darwin" and importlib.util.find_spec("coremltools") is not None:
        return "Core ML when a bundle for the model is built, else OpenVINO or numpy"
    if importlib.util.find_spec("openvino") is not None:
        return "OpenVINO"
    return "numpy (install the openvino extra for a faster engine)"


HELP = f"""Documents to Markdown and MinerU-compatible JSON, on your own machine.

\b
Nothing leaves the machine. Read from their own structure, in milliseconds:
  Word, PowerPoint, Excel (.docx .pptx .xlsx, macro and template variants),
  OpenDocument (.odt .ods .odp), legacy Office (.doc .xls .ppt), RTF,
  HTML, MHTML, EPUB and CSV.
PDFs and page images (PNG, JPEG, TIFF, WebP, BMP) are read by the MinerU2.5
model: `mineru-tui model fetch` gets it once (2.3 GB); --engine auto runs
{_auto_here()} here (or servers: --server-url). `parse --effort low`
reads a born-digital PDF's own text without the model. `watch` reads every
file dropped into a folder, live.
"""

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


parse.register(app)
generate.register(app)
app.add_typer(bundle.bundle_app, name="bundle")
watch.register(app)
model.register(app)
serve.register(app)
typer_fast.install()


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
        while True:  # the run is over; a later signal changes nothing
            try:
                interrupts.ignore()
                break
            except (KeyboardInterrupt, interrupts.Terminated):
                pass  # it landed as ignore() was called; received() has it
    signalled = interrupts.exit_code()
    if signalled is None:
        sys.exit(code)
    if code not in (130, 143):
        print("terminated" if signalled == 143 else "interrupted", file=sys.stderr)
        code = signalled
    interrupts.exit_now(code)

if __name__ == "__main__":
    main()
