"""The way forward when a page file needs the model and it is not here.

A newcomer's first PDF should not end on a connection error. When a PDF or image cannot be
read because no model could be opened, ``parse`` and the watcher say, in one line, what the
model is, how big, how to get it once (``mineru-tui model fetch``) and — only when the PDF has
a usable text layer, which is known without the model — that ``--effort low`` reads its own
text now::

    scan.pdf: needs the MinerU2.5 model (2.3 GB, not downloaded yet): run
    `mineru-tui model fetch` once, or read this PDF's own text now with `--effort low`

:func:`reason_and_hint` gives the two halves (the watcher shows them apart: the reason on the
file's row, the hint in its pane); the long technical cause stays for ``-v``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mineru_tui.engines.defaults import DEFAULT_MODEL
from mineru_tui.model_store import locate, model_spec

MODEL_NAME = "MinerU2.5"
MODEL_SIZE = "2.3 GB"  # the checkpoint's files (1.2 B parameters in bfloat16), as downloaded
FETCH = "mineru-tui model fetch"
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
SERVER_HINT = "check that the server answers (--server-url), then read the file again"


def is_cached(model: str | None = None) -> bool:
    """Whether the model is on this machine (never touches the network)."""
    return locate(model) is not None


def text_layer_usable(path: str | os.PathLike[str]) -> bool:
    """Whether a PDF's own text can be read without the model (MinerU's ``txt`` class over
    its sampled pages). False for anything else, or a PDF that cannot be opened. Opens the
    PDF: call it from the thread that owns PDFium in this process."""
    try:
        from mineru_tui.pdf import open_pdf
        from mineru_tui.pdf.classify import classify_document

        with open_pdf(Path(path)) as doc:
            return classify_document(doc).kind == "txt"
    except Exception:  # not a PDF, encrypted, broken: effort low would not help either
        return False


def reason_and_hint(reason: str, *, kind: str, text_layer: bool, server: bool = False,
                    model: str | None = None) -> tuple[str, str]:
    """(reason, what to do) for a file that needs the model. ``reason`` is the engine's own
    line, kept when it says something the user must fix (a wrong ``--model DIR``, a server
    that does not answer); when the model is simply not downloaded it becomes one short
    sentence with its size."""
    low = (" or read this PDF's own text now with `--effort low`"
           if kind == "pdf" and text_layer else "")
    if server:
        return reason, SERVER_HINT + ("," + low if low else "")
    spec = model_spec(model)
    if not _REPO_ID.match(spec) or Path(spec).expanduser().exists():  # a folder was named
        return reason, (f"pass --model with the model's folder, or run `{FETCH}` once"
                        + ("," + low if low else ""))
    if is_cached(spec):  # there, yet it does not open: damaged or incomplete
        return reason, f"run `{FETCH}` to repair it" + ("," + low if low else "")
    if spec == DEFAULT_MODEL:
        what, fetch = f"the {MODEL_NAME} model ({MODEL_SIZE}, not downloaded yet)", FETCH
    else:  # another repo id: its size is not known here, and fetch must be told which
        what, fetch = f"the model {spec} (not downloaded yet)", f"{FETCH} --model {spec}"
    return f"needs {what}", f"run `{fetch}` once" + ("," + low if low else "")
