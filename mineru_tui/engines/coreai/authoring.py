"""``coreai-core`` imported on demand, with one line saying how to get it when it is missing.

The package is an optional extra (``pip install 'mineru-tui[coreai]'``), pinned because the
KV-cache states use ``coreai._compiler`` builders that carry no stability guarantee.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from mineru_tui.engines.bundle_files.errors import BundleError

PINNED = "1.0.0b3"
MISSING = ("Core AI needs the coreai-core package (pip install 'mineru-tui[coreai]', "
           f"i.e. coreai-core=={PINNED}; Linux x86-64 and macOS wheels)")


def _find():
    """The ``coreai`` package's spec, looking past a module file named ``coreai.py`` that hides it
    (``bench/coreai.py``: a script run from ``bench/`` has that folder first on ``sys.path``)."""
    try:
        spec = importlib.util.find_spec("coreai")
        if spec is not None and spec.submodule_search_locations is None and spec.origin and "coreai" not in sys.modules:
            shadow = Path(spec.origin).resolve().parent
            sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != shadow]
            importlib.invalidate_caches()
            spec = importlib.util.find_spec("coreai")
        return spec if spec is not None and spec.submodule_search_locations is not None else None
    except (ImportError, ValueError):
        return None


def installed() -> bool:
    """True when the ``coreai`` package can be imported (without importing it: the runtime is 75 MB)."""
    return _find() is not None


def authoring():
    """``coreai.authoring`` (imported before ``coreai._compiler``: the reverse order is a circular
    import inside the wheel)."""
    if not installed():
        raise BundleError(MISSING)
    import coreai.authoring as ca

    return ca


def runtime():
    """``coreai.runtime`` (the local runtime on Linux, the OS framework on macOS 27)."""
    if not installed():
        raise BundleError(MISSING)
    import coreai.runtime as rt

    return rt


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("coreai-core")
    except PackageNotFoundError:
        return "unknown"
