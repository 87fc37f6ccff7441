"""Small MIL-builder pieces shared by the decoder and vision programs.

Everything is built in float32; ``ct.convert(compute_precision=FLOAT16)`` later casts the
weights and the arithmetic to fp16. The norms are written so that fp16 does not overflow:
x² of a residual row with |x| ≳ 256 exceeds fp16's 65504 (coreml-build.md §8.3 measured the
plain pattern collapsing on rows with max |x| 675 and 7195), so each row is first divided by
s = max(max|x|, 1) and the epsilon scaled by 1/s² — the same result in exact arithmetic.
"""

from __future__ import annotations

import numpy as np


def mb():
    """The MIL builder (imported late: coremltools loads only when a bundle is built or run)."""
    from .coremltools_import import coremltools

    coremltools()
    from coremltools.converters.mil.mil import Builder

    return Builder


def _row_scale(x):
    """s = max(max|x| over the last axis, 1), keeping dims: the fp16-safe divisor of a row."""
    b = mb()
    return b.maximum(x=b.reduce_max(x=b.abs(x=x), axes=[-1], keep_dims=True), y=np.float32(1.0))


def _scaled_eps(eps: float, s):
    """eps / s² as (sqrt(eps)/s)²: underflows to 0 for large s instead of s² overflowing fp16."""
    b = mb()
    r = b.real_div(x=np.float32(np.sqrt(eps)), y=s)
    return b.mul(x=r, y=r)


def rms_norm(x, weight: np.ndarray, eps: float):
    """weight · x / sqrt(mean(x²) + eps), computed on x/s with eps/s² (no fp16 overflow)."""
    b = mb()
    s = _row_scale(x)
    xs = b.real_div(x=x, y=s)
    ms = b.reduce_mean(x=b.mul(x=xs, y=xs), axes=[-1], keep_dims=True)
    eps_s = _scaled_eps(eps, s)
    return b.mul(x=b.mul(x=xs, y=b.rsqrt(x=b.add(x=ms, y=eps_s))), y=np.asarray(weight, np.float32))


def layer_norm(x, weight: np.ndarray, bias: np.ndarray, eps: float):
    """LayerNorm over the last axis, fp16-safe the same way as :func:`rms_norm`."""
    b = mb()
    xc = b.sub(x=x, y=b.reduce_mean(x=x, axes=[-1], keep_dims=True))
    s = _row_scale(xc)
    xs = b.real_div(x=xc, y=s)
    var = b.reduce_mean(x=b.mul(x=xs, y=xs), axes=[-1], keep_dims=True)
    eps_s = _scaled_eps(eps, s)
    y = b.mul(x=xs, y=b.rsqrt(x=b.add(x=var, y=eps_s)))
    return b.add(x=b.mul(x=y, y=np.asarray(weight, np.float32)), y=np.asarray(bias, np.float32))


def linear(x, weight: np.ndarray, bias: np.ndarray | None = None):
    """x @ weightᵀ (+ bias); weight is [out, in] as in the checkpoint."""
    b = mb()
    w = np.asarray(weight, np.float32)
    if bias is None:
        return b.linear(x=x, weight=w)
    return b.linear(x=x, weight=w, bias=np.asarray(bias, np.float32))


def rotary(x, cos, sin, head_dim: int):
    """x·cos + rotate_half(x)·sin with rotate_half(x) = cat(−x[d/2:], x[:d/2]) (last axis)."""
    b = mb()
    half = head_dim // 2
    x1, x2 = b.split(x=x, split_sizes=[half, half], axis=-1)
    rot = b.concat(values=[b.mul(x=x2, y=np.float32(-1.0)), x1], axis=-1)
    return b.add(x=b.mul(x=x, y=cos), y=b.mul(x=rot, y=sin))
