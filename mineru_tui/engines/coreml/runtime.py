"""Run a bundle: the two forward passes the reader's host side needs, backed by Core ML or the
numpy evaluator.

    model = open_bundle_model(bundle_dir, "path/or/repo")   # the host's Model (engines/qwen2vl/)
    model.generate(image, "\\nText Recognition:")

:class:`BundleVision` is a ``VisionTower``-like callable, :class:`BundleTextForward` a
``TextForward`` (``engines/qwen2vl/kv_cache.py``); the host's ``Model(checkpoint, tokenizer, vision=, text=)``
does preprocessing, prompt, M-RoPE, masks, sampling, streaming, cancel and batching exactly as
for the numpy engine. Only the forward passes run in the bundle.

A *runner* executes one package's functions: :class:`CoreMLRunner` (macOS 15+, the compiled
model cached at a fixed place, compiled once) or :class:`EvaluatorRunner` (any OS, the MIL
program evaluated with coremltools' op implementations — slow, for verification).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from mineru_tui.engines.qwen2vl.config import TextConfig, VisionConfig
from mineru_tui.engines.qwen2vl.kv_cache import LogitsWhich
from mineru_tui.engines.qwen2vl.preprocess import each_image
from mineru_tui.engines.qwen2vl.rope import vision_cos_sin
from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.locations import cache_root
from mineru_tui.engines.bundle_files.manifest import Manifest, check_bundle
from .mil_text import STATE_NAMES
from .mil_vision import PAD_MASK

MASK_MIN = np.float32(-1e4)  # −inf in the host's masks becomes this (finite fp16 arithmetic)


class Runner(Protocol):
    """Executes the functions of one package."""

    def predict(self, function: str, feeds: Mapping[str, np.ndarray], state=None) -> dict[str, np.ndarray]: ...

    def new_state(self): ...


# ----------------------------------------------------------------------------- runners


class EvaluatorRunner:
    """Functions of a saved package evaluated in numpy (``evaluate.ProgramEvaluator``)."""

    def __init__(self, package: Path):
        from .evaluate import ProgramEvaluator, load_package_program

        self.evaluator = ProgramEvaluator(load_package_program(package))
        self._lock = threading.Lock()  # the evaluator swaps attributes of shared Vars while it runs

    def predict(self, function, feeds, state=None):
        with self._lock:
            return self.evaluator.run(function, feeds, state)

    def new_state(self):
        """Zeroed fp16 arrays for the states of the package's (first stateful) function."""
        from coremltools.converters.mil.mil import types

        for func in self.evaluator.program.functions.values():
            states = {n: v for n, v in func.inputs.items() if types.is_state(v.sym_type)}
            if states:
                return {n: np.zeros(v.sym_type.wrapped_type().get_shape(),
                                    types.nptype_from_builtin(v.sym_type.wrapped_type().get_primitive()))
                        for n, v in states.items()}
        raise BundleError("the package has no stateful function")


def compiled_path(bundle: Path, manifest: Manifest, package: str) -> Path:
    """The fixed place of a package's compiled ``.mlmodelc``: keyed by the package's checksums,
    so a rebuilt bundle gets a new compilation and an unchanged one is never compiled again."""
    h = hashlib.sha256()
    for rel, (size, digest) in sorted(manifest.files.items()):
        if rel.startswith(package + "/"):
            h.update(f"{rel}|{size}|{digest}".encode())
    return cache_root() / "compiled" / f"{Path(package).stem}-{h.hexdigest()[:16]}.mlmodelc"


class CoreMLRunner:
    """Core ML predictions (macOS 15+): ``CompiledMLModel`` per function, compiled once.

    ``predict`` holds the GIL for the whole prediction (coremltools' bindings never release it),
    so the engine runs this in a worker process (``engine.py``). Predictions that
    share an ``MLState`` must not overlap (Apple's ``MLState`` contract): a lock serialises them.
    """

    def __init__(self, bundle: Path, manifest: Manifest, package: str, functions: Sequence[str],
                 compute_units: str = "ALL"):
        from .coremltools_import import coremltools

        ct = coremltools()
        target = compiled_path(bundle, manifest, package)
        if not target.exists():
            check_bundle(bundle, full=True)  # checksums before the one-time compilation
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f"{target.stem}.tmp{os.getpid()}.mlmodelc")  # compile_model wants .mlmodelc
            shutil.rmtree(tmp, ignore_errors=True)
            ct.models.utils.compile_model(str(bundle / package), str(tmp))
            try:
                os.replace(tmp, target)
            except OSError:  # another process compiled it meanwhile
                if not target.exists():
                    raise
                shutil.rmtree(tmp, ignore_errors=True)
        units = getattr(ct.ComputeUnit, compute_units)
        self.models = {f: ct.models.CompiledMLModel(str(target), units, function_name=f) for f in functions}
        self._stateful = next((m for f, m in self.models.items() if f == "decode"), None)
        self._lock = threading.Lock()

    def predict(self, function, feeds, state=None):
        with self._lock:
            if state is None:
                return self.models[function].predict(dict(feeds))
            return self.models[function].predict(dict(feeds), state=state)

    def new_state(self):
        """A zeroed KV-cache state, shared by the prefill and decode functions of one sequence."""
        if self._stateful is None:
            raise BundleError("the package has no stateful function")
        return self._stateful.make_state()


# ----------------------------------------------------------------------------- vision


class BundleVision:
    """``VisionTower``-compatible: ``(pixel_values [N,1176], grid_thws, check=None) → embeds``.

    Each image runs alone in the smallest bucket that holds it (padded rows zero, masked out of
    attention by ``key_mask``, their outputs dropped). An image larger than the largest bucket
    goes to ``fallback`` (the numpy tower) when given, else BundleError.
    """

    def __init__(self, runner: Runner, manifest: Manifest, cfg: VisionConfig, fallback: Callable | None = None):
        self.runner = runner
        self.cfg = cfg  # the host reads cfg.spatial_merge_size
        self.buckets = sorted(manifest.buckets)
        self.fallback = fallback
        self.fallback_images = 0

    def bucket_for(self, n: int) -> int | None:
        return next((b for b in self.buckets if b >= n), None)

    def __call__(self, pixel_values_NK: np.ndarray, grid_thws, check: Callable[[], None] | None = None,
                 capture=None) -> np.ndarray:
        m2 = self.cfg.spatial_merge_size**2
        out = []
        for (t, h, w), px in each_image(pixel_values_NK, grid_thws, check):
            n = len(px)
            size = self.bucket_for(n)
            if size is None:
                if self.fallback is None:
                    raise BundleError(f"an image of {n} patches is larger than the bundle's largest vision bucket "
                                      f"({self.buckets[-1]}); rebuild with a larger --buckets size")
                self.fallback_images += 1
                out.append(self.fallback(px, [(t, h, w)], check=check))
                continue
            cos, sin = vision_cos_sin([(t, h, w)], self.cfg.head_dim, self.cfg.rope_theta, self.cfg.spatial_merge_size)
            pad = size - n
            feeds = {
                "pixel_values": np.concatenate([px, np.zeros((pad, px.shape[1]), np.float32)]),
                "cos": np.concatenate([cos, np.ones((pad, cos.shape[1]), np.float32)]),
                "sin": np.concatenate([sin, np.zeros((pad, sin.shape[1]), np.float32)]),
                "key_mask": np.where(np.arange(size) < n, np.float32(0), np.float32(PAD_MASK))[None].astype(np.float32),
            }
            emb = np.asarray(self.runner.predict("main", feeds)["image_embeds"], np.float32)
            out.append(emb[: n // m2])
        return np.concatenate(out, axis=0)


# ----------------------------------------------------------------------------- text


class StateCache:
    """The KV cache of a batch as one Core ML state per sequence (``KVCache``'s host interface).

    ``row(b)``, ``rows(n)`` and ``select(rows)`` hand out the same state objects (no copy: a state
    lives in the runtime); the cache never grows and never moves (``max_context`` bounds
    generation; the host loop lets a row join a running batch only where it fits).
    """

    def __init__(self, states: list, ctx: int):
        self.states = states
        self._ctx = ctx

    @property
    def batch(self) -> int:
        return len(self.states)

    @property
    def ctx(self) -> int:
        return self._ctx

    def row(self, b: int) -> StateCache:
        return StateCache([self.states[b]], self._ctx)

    def rows(self, n: int) -> StateCache:
        return StateCache(self.states[:n], self._ctx)

    def move_row(self, src: int, dst: int) -> None:
        """Row ``dst`` takes row ``src``'s state; ``src`` gets the old one (free, overwritten by
        the next prefill). A swap, not a copy: the two rows must never share a state."""
        self.states[dst], self.states[src] = self.states[src], self.states[dst]

    def select(self, rows) -> StateCache:
        return StateCache([self.states[int(r)] for r in rows], self._ctx)

    def grown(self, ctx: int) -> StateCache:
        if ctx > self._ctx:
            raise BundleError(f"the bundle's KV cache has {self._ctx} slots; it cannot grow to {ctx}")
        return self


class BundleTextForward:
    """``TextForward`` over the decoder package: ``prefill`` for chunks, ``decode`` per token and
    sequence, ``embed`` for token embeddings. ``fixed_chunk`` / ``max_context`` tell the host loop
    the shapes are fixed (it pads the last prompt chunk and stops at the cache's end)."""

    def __init__(self, runner: Runner, manifest: Manifest, cfg: TextConfig):
        self.runner = runner
        self.config = cfg
        self.fixed_chunk = manifest.prefill_chunk
        self.max_context = manifest.context

    def new_cache(self, batch: int, ctx: int) -> StateCache:
        return StateCache([self.runner.new_state() for _ in range(batch)], self.max_context)

    def embed(self, input_ids_BS: np.ndarray) -> np.ndarray:
        ids = np.asarray(input_ids_BS, np.int32)
        rows = [self.runner.predict("embed", {"input_ids": ids[b:b + 1]})["embeds"] for b in range(ids.shape[0])]
        return np.concatenate(rows, axis=0).astype(np.float32)

    def step(self, inputs_embeds_BSH, cos_BSD, sin_BSD, mask_BST, write_pos: int, cache: StateCache,
             logits: LogitsWhich = "last"):
        B, S, _ = inputs_embeds_BSH.shape
        C = self.max_context
        T = mask_BST.shape[-1]
        if logits == "all":
            raise BundleError("the Core ML decoder returns one row of logits per call")
        if S not in (1, self.fixed_chunk) or write_pos + S > C or T > C or cache.batch != B:
            raise BundleError(f"chunk of {S} tokens at slot {write_pos} does not fit the bundle "
                              f"(chunk {self.fixed_chunk}, {C} slots, {cache.batch} states for {B} rows)")
        # the host's mask covers slots < T; the rest (not written yet) stay masked
        mask_BSC = np.full((B, S, C), MASK_MIN, np.float32)
        mask_BSC[:, :, :T] = np.maximum(np.asarray(mask_BST, np.float32), MASK_MIN)
        pos = np.array([write_pos], np.int32)
        out = []
        for b in range(B):
            feeds = {
                "inputs_embeds": np.asarray(inputs_embeds_BSH[b:b + 1], np.float32),
                "cos": np.asarray(cos_BSD[b:b + 1], np.float32),
                "sin": np.asarray(sin_BSD[b:b + 1], np.float32),
                "mask": mask_BSC[b:b + 1, None],
                "pos": pos,
            }
            if S == 1:
                fn = "decode"
            else:
                fn = "prefill"
                last = S - 1 if logits in ("last", "none") else int(logits)
                feeds["last_index"] = np.array([last], np.int32)
            out.append(np.asarray(self.runner.predict(fn, feeds, cache.states[b])["logits"], np.float32).reshape(1, 1, -1))
        if logits == "none":
            return None
        return np.concatenate(out, axis=0)


# ----------------------------------------------------------------------------- assembly


def open_bundle_model(bundle: str | os.PathLike[str], model: str | None, *, backend: str = "auto",
                      vision_fallback=None, compute_units: str = "ALL", full_check: bool = False):
    """The host's ``Model`` whose forward passes run in ``bundle`` (checked against the checkpoint).

    ``backend``: "coreml" (macOS), "evaluator" (any OS; slow) or "auto" (Core ML where it can run).
    ``full_check`` also compares every file's sha256 with the manifest (else sizes only; Core ML
    checks the sums once, before compiling). ``vision_fallback(checkpoint)``, when given, makes the
    vision tower for images larger than the bundle's largest bucket (the engine table hands in
    numpy's, :func:`mineru_tui.engines.numpy_vision_tower`); without it such an image is a
    ``BundleError``.
    """
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint, resolve_model
    from mineru_tui.engines.qwen2vl.model import Model
    from mineru_tui.engines.qwen2vl.tokenizer import Tokenizer
    from .coremltools_import import can_predict

    bundle = Path(bundle).expanduser()
    model_dir = resolve_model(model)
    checkpoint = load_checkpoint(model_dir)
    manifest = check_bundle(bundle, checkpoint, full=full_check)
    if backend == "auto":
        backend = "coreml" if can_predict() else "evaluator"
    if backend not in ("coreml", "evaluator"):
        raise BundleError(f"unknown bundle backend {backend!r}")
    try:  # a package whose files match the manifest can still be garbage (a tampered one)
        if backend == "coreml":
            vision_runner = CoreMLRunner(bundle, manifest, "vision.mlpackage", ["main"], compute_units)
            text_runner = CoreMLRunner(bundle, manifest, "decoder.mlpackage", ["prefill", "decode", "embed"],
                                       compute_units)
        else:
            vision_runner = EvaluatorRunner(bundle / "vision.mlpackage")
            text_runner = EvaluatorRunner(bundle / "decoder.mlpackage")
    except (BundleError, KeyboardInterrupt, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - coremltools raises anything on a bad package
        why = " ".join(str(e).split())[:160] or type(e).__name__
        raise BundleError(f"{bundle}: a package cannot be loaded ({type(e).__name__}: {why}); "
                          "rebuild the bundle") from None
    fallback = vision_fallback(checkpoint) if vision_fallback is not None else None
    vision = BundleVision(vision_runner, manifest, checkpoint.config.vision, fallback)
    text = BundleTextForward(text_runner, manifest, checkpoint.config.text)
    assert tuple(STATE_NAMES) == ("keyCache", "valueCache")
    return Model(checkpoint, Tokenizer.from_dir(model_dir), vision=vision, text=text)
