"""Engines that run MinerU2.5 behind one interface (:mod:`mineru_tui.engines.base`).

    from mineru_tui.engines import EngineOptions, open_engine
    engine = open_engine(EngineOptions(engine="numpy", model="path/to/checkpoint"))
    for event in engine.stream([Request(image, prompt, sampling)]):
        ...

Each engine lives in its own module with an ``open_engine(options) -> Engine`` function and is
imported only when chosen, so choosing ``http`` never loads numpy's model code or Core ML.
:class:`LazyEngine` defers opening (loading a model takes seconds) until a page needs it:
``parse`` on Office files never loads a model.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Sequence

from mineru_tui.engines.base import Engine, EngineError, EngineOptions, ImageInput, Request
from mineru_tui.engines.events import CancelFlag, Event

__all__ = ["ENGINES", "Engine", "EngineError", "EngineOptions", "ImageInput", "LazyEngine",
           "Request", "numpy_vision_tower", "open_engine", "reference_model"]

# engine name -> module that provides ``open_engine(options)``
ENGINES: dict[str, str] = {
    "numpy": "mineru_tui.engines.numpy.engine",
    "coreml": "mineru_tui.engines.coreml.engine",
    "coreai": "mineru_tui.engines.coreai.engine",
    "openvino": "mineru_tui.engines.openvino.engine",
    "http": "mineru_tui.engines.http",
    "llama-cpp": "mineru_tui.engines.llama_cpp",
}


def resolve_engine_name(options: EngineOptions) -> str:
    """The concrete engine ``auto`` stands for on this machine (see :func:`auto_choice`)."""
    if options.engine != "auto":
        return options.engine
    return auto_choice(options)[0]


def auto_choice(options: EngineOptions) -> tuple[str, str]:
    """(engine, why) for ``--engine auto``: servers when given; Core AI on macOS 27+ with a Core AI
    bundle; Core ML on a Mac with a bundle for the model; else OpenVINO where it is installed;
    else numpy. Imports no engine."""
    if options.server_urls:
        return "http", "--server-url given"
    from mineru_tui.engines.coreai.engine import available_for as coreai_ready

    ready, why_not_coreai = coreai_ready(options)
    if ready:
        return "coreai", why_not_coreai
    try:  # Core ML on Apple silicon when a bundle for the model exists
        from mineru_tui.engines.coreml.engine import available_for  # type: ignore[import-not-found]
    except ImportError:
        available_for = None
    if available_for is not None and available_for(options):
        return "coreml", "Apple silicon with a Core ML bundle for the model"
    from mineru_tui.engines.openvino.engine import installed

    if installed():
        return "openvino", f"OpenVINO is installed (runs on this CPU; no Core ML bundle here; {why_not_coreai})"
    return "numpy", f"no Core ML bundle and no OpenVINO installed ({why_not_coreai})"


def open_engine(options: EngineOptions) -> Engine:
    """Open the engine the options name (EngineError with one line when it cannot run)."""
    name = resolve_engine_name(options)
    module_name = ENGINES.get(name)
    if module_name is None:
        raise EngineError(f"unknown engine {name!r} (choose from auto, {', '.join(ENGINES)})")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise EngineError(f"the {name} engine is not available in this installation ({e})") from None
    if getattr(module, "TAKES_VISION_FALLBACK", False):
        return module.open_engine(options, vision_fallback=numpy_vision_tower)
    return module.open_engine(options)


def numpy_vision_tower(checkpoint):
    """numpy's vision tower for ``checkpoint``: what a compiled bundle (Core ML, Core AI) runs for
    an image larger than its largest vision bucket. The registry hands it to those engines, so
    nothing but this table imports the numpy forward pass."""
    from mineru_tui.engines.numpy.vision import VisionTower

    return VisionTower(checkpoint.weights, checkpoint.config.vision)


def reference_model(model: str | None = None):
    """The numpy engine's model (the exact reference; ``None``: the default checkpoint), for
    ``bundle verify``, which compares a compiled bundle with it step by step."""
    from mineru_tui.engines.numpy import load_model

    return load_model(model) if model else load_model()


class LazyEngine:
    """An :class:`Engine` that opens the real one on first use (thread-safe), then delegates.

    Every attribute of the interface is forwarded: ``name`` and ``model_id`` without opening
    (they are known from the options), ``max_batch`` and ``continuous_batching`` from the opened
    engine (the page reader asks for them just before its first call, so a page's blocks reach a
    refilling engine in one stream). ``announce``, when given, receives one line saying which
    engine ``auto`` picked and why, just before it opens (``parse -v``): only runs that need the
    model print it. ``open_error`` keeps why the last attempt to open failed (no model, no server),
    so a caller can tell "model needed" from a broken file (``watch``); None once it opened.
    """

    def __init__(self, options: EngineOptions, announce: Callable[[str], None] | None = None):
        self.options = options
        self.announce = announce
        self.open_error: str | None = None
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    @property
    def opened(self) -> bool:
        return self._engine is not None

    def get(self) -> Engine:
        with self._lock:
            if self._engine is None:
                if self.announce is not None and self.options.engine == "auto":
                    name, why = auto_choice(self.options)
                    self.announce(f"engine: auto picked {name} ({why})")
                try:
                    self._engine = open_engine(self.options)
                except Exception as e:
                    self.open_error = str(e) or type(e).__name__
                    raise
            self.open_error = None
            return self._engine

    @property
    def name(self) -> str:
        return self._engine.name if self._engine else resolve_engine_name(self.options)

    @property
    def model_id(self) -> str:
        return self._engine.model_id if self._engine else (self.options.model or "")

    @property
    def max_batch(self) -> int:
        return self.get().max_batch

    @property
    def continuous_batching(self) -> bool:
        return bool(getattr(self.get(), "continuous_batching", False))

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        return self.get().stream(requests, cancel=cancel)

    def close(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
