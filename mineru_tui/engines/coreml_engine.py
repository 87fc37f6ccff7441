"""The Core ML engine: MinerU2.5 through a bundle (``mineru-tui bundle build``) on Apple silicon.

It is the reader's ``Model`` — the same preprocessing, prompt, M-RoPE, sampling knobs, streaming
events, cancel and batch code as the numpy engine — with its two forward passes replaced by the
bundle's (``bundles/runtime.py``). Nothing else differs.

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
from mineru_tui.reader.events import (
    CancelFlag,
    Done,
    Event,
    GenerationResult,
    SequenceDone,
    StageEvent,
    Timing,
    TokenEvent,
)

NOT_HERE = ("the coreml engine needs macOS 15+ on Apple silicon with coremltools; on this machine check a bundle "
            "with `mineru-tui bundle verify BUNDLE --model MODEL` (or use --engine numpy)")


def _extra(options: EngineOptions) -> dict[str, str]:
    return dict(options.extra)


def bundle_dir(options: EngineOptions) -> Path:
    """The bundle the options point at: extra ``bundle``, $MINERU_TUI_BUNDLE, or the model's cache folder."""
    from mineru_tui.bundles.locations import default_bundle_dir

    given = _extra(options).get("bundle") or os.environ.get("MINERU_TUI_BUNDLE")
    return Path(given).expanduser() if given else default_bundle_dir(options.model)


def _apple_silicon() -> bool:
    return sys.platform == "darwin" and platform.machine() == "arm64"


def available_for(options: EngineOptions) -> bool:
    """True on macOS arm64 with coremltools' Core ML runtime and a bundle for the model."""
    if not _apple_silicon() or not (bundle_dir(options) / "manifest.json").is_file():
        return False
    try:
        from mineru_tui.bundles.coremltools_import import can_predict
    except ImportError:
        return False
    return can_predict()


def open_engine(options: EngineOptions) -> Engine:
    """The Core ML engine for ``options`` (EngineError with one line when it cannot run here)."""
    extra = _extra(options)
    backend = extra.get("backend", "coreml")
    if backend not in ("coreml", "evaluator"):
        raise EngineError(f"coreml engine: unknown backend {backend!r} (coreml or evaluator)")
    if backend == "coreml":
        if not _apple_silicon():
            raise EngineError(NOT_HERE)
        from mineru_tui.bundles.coremltools_import import can_predict

        if not can_predict():
            raise EngineError(NOT_HERE)
    bundle = bundle_dir(options)
    if not (bundle / "manifest.json").is_file():
        model = options.model or os.environ.get("MINERU_TUI_MODEL") or "the default model"
        raise EngineError(f"no Core ML bundle at {bundle}; build one with `mineru-tui bundle build --model {model}`")
    if extra.get("process", "1") != "0":
        return WorkerProcessEngine(options)
    return CoreMLEngine(options)


# ----------------------------------------------------------------------------- in-process engine


def _add_timing(total: Timing, t: Timing) -> None:
    for name in ("preprocess_s", "vision_s", "vision_tokens", "prefill_s", "prefill_tokens", "decode_s",
                 "decode_tokens", "decode_steps", "total_s"):
        setattr(total, name, getattr(total, name) + getattr(t, name))
    if not total.first_token_s:
        total.first_token_s = t.first_token_s


class CoreMLEngine:
    """The engine in this process: a ``reader.Model`` over the bundle's forward passes."""

    name = "coreml"
    max_batch = 1  # one state per sequence and no batched kernels: requests run one after another

    def __init__(self, options: EngineOptions):
        from mineru_tui.bundles.errors import BundleError
        from mineru_tui.bundles.runtime import open_bundle_model
        from mineru_tui.reader.errors import ModelError

        extra = _extra(options)
        self.model_id = options.model or os.environ.get("MINERU_TUI_MODEL") or "opendatalab/MinerU2.5-Pro-2605-1.2B"
        try:
            self.model = open_bundle_model(bundle_dir(options), self.model_id, backend=extra.get("backend", "coreml"),
                                           compute_units=extra.get("compute_units", "ALL"))
        except (BundleError, ModelError) as e:
            raise EngineError(str(e)) from None

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        """Each request in turn through the host loop; events re-indexed to the request list."""
        from mineru_tui.bundles.errors import BundleError
        from mineru_tui.reader.errors import ImageError, PromptError

        results: list[GenerationResult] = []
        total = Timing()
        for i, req in enumerate(requests):
            if cancel is not None and cancel.is_set():
                res = GenerationResult([], "", "cancelled", Timing())
                results.append(res)
                yield SequenceDone(i, res)
                continue
            s = req.sampling
            try:
                for ev in self.model.stream(req.image, req.prompt, max_new_tokens=req.max_new_tokens,
                                            no_repeat_ngram_size=s.no_repeat_ngram_size,
                                            presence_penalty=s.presence_penalty,
                                            frequency_penalty=s.frequency_penalty,
                                            repetition_penalty=s.repetition_penalty, cancel=cancel):
                    if isinstance(ev, TokenEvent):
                        yield TokenEvent(i, ev.token_id, ev.text_delta, ev.n_generated, ev.elapsed)
                    elif isinstance(ev, SequenceDone):
                        results.append(ev.result)
                        yield SequenceDone(i, ev.result)
                    elif isinstance(ev, Done):
                        _add_timing(total, ev.timings)
                    elif isinstance(ev, StageEvent):
                        yield ev
            except (ImageError, PromptError, BundleError, ValueError) as e:
                res = GenerationResult([], "", "error", Timing(), error=str(e))
                results.append(res)
                yield SequenceDone(i, res)
        yield Done(results, total)

    def close(self) -> None:
        self.model = None


# ----------------------------------------------------------------------------- worker process


def _worker_main(options: EngineOptions, jobs, events, cancel_event) -> None:
    """The worker process: open the in-process engine, then serve jobs until told to stop."""
    try:
        engine = CoreMLEngine(options)
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
    max_batch = CoreMLEngine.max_batch

    def __init__(self, options: EngineOptions, start_timeout: float = 600.0):
        import multiprocessing as mp

        self.model_id = options.model or os.environ.get("MINERU_TUI_MODEL") or "opendatalab/MinerU2.5-Pro-2605-1.2B"
        ctx = mp.get_context("spawn")  # no fork: Core ML / Objective-C state must not be forked
        self._jobs, self._events, self._cancel = ctx.Queue(), ctx.Queue(), ctx.Event()
        self._proc = ctx.Process(target=_worker_main, args=(options, self._jobs, self._events, self._cancel),
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
