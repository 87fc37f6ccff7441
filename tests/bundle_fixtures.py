"""Tiny Core ML bundles for the bundle tests, built once per test session (a few seconds each).

Small shapes keep the numpy evaluator fast: a 128-slot cache, 16-token prefill chunks and
vision buckets of 64 / 128 / 256 patches (the oracle image has 72 patches → bucket 128).
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from tests.tiny_checkpoint import TINY_DIR

CONTEXT, CHUNK, BUCKETS = 128, 16, (64, 128, 256)
_ROOT = Path(tempfile.mkdtemp(prefix="mineru-tui-bundles-"))
atexit.register(shutil.rmtree, _ROOT, True)


@functools.cache
def tiny_bundle(weights: str) -> Path:
    """A bundle of the tiny checkpoint (fp16 / int8 / int4). Do not modify it: copy first."""
    from mineru_tui.engines.coreml.build import build_bundle

    out = _ROOT / weights
    build_bundle(str(TINY_DIR), out, weights=weights, context=CONTEXT, prefill_chunk=CHUNK, buckets=BUCKETS)
    return out


def copy_bundle(weights: str, dst: Path) -> Path:
    shutil.copytree(tiny_bundle(weights), dst)
    return dst
