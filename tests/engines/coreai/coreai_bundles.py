"""Tiny Core AI bundles for the Core AI tests, built once per test session (about a second each).

Small shapes keep the Linux runtime (single-threaded, a checker) fast: a 128-slot cache,
16-token prefill chunks and vision buckets of 64 / 128 / 256 patches (the oracle image has 72
patches → bucket 128). The ODIX cache goes to a session folder, not the user's cache.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from tests import tiny_checkpoint as tc

CONTEXT, CHUNK, BUCKETS = 128, 16, (64, 128, 256)
# pages: the reader's 1036x1036 layout image (5476 patches, 1369 tokens) must fit
PAGE_CONTEXT, PAGE_BUCKETS = 1536, (64, 128, 256, 1024, 5476)
_ROOT = Path(tempfile.mkdtemp(prefix="mineru-tui-coreai-"))
atexit.register(shutil.rmtree, _ROOT, True)


def use_session_cache() -> None:
    """Point the ODIX cache (``<cache>/coreai``) into the session folder (once per process)."""
    os.environ.setdefault("MINERU_TUI_CACHE", str(_ROOT / "cache"))


@functools.cache
def tiny_coreai_bundle(weights: str = "f32", compute: str = "f32", pages: bool = False) -> Path:
    """A Core AI bundle of the tiny checkpoint (``pages``: big enough for the reader's layout
    page). Do not modify it: copy first."""
    from mineru_tui.engines.coreai.build import build_coreai_bundle

    use_session_cache()
    out = _ROOT / f"tiny-{weights}-{compute}{'-pages' if pages else ''}"
    build_coreai_bundle(str(tc.TINY_DIR), out, weights=weights, compute=compute,
                        context=PAGE_CONTEXT if pages else CONTEXT, prefill_chunk=CHUNK,
                        buckets=PAGE_BUCKETS if pages else BUCKETS)
    return out


@functools.cache
def other_checkpoint(seed: int = 7) -> Path:
    """Another checkpoint of the tiny shapes: fresh random weights (``seed``), each tensor with
    its original's spread, in transformers-5 tensor names and nested config."""
    dst = _ROOT / f"other-{seed}"
    tc.copy_without_weights(dst)
    legacy = json.loads((tc.TINY_DIR / "config.json").read_text())
    (dst / "config.json").write_text(json.dumps(tc.v5_config(legacy), indent=2))
    rng = np.random.default_rng(seed)
    tensors = {}
    for k, v in sorted(tc.read_tensors().items()):
        if "norm" in k or k.endswith(".bias"):
            tensors[tc.v5_key(k)] = v  # keep norms / biases: the model stays well-conditioned
        else:
            tensors[tc.v5_key(k)] = (rng.standard_normal(v.shape) * float(v.std() or 0.02)).astype(np.float32)
    tc.write_safetensors(dst / "model.safetensors", tensors)
    return dst
