"""The Core ML engine: MinerU2.5 through a bundle (``mineru-tui bundle build``) on Apple silicon.

It is the reader's ``Model`` — the same preprocessing, prompt, M-RoPE, sampling knobs, streaming
events, cancel and batch code as the numpy engine — with its two forward passes replaced by the
bundle's (``runtime.py``). Nothing else differs.

**Threads.** coremltools' ``predict`` holds the GIL for the whole prediction (its pybind11
bindings never release it), so a Core ML engine on a background thread would freeze a UI thread
for each vision call (seconds) and each decode step. The engine therefore runs in a **worker
process** by default (:class:`WorkerProcessEngine`): requests go to the worker, events come back
one by one through a queue, ``cancel`` is forwarded between steps. Callers use it like any
engine, from any thread. ``extra=(("process", "0"),)`` runs it in-process (benchmarks, a CLI
that has nothing else to do). Inside the worker one lock serialises predictions, which Apple
requires for predictions sharing an ``MLState``; every sequence has its own state.

Options (``EngineOptions.extra``): ``bundle`` (folder; default the cache folder of the model, or
``$MINERU_TUI_BUNDLE``), ``process`` ("1"/"0"), ``compute_units`` (ALL, CPU_AND_NE, CPU_AND_GPU,
CPU_ONLY), ``backend`` ("coreml"; "evaluator" runs the bundle's program in numpy on any OS — for
tests and ``bundle verify``, far too slow for documents).
"""

from __future__ import annotations

import os
import platform
import queue
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from mineru_tui.engines.base import Engine, EngineError, EngineOptions, Request
from mineru_tui.engines.qwen2vl.engine import HostEngine, model_spec  # light: the model loads when opened
from mineru_tui.engines.events import (
    CancelFlag,
    Event,
)

# Each decode step of a batch is one Core ML prediction per sequence (one state each), so batching
# gains nothing and delays every row's first result: one request at a time by default.
DEFAULT_MAX_BATCH = 1

NOT_HERE = ("the coreml engine needs macOS 15+ on Apple silicon with coremltools; on this machine check a bundle "
            "with `mineru-tui bundle verify BUNDLE --model MODEL` (or use --engine numpy)")


def _extra(options: EngineOptions) -> dict[str, str]:
    return dict(options.extra)


def bundle_dir(options: EngineOptions) -> Path:
    """The bundle the options point at: extra ``bundle``, $MINERU_TUI_BUNDLE, or the model's cache folder."""
    from mineru_tui.engines.bundle_files.locations import default_bundle_dir

    given = _extra(options).get("bundle") or os.environ.get("MINERU_TUI_BUNDLE")
    return Path(given).expanduser() if given else default_bundle_dir(options.model)


def _apple_silicon() -> bool:
    return sys.platform == "darwin" and platform.machine() == "arm64"


def available_for(options: EngineOptions) -> bool:
    """True on macOS arm64 with coremltools' Core ML runtime and a bundle for the model."""
    if not _apple_silicon() or not (bundle_dir(options) / "manifest.json").is_file():
        return False
    try:
        from mineru_tui.engines.coreml.coremltools_import import can_predict
    except ImportError:
        return False
    return can_predict()


# the engine table hands open_engine numpy's vision tower for images past the largest bucket
TAKES_VISION_FALLBACK = True


def open_engine(options: EngineOptions, vision_fallback=None) -> Engine:
    """The Core ML engine for ``options`` (EngineError with one line when it cannot run here)."""
    extra = _extra(options)
    backend = extra.get("backend", "coreml")
    if backend not in ("coreml", "evaluator"):
        raise EngineError(f"coreml engine: unknown backend {backend!r} (coreml or evaluator)")
    if backend == "coreml":
        if not _apple_silicon():
            raise EngineError(NOT_HERE)
        from mineru_tui.engines.coreml.coremltools_import import can_predict

        if not can_predict():
            raise EngineError(NOT_HERE)
    bundle = bundle_dir(options)
    if not (bundle / "manifest.json").is_file():
        raise EngineError(f"no Core ML bundle at {bundle}; build one with `mineru-tui bundle build --model {model_spec(options)}`")
    if extra.get("process", "1") != "0":
        return WorkerProcessEngine(options, vision_fallback)
    return CoreMLEngine(options, vision_fallback)


# ----------------------------------------------------------------------------- in-process engine


class CoreMLEngine(HostEngine):
    """The engine in this process: the numpy engine's request handling (per-request knobs and
    limits, errors per request, event indices) over the host's ``Model`` whose forward passes
    run in the bundle."""

    name = "coreml"

    def __init__(self, options: EngineOptions, vision_fallback=None):
        from mineru_tui.engines.bundle_files.errors import BundleError
        from mineru_tui.engines.coreml.runtime import open_bundle_model
        from mineru_tui.console import one_line
        from mineru_tui.engines.errors import ModelError

        extra = _extra(options)
        spec = model_spec(options)
        try:
            max_batch = int(extra.get("max_batch", DEFAULT_MAX_BATCH))
        except ValueError:
            raise EngineError(f"max_batch must be a whole number, got {extra['max_batch']!r}") from None
        try:
            model = open_bundle_model(bundle_dir(options), spec, backend=extra.get("backend", "coreml"),
                                      compute_units=extra.get("compute_units", "ALL"),
                                      vision_fallback=vision_fallback)
        except (BundleError, ModelError) as e:
            raise EngineError(one_line(str(e))) from None
        super().__init__(model, spec, max_batch)


# ----------------------------------------------------------------------------- worker process


def _worker_main(options: EngineOptions, vision_fallback, jobs, events, cancel_event) -> None:
    """The worker process: open the in-process engine, then serve jobs until told to stop."""
    try:
        engine = CoreMLEngine(options, vision_fallback)
    except EngineError as e:
        events.put(("error", str(e)))
        return
    except Exception as e:  # unexpected: still one line for the parent
        events.put(("error", f"coreml engine failed to start: {type(e).__name__}: {e}"))
        return
    events.put(("ready", None))
    while True:
        job = jobs.get()
        if job is None:
            return
        try:
            for ev in engine.stream(job, cancel=cancel_event):
                events.put(("event", ev))
        except Exception as e:
            events.put(("error", f"coreml engine: {type(e).__name__}: {e}"))
            continue
        events.put(("end", None))


class WorkerProcessEngine:
    """Runs :class:`CoreMLEngine` in a spawned process, so its GIL-holding ``predict`` calls
    never block the caller's threads (a Textual UI, the page pipeline's other work).

    One job at a time (a lock); events arrive as the worker produces them; setting ``cancel``
    is forwarded to the worker within 0.1 s and acted on between model steps.
    """

    name = "coreml"
    continuous_batching = True  # the in-process engine's host loop refills its rows

    def __init__(self, options: EngineOptions, vision_fallback=None, start_timeout: float = 600.0):
        import multiprocessing as mp

        self.model_id = model_spec(options)
        try:
            self.max_batch = int(_extra(options).get("max_batch", DEFAULT_MAX_BATCH))
        except ValueError:
            raise EngineError(f"max_batch must be a whole number, got {_extra(options)['max_batch']!r}") from None
        ctx = mp.get_context("spawn")  # no fork: Core ML / Objective-C state must not be forked
        self._jobs, self._events, self._cancel = ctx.Queue(), ctx.Queue(), ctx.Event()
        self._proc = ctx.Process(target=_worker_main,
                                 args=(options, vision_fallback, self._jobs, self._events, self._cancel),
                                 name="mineru-tui-coreml", daemon=True)
        self._proc.start()
        self._lock = threading.Lock()
        kind, payload = self._get(start_timeout)
        if kind != "ready":
            self.close()
            raise EngineError(payload or "the coreml worker process did not start")

    def _get(self, timeout: float):
        """Next message from the worker; an EngineError when it died."""
        waited = 0.0
        while True:
            try:
                return self._events.get(timeout=0.1)
            except queue.Empty:
                waited += 0.1
                if not self._proc.is_alive():
                    raise EngineError(f"the coreml worker process exited (code {self._proc.exitcode})") from None
                if waited >= timeout:
                    raise EngineError("the coreml worker process does not answer") from None

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        with self._lock:
            self._cancel.clear()
            self._jobs.put(list(requests))
            finished = False
            try:
                while True:
                    try:
                        msg = self._events.get(timeout=0.1)
                    except queue.Empty:
                        if cancel is not None and cancel.is_set():
                            self._cancel.set()
                        if not self._proc.is_alive():
                            raise EngineError(f"the coreml worker process exited (code {self._proc.exitcode})") from None
                        continue
                    if cancel is not None and cancel.is_set():
                        self._cancel.set()
                    kind, payload = msg
                    if kind == "event":
                        yield payload
                    elif kind == "end":
                        finished = True
                        return
                    else:
                        finished = True
                        raise EngineError(payload)
            finally:
                if not finished and self._proc is not None and self._proc.is_alive():
                    # the caller stopped reading: cancel the job and drain it, so the next job
                    # does not receive this one's events
                    self._cancel.set()
                    try:
                        while self._get(600.0)[0] not in ("end", "error"):
                            pass
                    except EngineError:
                        pass

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is None:
            return
        self._proc = None
        if proc.is_alive():
            try:
                self._jobs.put(None)
            except (OSError, ValueError):
                pass
            proc.join(5)
            if proc.is_alive():
                proc.terminate()
                proc.join(5)
