"""Small graph helpers over OpenVINO's opset13 (``openvino.opset13``), shared by the vision and
decoder graphs: constants, linear layers with f32 or int8 weights, norms, rotary.

int8 weights follow the pattern OpenVINO's CPU plugin runs natively as a compressed-weight
fully-connected layer: ``Constant(int8 [out, in]) → Convert(f32) → Multiply(scale [out, 1])``
feeding ``MatMul(x, W, transpose_b=True)``; the int8 stays in memory and is expanded inside the
kernel. Scales are per output channel (symmetric: ``max |w| / 127``). int4 weights are
group-wise, the same pattern with a Reshape: ``Constant(i4 [out, in/128, 128]) → Convert →
Multiply(scale [out, in/128, 1]) → Reshape([out, in])`` (symmetric: ``max |w| / 7`` per group).
"""

from __future__ import annotations

import numpy as np

WEIGHTS = ("f32", "f16", "int8", "int4")
INT4_GROUP = 128  # input channels per int4 scale


def opset():
    """``openvino.opset13`` (imported on first use: OpenVINO loads only when an engine needs it)."""
    import openvino.opset13 as op

    return op


def const(a) -> object:
    """A constant node from a numpy value (copied: the graph must not alias a memory map that
    may be closed before the model is saved or compiled)."""
    a = np.array(a, copy=True)  # 0-d stays 0-d (ascontiguousarray would make it 1-d)
    return opset().constant(a)


def i64(*values: int):
    return const(np.array(values, np.int64))


def quantize_int8(w_NK: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-output-channel int8: (q [N, K] int8, scale [N, 1] f32), w ≈ q · scale."""
    w = np.asarray(w_NK, np.float32)
    amax = np.max(np.abs(w), axis=1, keepdims=True)
    scale = np.where(amax > 0, amax / np.float32(127), np.float32(1)).astype(np.float32)
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale


def quantize_int4(w_NK: np.ndarray, group: int = INT4_GROUP) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric group-wise int4: (q [N, K/g, g] int8 holding −8…7, scale [N, K/g, 1] f32) with
    g = ``group`` input channels per scale (one group per row when K is not a multiple),
    w ≈ q · scale. Scales are max |w| / 7 of each group."""
    w = np.asarray(w_NK, np.float32)
    N, K = w.shape
    g = group if K % group == 0 else K
    wg = w.reshape(N, K // g, g)
    amax = np.max(np.abs(wg), axis=2, keepdims=True)
    scale = np.where(amax > 0, amax / np.float32(7), np.float32(1)).astype(np.float32)
    q = np.clip(np.rint(wg / scale), -8, 7).astype(np.int8)
    return q, scale


def ov_type(name: str):
    import openvino as ov

    return getattr(ov.Type, name)


def weight(w_NK: np.ndarray, weights: str):
    """The weight node of a linear layer ([out, in], used with transpose_b)."""
    op = opset()
    if weights == "f32":
        return const(np.asarray(w_NK, np.float32))
    if weights == "f16":  # half the memory; the CPU plugin computes with bf16/f32 copies
        return op.convert(const(np.asarray(w_NK, np.float16)), "f32")
    if weights == "int8":
        q, scale = quantize_int8(w_NK)
        return op.multiply(op.convert(const(q), "f32"), const(scale))
    if weights == "int4":
        q, scale = quantize_int4(w_NK)
        N, K = w_NK.shape
        w = op.multiply(op.convert(op.constant(q, ov_type("i4")), "f32"), const(scale))
        return w if q.shape == (N, K) else op.reshape(w, i64(N, K), False)
    raise ValueError(f"unknown weight format {weights!r} (one of {', '.join(WEIGHTS)})")


def linear(x, w_NK: np.ndarray, b_N: np.ndarray | None, weights: str):
    """x @ Wᵀ (+ b) with the checkpoint's [out, in] weight."""
    op = opset()
    y = op.matmul(x, weight(w_NK, weights), False, True)
    return y if b_N is None else op.add(y, const(np.asarray(b_N, np.float32)))


def layer_norm(x, w, b, eps: float):
    """LayerNorm over the last axis (MVN, which the CPU plugin runs as one kernel)."""
    op = opset()
    n = op.mvn(x, i64(-1), True, float(eps), "inside_sqrt")
    return op.add(op.multiply(n, const(np.asarray(w, np.float32))), const(np.asarray(b, np.float32)))


def rms_norm(x, w, eps: float):
    """x · rsqrt(mean(x²) + eps) · w over the last axis (the shape the CPU plugin fuses)."""
    op = opset()
    ms = op.reduce_mean(op.power(x, const(np.float32(2))), i64(-1), True)
    inv = op.divide(const(np.float32(1)), op.sqrt(op.add(ms, const(np.float32(eps)))))
    return op.multiply(op.multiply(x, inv), const(np.asarray(w, np.float32)))


def rope_fusable(x, cos, sin, half: int):
    """x·cos + rotate_half(x)·sin for x ``[B, H, S, D]`` and cos/sin ``[B, 1, S, D]``, in the form
    OpenVINO's RoPE fusion recognises (VariadicSplit, Multiply by −1, Concat on the last axis):
    the CPU plugin runs it as one ``RoPE`` node."""
    op = opset()
    x1, x2 = op.variadic_split(x, const(np.int64(3)), i64(half, half)).outputs()
    rot = op.concat([op.multiply(x2, const(np.float32(-1.0))), x1], -1)
    return op.add(op.multiply(x, cos), op.multiply(rot, sin))
