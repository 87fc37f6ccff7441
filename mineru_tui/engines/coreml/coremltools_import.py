"""Import coremltools quietly, and say in one line when it is missing.

On Linux coremltools logs eight "Failed to load _MLModelProxy ..." warnings at import (its Core
ML runtime bridge exists only on macOS) and its converter draws tqdm progress bars for every
pass; neither belongs in our stderr. Everything in :mod:`mineru_tui.engines.coreml` gets coremltools
through :func:`coremltools`.
"""

from __future__ import annotations

import logging
import os
import sys
from types import ModuleType

from mineru_tui.engines.bundle_files.errors import BundleError


def coremltools() -> ModuleType:
    """The ``coremltools`` module (BundleError naming the extra to install when absent)."""
    if "coremltools" in sys.modules:
        return sys.modules["coremltools"]
    os.environ.setdefault("TQDM_DISABLE", "1")  # the converter's per-pass progress bars
    log = logging.getLogger("coremltools")
    level = log.level
    log.setLevel(logging.ERROR)  # the macOS-only runtime proxies warn at import on Linux
    try:
        import coremltools as ct
    except ImportError as e:
        raise BundleError(f"coremltools is not installed ({e}); install mineru-tui[coreml]") from None
    finally:
        log.setLevel(level)
    return ct


def can_predict() -> bool:
    """True where coremltools can run Core ML predictions (macOS with its native bridge)."""
    if sys.platform != "darwin":
        return False
    try:
        coremltools()
        from coremltools import libcoremlpython  # noqa: F401  (the runtime bridge)
    except Exception:
        return False
    return True
