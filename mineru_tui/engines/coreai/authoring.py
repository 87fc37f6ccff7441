"""``coreai-core`` imported on demand, with one line saying how to get it when it is missing.

The package is an optional extra (``pip install 'mineru-tui[coreai]'``), pinned because the
KV-cache states use ``coreai._compiler`` builders that carry no stability guarantee.
"""

from __future__ import annotations

import importlib.util

from mineru_tui.engines.bundle_files.errors import BundleError

PINNED = "1.0.0b3"
MISSING = ("Core AI needs the coreai-core package (pip install 'mineru-tui[coreai]', "
           f"i.e. coreai-core=={PINNED}; Linux x86-64 and macOS wheels)")


def installed() -> bool:
    """True when ``coreai`` can be imported (without importing it: the runtime is 75 MB)."""
    try:
        return importlib.util.find_spec("coreai") is not None
    except (ImportError, ValueError):
        return False


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
