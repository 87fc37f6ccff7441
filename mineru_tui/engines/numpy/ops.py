"""Small float32 numpy building blocks shared by the vision tower and the decoder.

Weights stay exactly as stored in the checkpoint (Linear ``[out, in]`` row-major, often a read-only
memory map): ``x @ W.T`` lets BLAS use its transpose flag, so nothing is copied or pre-transposed.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

# ----------------------------------------------------------------------------- threads

_pool: ThreadPoolExecutor | None = None
_blas_ctl = None  # threadpoolctl.ThreadpoolController, when installed
_lock = threading.Lock()


@functools.cache
def _cpu_count() -> int:
    # os.cpu_count() reads /sys on Linux (~50 µs): asked for twice per decoder layer, so cached
    return os.cpu_count() or 1


def num_threads() -> int:
    """Worker threads for ``run_parallel``: $MINERU_TUI_THREADS, else the CPU count."""
    try:
        return max(1, int(os.environ.get("MINERU_TUI_THREADS", "0")) or _cpu_count())
    except ValueError:
        return _cpu_count()


def run_parallel(fn: Callable[[int], None], n_tasks: int) -> None:
    """Run ``fn(i)`` for i < n_tasks on a small thread pool, BLAS single-threaded inside.

    numpy releases the GIL in matmul and ufunc loops, so independent chunks (attention heads,
    row blocks) really run side by side — including the softmax/activation passes that BLAS
    threading never parallelises. BLAS is limited to one thread meanwhile (threadpoolctl) so
    the cores are not oversubscribed; without threadpoolctl, or with one thread, it is a loop.
    """
    global _pool, _blas_ctl
    workers = min(num_threads(), n_tasks)
    if workers > 1 and _blas_ctl is None:
        with _lock:
            if _blas_ctl is None:
                try:
                    from threadpoolctl import ThreadpoolController

                    _blas_ctl = ThreadpoolController()
                except ImportError:
                    _blas_ctl = False
    if workers <= 1 or not _blas_ctl:
        for i in range(n_tasks):
            fn(i)
        return
    if _pool is None or _pool._max_workers < workers:
        _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mineru-tui-np")
    with _blas_ctl.limit(limits=1, user_api="blas"):
        for f in [_pool.submit(fn, i) for i in range(n_tasks)]:
            f.result()


def parallel_rows_(fn_: Callable[[np.ndarray], object], x: np.ndarray, min_rows: int = 256) -> np.ndarray:
    """Apply an in-place elementwise ``fn_`` to row blocks of x in parallel; returns x."""
    workers = min(num_threads(), max(1, x.shape[0] // min_rows))
    if workers <= 1:
        fn_(x)
        return x
    bounds = np.linspace(0, x.shape[0], workers + 1).astype(int)
    run_parallel(lambda i: fn_(x[bounds[i] : bounds[i + 1]]), workers)
    return x


def row_chunks(n: int, size: int, multiple: int = 1) -> list[tuple[int, int]]:
    """[(start, stop), …] covering range(n) in pieces of about ``size`` rows (at least one piece).

    With several pieces, their number is rounded up to a multiple of ``multiple`` (the worker
    count), so no thread idles through the last round.
    """
    pieces = max(1, round(n / size))
    if pieces > 1:
        pieces = -(-pieces // multiple) * multiple
    bounds = np.linspace(0, n, pieces + 1).astype(int).tolist()
    return list(zip(bounds[:-1], bounds[1:]))


SMALL_M_ROWS = 16  # x with at most this many rows …
SMALL_M_CHUNK = 512  # … meets a tall W (≥ 4 slices) in slices of this many output rows


def linear(x_MI: np.ndarray, W_OI: np.ndarray, b_O: np.ndarray | None = None) -> np.ndarray:
    """y = x @ W.T (+ b) over the last axis; x [..., in] → [..., out]."""
    lead = x_MI.shape[:-1]
    x2 = x_MI.reshape(-1, x_MI.shape[-1])
    if x2.shape[0] == 1:
        # one row: W @ x is a gemv, which streams W once at memory speed (gemm with M=1 is slower)
        y = (W_OI @ x2[0])[None, :]
    elif x2.shape[0] <= SMALL_M_ROWS and W_OI.shape[0] >= 4 * SMALL_M_CHUNK:
        # a few rows against a tall W (batched decode's MLP gate/up and lm_head): OpenBLAS packs
        # all of W for a small-M sgemm; in 512-row slices (1.8 MB) the packed panel stays in cache
        # (15–25 % faster at batch 8, same bits; engine-bench.md)
        y = np.empty((x2.shape[0], W_OI.shape[0]), dtype=np.result_type(x2, W_OI))
        for a in range(0, W_OI.shape[0], SMALL_M_CHUNK):
            np.matmul(x2, W_OI[a : a + SMALL_M_CHUNK].T, out=y[:, a : a + SMALL_M_CHUNK])
    else:
        y = x2 @ W_OI.T
    if b_O is not None:
        y += b_O
    return y.reshape(*lead, W_OI.shape[0])


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis (biased variance, as torch)."""
    mu = x.mean(-1, keepdims=True)
    xc = x - mu
    var = np.mean(xc * xc, axis=-1, keepdims=True)
    xc *= 1.0 / np.sqrt(var + np.float32(eps))
    xc *= w
    xc += b
    return xc


def rms_norm(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    """Qwen2 RMSNorm: x · rsqrt(mean(x²) + eps) · w, in float32."""
    ms = np.mean(x * x, axis=-1, keepdims=True)
    y = x * (1.0 / np.sqrt(ms + np.float32(eps)))
    y *= w
    return y


def softmax_(s: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, in place (s is overwritten and returned)."""
    s -= s.max(axis=-1, keepdims=True)
    np.exp(s, out=s)
    s *= 1.0 / s.sum(axis=-1, keepdims=True)
    return s


# Elementwise activations run over row slices of this many elements with one reused temporary:
# a fresh full-size temporary (15 MB for a 768×5120 ViT MLP chunk) costs page faults and cache
# misses, and sliced they are ~2x faster.
ACT_SLICE_ELEMENTS = 1 << 16


def _sigmoid_scaled_(x: np.ndarray, alpha: float) -> np.ndarray:
    """x · sigmoid(alpha · x), in place, in row slices (see ACT_SLICE_ELEMENTS)."""
    x2 = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    rows = max(1, ACT_SLICE_ELEMENTS // max(1, x2.shape[1]))
    buf = np.empty((min(rows, x2.shape[0]), x2.shape[1]), dtype=x.dtype)
    neg_alpha = np.asarray(-alpha, dtype=x.dtype)
    for a in range(0, x2.shape[0], rows):
        xs = x2[a : a + rows]
        d = buf[: xs.shape[0]]
        np.multiply(xs, neg_alpha, out=d)
        np.exp(d, out=d)
        d += 1.0
        xs /= d
    return x


def silu_(x: np.ndarray) -> np.ndarray:
    """x · sigmoid(x), in place (x must be C-contiguous)."""
    return _sigmoid_scaled_(x, 1.0)


def quick_gelu_(x: np.ndarray) -> np.ndarray:
    """x · sigmoid(1.702 x) (the ViT MLP activation), in place (x must be C-contiguous)."""
    return _sigmoid_scaled_(x, 1.702)


def erf(x: np.ndarray) -> np.ndarray:
    """erf without scipy: Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7), float32 in and out."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + np.float32(0.3275911) * a)
    poly = t * (
        np.float32(0.254829592)
        + t * (np.float32(-0.284496736) + t * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429))))
    )
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu_erf(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, as ``nn.GELU()`` in the PatchMerger."""
    return np.float32(0.5) * x * (1.0 + erf(x * np.float32(1 / np.sqrt(2.0))))
