"""Where bundles and compiled models live (no numpy, no coremltools: cheap to import).

    <cache>/bundles/<model>/          a bundle built by `mineru-tui bundle build` without --out
    <cache>/compiled/<package>-<hash>.mlmodelc   Core ML's compiled form, made once per bundle

<cache> is $MINERU_TUI_CACHE, else ~/Library/Caches/mineru-tui on macOS, else
$XDG_CACHE_HOME/mineru-tui (~/.cache/mineru-tui).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

from mineru_tui.engines.defaults import DEFAULT_MODEL, MODEL_ENV


def cache_root() -> Path:
    """$MINERU_TUI_CACHE, else the OS cache folder's mineru-tui."""
    env = os.environ.get("MINERU_TUI_CACHE")
    if env:
        return Path(env).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "mineru-tui"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mineru-tui"


def default_bundle_dir(model: str | os.PathLike[str] | None) -> Path:
    """The bundle folder for ``--model`` (repo id → owner--name; a directory → its name + path hash)."""
    spec = str(model) if model not in (None, "") else os.environ.get(MODEL_ENV) or DEFAULT_MODEL
    path = Path(spec).expanduser()
    if path.is_dir():
        real = str(path.resolve())
        name = f"{path.resolve().name}-{hashlib.sha256(real.encode()).hexdigest()[:8]}"
    else:
        name = spec.replace("/", "--")
    return cache_root() / "bundles" / re.sub(r"[^A-Za-z0-9._-]", "_", name)
