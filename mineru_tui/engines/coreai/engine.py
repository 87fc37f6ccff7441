"""``--engine coreai``: MinerU2.5 through a Core AI bundle (``bundle build --target coreai``).

It is the numpy engine's request handling (per-request knobs and limits, per-request errors,
continuous batching) over a ``Model`` whose forward passes run in ``coreai.runtime``: the OS
framework on macOS 27+, the wheel's local runtime elsewhere (Linux: a reference runtime for
checks and tests — correct, single-threaded, far slower than numpy). The runtime's calls run on
a private event loop and wait without the GIL, so the engine runs in the caller's process.

Options (``EngineOptions.extra``): ``bundle`` (a folder: our bundle or the MinerU2.5-Pro Core AI
port's layout; else $MINERU_TUI_BUNDLE; else the model's cache folder ``<bundles>/<model>.coreai``), ``compute``
(the macOS 27 compute-unit preference: default, gpu, neural-engine, cpu; ``--device GPU|NPU|CPU``
sets it too), ``max_batch``.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from mineru_tui.engines.base import EngineError, EngineOptions
from mineru_tui.engines.qwen2vl.engine import HostEngine, model_spec

# Each decode step is one call per sequence (one state each): batching only delays first results.
DEFAULT_MAX_BATCH = 1
MIN_MACOS = 27


def macos_version() -> tuple[int, int] | None:
    """(major, minor) of macOS, None on another OS."""
    if sys.platform != "darwin":
        return None
    try:
        parts = [int(p) for p in platform.mac_ver()[0].split(".")[:2]]
    except ValueError:
        return None
    return (parts + [0, 0])[0], (parts + [0, 0])[1]


def bundle_dir(options: EngineOptions) -> Path:
    """The bundle the options point at: extra ``bundle`` (``--bundle``), $MINERU_TUI_BUNDLE (how
    ``serve`` is given one), else the model's Core AI cache folder."""
    import os

    given = dict(options.extra).get("bundle") or os.environ.get("MINERU_TUI_BUNDLE")
    if given:
        return Path(given).expanduser()
    from .build import coreai_bundle_dir

    return coreai_bundle_dir(options.model)


def has_bundle(path: Path) -> bool:
    """A Core AI bundle of ours or a folder in the port's layout (cheap: looks at names only)."""
    from .manifest import is_coreai_bundle
    from .port import is_port_layout

    return is_coreai_bundle(path) or is_port_layout(path)


def available_for(options: EngineOptions) -> tuple[bool, str]:
    """(usable, why) for ``--engine auto``: macOS 27+ with coreai-core and a Core AI bundle."""
    from .authoring import installed

    mac = macos_version()
    if mac is None or mac[0] < MIN_MACOS:
        return False, "Core AI needs macOS 27+"
    if not installed():
        return False, "coreai-core is not installed"
    if not has_bundle(bundle_dir(options)):
        return False, f"no Core AI bundle at {bundle_dir(options)}"
    return True, f"macOS {mac[0]} with a Core AI bundle for the model"


class CoreAIEngine(HostEngine):
    """The host's request handling over a Core AI bundle's forward passes."""

    name = "coreai"


# the engine table hands open_engine numpy's vision tower for images past the largest bucket
TAKES_VISION_FALLBACK = True


def open_engine(options: EngineOptions, vision_fallback=None) -> CoreAIEngine:
    """The Core AI engine for ``options`` (EngineError with one line when it cannot run)."""
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.console import one_line
    from mineru_tui.engines.errors import ModelError
    from .authoring import MISSING, installed
    from .runner import PREFERENCES

    if not installed():
        raise EngineError(MISSING + "; or use --engine numpy")
    extra = dict(options.extra)
    # --device (CPU | GPU | NPU, as parse and watch take it) names the preferred compute unit too
    device = {"CPU": "cpu", "GPU": "gpu", "NPU": "neural-engine"}.get(extra.get("device", "").upper().split(".")[0])
    preference = extra.get("compute") or device or "default"
    if preference not in PREFERENCES:
        raise EngineError(f"coreai engine: unknown compute preference {preference!r} ({', '.join(PREFERENCES)})")
    try:
        max_batch = int(extra.get("max_batch", DEFAULT_MAX_BATCH))
    except ValueError:
        raise EngineError(f"max_batch must be a whole number, got {extra['max_batch']!r}") from None
    spec = model_spec(options)
    bundle = bundle_dir(options)
    try:
        from .port import is_port_layout, open_port_model

        if is_port_layout(bundle):
            model = open_port_model(bundle, spec, preference=preference)
        elif not (bundle / "manifest.json").is_file():
            raise EngineError(f"no Core AI bundle at {bundle}; build one with "
                              f"`mineru-tui bundle build --target coreai --model {spec}`")
        else:
            from .model import open_coreai_model

            model = open_coreai_model(bundle, spec, preference=preference, vision_fallback=vision_fallback)
    except (BundleError, ModelError) as e:
        raise EngineError(one_line(str(e))) from None
    return CoreAIEngine(model, spec, max_batch)
