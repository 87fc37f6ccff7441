"""The ``model`` command: get the MinerU2.5 model once, see where it is, check it.

    mineru-tui model fetch      download it into the Hugging Face cache (progress on stderr)
    mineru-tui model show       where it is and its size (or that it is not downloaded yet)
    mineru-tui model verify     every file checked against its published hash (offline)

Only Typer is imported here; huggingface_hub loads when a subcommand runs
(:mod:`mineru_tui.model_store`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import typer

from mineru_tui.cli.options import model_option

model_app = typer.Typer(
    help="Get the MinerU2.5 model PDFs and images are read with (once), see where it is, "
         "check it. Office files and `parse --effort low` need no model.",
    no_args_is_help=True, add_completion=False)


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@model_app.command()
def fetch(model: Optional[str] = model_option(),
          quiet: bool = typer.Option(False, "-q", "--quiet", help="No progress bars.")) -> None:
    """Download the model into the Hugging Face cache (about 2.3 GB; resumes if cut)."""
    from mineru_tui import model_store
    from mineru_tui.model_needed import MODEL_SIZE

    spec = model_store.model_spec(model)
    offline = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")
    if offline and not Path(spec).expanduser().is_dir():  # the hub would say only "disabled"
        which = "" if model is None else f" --model {spec}"
        _err(f"error: HF_HUB_OFFLINE is set, which forbids downloads: run "
             f"`env -u HF_HUB_OFFLINE mineru-tui model fetch{which}` once, or copy the model's "
             f"folder here and pass --model DIR")
        raise typer.Exit(1)
    if not quiet:
        _err(f"fetching {spec} ({MODEL_SIZE}) into the Hugging Face cache…")
    try:
        folder = model_store.fetch(spec, progress=not quiet)
    except model_store.ModelStoreError as e:
        _err(f"error: {e}")
        raise typer.Exit(1) from None
    print(folder)  # stdout: the result, for scripts
    _err(f"ok: {spec} is in {folder} ({model_store.human(model_store.size(folder))})")


@model_app.command()
def show(model: Optional[str] = model_option()) -> None:
    """Where the model is and its size (exit 1 when it is not on this machine)."""
    from mineru_tui import model_store
    from mineru_tui.model_needed import FETCH, MODEL_SIZE

    spec = model_store.model_spec(model)
    folder = model_store.locate(spec)
    if folder is None:
        _err(f"{spec}: not downloaded yet ({MODEL_SIZE}); run `{FETCH}` once")
        raise typer.Exit(1)
    print(folder)
    _err(f"{spec}: {model_store.human(model_store.size(folder))} in {folder}")


@model_app.command()
def verify(model: Optional[str] = model_option()) -> None:
    """Check every file of the model (hashes in the cache, sizes and headers anywhere)."""
    from mineru_tui import model_store
    from mineru_tui.model_needed import FETCH

    spec = model_store.model_spec(model)
    folder = model_store.locate(spec)
    if folder is None:
        _err(f"{spec}: not downloaded yet; run `{FETCH}` once")
        raise typer.Exit(1)
    problems = model_store.verify(folder)
    for p in problems:
        _err(f"error: {p}")
    if problems:
        raise typer.Exit(1)
    _err(f"ok: {spec} in {folder}: every file is whole")


def register(app: typer.Typer) -> None:
    """Add ``model`` to the ``mineru-tui`` command."""
    app.add_typer(model_app, name="model")
