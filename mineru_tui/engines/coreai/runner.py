"""Run the functions of a Core AI asset (``.aimodel``) with ``coreai.runtime``.

:class:`CoreAIRunner` is a *runner* in the sense of ``engines/coreml/runtime.py`` (``predict(function,
feeds, state)`` / ``new_state()``), so ``BundleVision`` and ``BundleTextForward`` — the Core ML
bundle's host side — drive a Core AI bundle unchanged.

* **Where it runs.** On macOS 27 a wheel install backs ``coreai.runtime`` with the OS framework:
  the asset is loaded (and specialised, cached by the OS) as it is, with an optional compute-unit
  preference. Elsewhere (Linux) the wheel's local runtime needs the program lowered to ODIX
  first; that is done once per asset and kept in ``<cache>/coreai/<asset>-<key>.aimodelx``, keyed
  by the asset's program hash and the coreai-core version, so later loads are instant.
* **Async.** The runtime's calls are coroutines; they run on one private event loop in a daemon
  thread, so callers (the page pipeline's threads, the watch app) stay synchronous and the
  caller's own asyncio loop, if any, is never touched.
* **Stderr.** The runtime prints ``ODIE [default]: Loading function …`` on file descriptor 2 for
  every function it loads; loads happen at open, with fd 2 pointed at /dev/null meanwhile, so
  the chatter never reaches the app's screen.
* **States** come from the function descriptors (names, shapes, dtypes): zeroed arrays the
  caller owns, updated in place by every call that is passed them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.locations import cache_root
from .authoring import runtime, version
from .vision import bucket_of, function_name

PREFERENCES = ("default", "gpu", "neural-engine", "cpu")


# ----------------------------------------------------------------------------- private loop


class _Loop:
    """One asyncio loop on a daemon thread for every runner of the process."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def run(cls, coro):
        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="mineru-tui-coreai", daemon=True).start()
                cls._loop = loop
        return asyncio.run_coroutine_threadsafe(coro, cls._loop).result()


_stderr_lock = threading.Lock()


@contextlib.contextmanager
def quiet_stderr():
    """File descriptor 2 pointed at /dev/null for the block (the runtime's native prints)."""
    with _stderr_lock:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):  # no fd 2 at all: nothing to hide
            yield
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.close(devnull)


# ----------------------------------------------------------------------------- ODIX cache


def os_framework() -> bool:
    """True when ``coreai.runtime`` is backed by the OS framework (macOS 27 with a wheel install)."""
    return bool(getattr(runtime(), "_use_os_coreai", False))


def odix_dir(asset: Path) -> Path:
    """The cache folder of an asset's ODIX: keyed by its program hash and the coreai-core version,
    so a rebuilt asset gets a new one and an unchanged one is never lowered again."""
    asset = Path(asset)
    try:
        program = (asset / "main.hash").read_bytes()
    except OSError:
        raise BundleError(f"{asset}: not a Core AI asset (no main.hash); rebuild the bundle") from None
    key = hashlib.sha256(program + version().encode()).hexdigest()[:16]
    return cache_root() / "coreai" / f"{asset.stem}-{key}.aimodelx"


_LOWER = """
import sys
from pathlib import Path
from coreai.authoring import AIModelAsset
AIModelAsset.load(sys.argv[1])._write_odix(Path(sys.argv[2]))
"""


def ensure_odix(asset: Path) -> Path:
    """The asset lowered to ODIX (the local runtime's loadable form), made once and cached.

    The lowering runs in a child process: the compiler aborts the whole process on a damaged
    program (a tampered ``main.mlirb``), which must end as one line, not kill the app."""
    import subprocess

    target = odix_dir(asset)
    if (target / "main-universal.odix").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        r = subprocess.run([sys.executable, "-P", "-c", _LOWER, str(asset), str(tmp)], capture_output=True, text=True)
        if r.returncode != 0 or not (tmp / "main-universal.odix").is_file():
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            why = lines[-1].strip()[:160] if lines else f"exit code {r.returncode}"
            raise BundleError(f"{asset}: the Core AI program cannot be compiled ({why}); rebuild the bundle")
        try:
            os.replace(tmp, target)
        except OSError:  # another process made it meanwhile
            if not (target / "main-universal.odix").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _options(preference: str):
    """SpecializationOptions for a compute-unit preference (macOS framework only; None = default)."""
    if preference == "default" or not os_framework():
        return None
    from coreai.runtime import ComputeUnitKind, SpecializationOptions

    if preference == "cpu":
        return SpecializationOptions.cpu_only()
    kind = ComputeUnitKind.gpu() if preference == "gpu" else ComputeUnitKind.neural_engine()
    return SpecializationOptions.from_preferred_compute_unit_kind(kind)


def _np_dtype(name: str):
    if name in ("bfloat16", "bf16"):
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


# ----------------------------------------------------------------------------- runner


class CoreAIRunner:
    """Functions of one asset, loaded once; ``predict`` calls them (thread-safe, one at a time).

    Two conveniences keep every function static-shaped: ``predict("main", …)`` of a vision
    asset goes to the bucket function its rows fit (``main_n<N>``), and ``predict("embed", …)``
    of any length is split into (padded) calls of the embed function's fixed width.
    """

    def __init__(self, asset: Path, functions: Sequence[str] | None = None, *, preference: str = "default"):
        rt = runtime()
        asset = Path(asset)
        if preference not in PREFERENCES:
            raise BundleError(f"coreai: unknown compute preference {preference!r} ({', '.join(PREFERENCES)})")
        path = asset if os_framework() else ensure_odix(asset)
        opts = _options(preference)

        async def load():
            model = await rt.AIModel.load(path, opts) if opts is not None else await rt.AIModel.load(path)
            names = list(functions) if functions is not None else list(model.function_names)
            loaded = {}
            have = set(model.function_names)
            for n in names:
                fn = model.load_function(n) if n in have else None
                if fn is None:
                    raise BundleError(f"{asset}: no function {n!r} in the asset (it has {', '.join(sorted(have))})")
                loaded[n] = fn
            return model, loaded

        with quiet_stderr():
            self.model, self.functions = _Loop.run(load())
        self.asset = asset
        self.desc = {n: f.desc for n, f in self.functions.items()}
        self._lock = threading.Lock()

    # -------------------------------------------------------------- calls

    def _call(self, function: str, feeds: Mapping[str, np.ndarray], state=None) -> dict[str, np.ndarray]:
        from coreai.runtime import NDArray

        fn = self.functions.get(function)
        if fn is None:
            raise BundleError(f"{self.asset}: no function {function!r}")
        desc = self.desc[function]
        inputs = {}
        for name in desc.input_names:
            if name not in feeds:
                raise BundleError(f"{self.asset}: {function} needs input {name!r}")
            want = _np_dtype(desc.input_descriptor(name).dtype)
            inputs[name] = NDArray(np.ascontiguousarray(np.asarray(feeds[name]).astype(want, copy=False)))
        with self._lock:
            if state:
                out = _Loop.run(fn(inputs, state=state))
            else:
                out = _Loop.run(fn(inputs))
        return {k: np.asarray(v.numpy()) for k, v in out.items()}

    def predict(self, function: str, feeds: Mapping[str, np.ndarray], state=None) -> dict[str, np.ndarray]:
        """Run ``function`` on ``feeds`` (numpy arrays; cast to the declared dtypes)."""
        if function == "main" and "main" not in self.functions:
            rows = int(np.asarray(feeds["pixel_values"]).shape[0])
            function = function_name(rows)
            if function not in self.functions:
                raise BundleError(f"{self.asset}: no vision function for {rows} patches "
                                  f"(buckets {sorted(self.buckets)})")
        if function == "embed":
            return {"embeds": self._embed(np.asarray(feeds["input_ids"], np.int32))}
        return self._call(function, feeds, state)

    def _embed(self, ids_1S: np.ndarray) -> np.ndarray:
        width = int(self.desc["embed"].input_descriptor("input_ids").shape[1])
        n = ids_1S.shape[1]
        padded = np.zeros((1, -(-n // width) * width), np.int32)
        padded[:, :n] = ids_1S
        parts = [self._call("embed", {"input_ids": padded[:, a:a + width]})["embeds"]
                 for a in range(0, padded.shape[1], width)]
        return np.concatenate(parts, axis=1)[:, :n].astype(np.float32)

    @property
    def buckets(self) -> list[int]:
        return sorted(b for b in (bucket_of(n) for n in self.functions) if b is not None)

    def new_state(self, function: str | None = None):
        """Zeroed state arrays for ``function`` (default: the first stateful one), as the runtime's
        arrays, updated in place by the calls they are passed to."""
        from coreai.runtime import NDArray

        for name, desc in self.desc.items():
            if (function is None or name == function) and desc.state_names:
                out = {}
                for s in desc.state_names:
                    d = desc.state_descriptor(s)
                    if any(v is None or v < 0 for v in d.shape):
                        raise BundleError(f"{self.asset}: state {s!r} of {name} has no fixed shape; pass one")
                    out[s] = NDArray(np.zeros(tuple(int(v) for v in d.shape), _np_dtype(d.dtype)))
                return out
        raise BundleError(f"{self.asset}: the asset has no stateful function")
