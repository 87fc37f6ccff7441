"""Small ``coreai.authoring`` pieces shared by the decoder and vision programs.

:class:`Ops` holds the compute dtype (``f32`` for exact checks and Linux tests, ``bf16``, or
``fp16`` for the Mac's GPU / Neural Engine) and the weight storage (``f32``/``bf16``/``fp16``
constants, or ``int8`` / ``int4`` per block of 32 input channels, dequantized in the graph by
``blockwise_shift_scale``). The program's inputs and outputs stay float32; they are cast at the
edges. Every constant made from one checkpoint tensor is made once and reused, so the
functions of one asset (``prefill``, ``decode``, ``embed``; the vision buckets) store it once.

Traps of coreai-core 1.0.0b3 (docs/coreai.md): element-wise ops need equal shapes (the
``broadcasting_*`` forms broadcast), permutations and shapes are ``uint32``, int4 constants
must be packed by hand (the plain call crashes the compiler), and x² of a residual row with
|x| ≳ 256 overflows fp16 — so each norm first divides the row by s = max(max|x|, 1) and scales
the epsilon by 1/s², as the Core ML builder does.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .authoring import authoring

COMPUTE = ("f32", "bf16", "fp16")
WEIGHTS = ("f32", "bf16", "fp16", "int8", "int4")
BLOCK = 32  # input channels per quantisation block (the port: the macOS 27 GPU delegate needs per-block)


def np_dtype(name: str):
    """numpy dtype of a compute dtype name."""
    if name == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype({"f32": np.float32, "fp16": np.float16}[name])


def quantize_blocks(w_IO: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric per-block quantisation of ``w_IO`` [in, out] along ``in`` (blocks of 32):
    (q int8 [in, out] in [-2^(b-1)+1, 2^(b-1)-1], scale float32 [in/32, out])."""
    I, O = w_IO.shape
    if I % BLOCK:
        raise ValueError(f"{I} input channels are not a multiple of {BLOCK}")
    top = 2 ** (bits - 1) - 1
    blocks = w_IO.reshape(I // BLOCK, BLOCK, O)
    scale = np.max(np.abs(blocks), axis=1) / top
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    q = np.clip(np.rint(blocks / scale[:, None, :]), -top, top).astype(np.int8).reshape(I, O)
    return q, scale


def dequantize_blocks(q: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """What the graph computes from :func:`quantize_blocks` (float32)."""
    I, O = q.shape
    return (q.reshape(I // BLOCK, BLOCK, O).astype(np.float32) * scale[:, None, :]).reshape(I, O)


def int4_constant(a: np.ndarray):
    """An int4 constant from int8 values in [-8, 7], packed two to a byte by hand (element 0 in
    the low nibble): ``constant(..., dtype=int4)`` stores one byte per element and crashes
    ``compile_to_binary`` (coreai-core 1.0.0b3)."""
    ca = authoring()
    from coreai._compiler.dialects._coreai_ops_gen import ConstantOp
    from coreai._compiler.ir import DenseResourceElementsAttr, IntegerType, RankedTensorType

    flat = (a.reshape(-1).astype(np.int16) & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.concatenate([flat, np.zeros(1, np.uint8)])
    packed = np.ascontiguousarray(flat[0::2] | (flat[1::2] << 4))
    tt = RankedTensorType.get(list(a.shape), IntegerType.get_signed(4))
    attr = DenseResourceElementsAttr.get_from_buffer(packed, "int4_weight", tt)
    return ca.Value._from_mlir(ConstantOp(value=attr).result)


def u32(*v: int) -> np.ndarray:
    return np.array(v, np.uint32)


def i32(*v: int) -> np.ndarray:
    return np.array(v, np.int32)


class Ops:
    """Graph pieces in one compute dtype over one checkpoint's weights (see the module docstring)."""

    def __init__(self, weights: Mapping[str, np.ndarray], compute: str = "f32", storage: str | None = None):
        if compute not in COMPUTE:
            raise ValueError(f"compute dtype {compute!r}: choose one of {', '.join(COMPUTE)}")
        storage = storage or compute
        if storage not in WEIGHTS:
            raise ValueError(f"weights {storage!r}: choose one of {', '.join(WEIGHTS)}")
        self.ca = authoring()
        self.weights = weights
        self.compute, self.storage = compute, storage
        self.dt = np_dtype(compute)
        self._consts: dict[tuple, object] = {}  # (name, form) -> numpy arrays, made once

    # -------------------------------------------------------------- constants

    def k(self, value) -> np.ndarray:
        """A scalar or array in the compute dtype (element-wise ops need matching types)."""
        return np.asarray(value, np.float32).astype(self.dt)

    def _once(self, key: tuple, make):
        if key not in self._consts:
            self._consts[key] = make()
        return self._consts[key]

    def tensor(self, name: str) -> np.ndarray:
        """Checkpoint tensor ``name`` in the compute dtype (norms, biases: never quantised)."""
        return self._once((name, "plain"), lambda: self.k(self.weights[name]))

    def f32(self, x):
        return self.ca.cast(x, np.float32) if self.dt != np.float32 else x

    def from_f32(self, x):
        return self.ca.cast(x, self.dt) if self.dt != np.float32 else x

    # -------------------------------------------------------------- layers

    def linear(self, x, name: str, bias: str | None = None, *, quantize: bool = True, weight=None):
        """x [rows, in] @ W.T (+ b) for the checkpoint's ``W`` [out, in] (``weight`` overrides);
        int8 / int4 storage dequantises a per-block copy in the graph."""
        ca = self.ca
        mode = self.storage if quantize else self.compute
        if mode in ("int8", "int4") and (weight if weight is not None else self.weights[name]).shape[1] % BLOCK:
            mode = self.compute  # a layer whose input is not a multiple of 32 stays in float

        def src() -> np.ndarray:  # W.T [in, out], float32
            return np.asarray(weight if weight is not None else self.weights[name], np.float32).T
        if mode in ("int8", "int4"):
            bits = 8 if mode == "int8" else 4
            q, scale = self._once((name, mode), lambda: quantize_blocks(np.ascontiguousarray(src()), bits))
            zero_q = np.zeros(scale.shape, np.int8)
            if bits == 4:
                data, off1 = int4_constant(q), int4_constant(zero_q)
            else:
                data, off1 = q, zero_q
            w = ca.blockwise_shift_scale(data, self.k(scale), off1, self.k(np.zeros(scale.shape)))
        else:
            dt = np_dtype(mode) if mode in COMPUTE else self.dt
            w = self._once((name, mode), lambda: np.ascontiguousarray(src()).astype(dt))
            if dt != self.dt:
                w = ca.cast(w, self.dt)
        y = ca.batch_matmul(x, w)
        if bias is not None:
            y = ca.broadcasting_add(y, self.tensor(bias)[None])
        return y

    def _row_scaled(self, x):
        """(x / s, eps scale 1/s²-ready s) with s = max(max|x| over the last axis, 1)."""
        ca = self.ca
        s = ca.broadcasting_maximum(ca.reduce_max(ca.abs_(x), i32(-1)), self.k(1.0))
        return ca.broadcasting_divide(x, s), s

    def _norm_tail(self, xs, s, eps: float):
        ca = self.ca
        r = ca.broadcasting_divide(self.k(np.sqrt(eps)), s)
        ms = ca.reduce_mean(ca.broadcasting_mul(xs, xs), i32(-1))
        return ca.broadcasting_mul(xs, ca.rsqrt(ca.broadcasting_add(ms, ca.broadcasting_mul(r, r))))

    def rms_norm(self, x, weight: str, eps: float):
        """weight · x / sqrt(mean(x²) + eps), computed fp16-safely on x/s."""
        xs, s = self._row_scaled(x)
        return self.ca.broadcasting_mul(self._norm_tail(xs, s, eps), self.tensor(weight)[None])

    def layer_norm(self, x, weight: str, bias: str, eps: float):
        ca = self.ca
        xc = ca.broadcasting_sub(x, ca.reduce_mean(x, i32(-1)))
        xs, s = self._row_scaled(xc)
        y = ca.broadcasting_mul(self._norm_tail(xs, s, eps), self.tensor(weight)[None])
        return ca.broadcasting_add(y, self.tensor(bias)[None])

    def rotary(self, x, cos, sin, head_dim: int):
        """x·cos + rotate_half(x)·sin over the last axis (cos/sin broadcast over heads)."""
        ca = self.ca
        half = head_dim // 2
        x1, x2 = ca.split(x, u32(half, half), np.int32(-1))
        rot = ca.concat(np.int32(-1), [ca.broadcasting_mul(x2, self.k(-1.0)), x1])
        return ca.broadcasting_add(ca.broadcasting_mul(x, cos), ca.broadcasting_mul(rot, sin))

    def attention(self, q_GRD, k_GTD, v_GTD, mask, head_dim: int):
        """softmax(q kᵀ / sqrt(d) + mask) v, batched over the first axis."""
        ca = self.ca
        scores = ca.batch_matmul(q_GRD, ca.transpose(k_GTD, u32(0, 2, 1)))
        scores = ca.broadcasting_add(ca.broadcasting_mul(scores, self.k(1.0 / np.sqrt(head_dim))), mask)
        return ca.batch_matmul(ca.softmax(scores, np.int32(-1)), v_GTD)


def define_graph(name: str, inputs: list[tuple[str, tuple, object]], outputs: list[tuple[str, tuple, object]],
                 body, states: list[tuple[str, tuple, object]] = ()) -> None:
    """Add graph ``name`` to the current ``ca.Module``: ``body(*inputs, *states)`` returns the
    output values, in order. A state argument arrives as ``(value, write)``: its current
    contents (read once) and ``write(new_value)`` to call once at the end. Written with the
    raw graph builder because ``@ca.graph`` takes no handle (state) arguments; the runtime
    hides the tokens the builder needs, one per state."""
    ca = authoring()
    from coreai._compiler.dialects import coreai as C
    from coreai.authoring.graph_builder import GraphOp

    tok = ca.TokenType()._to_mlir()
    in_types = [ca.TensorType(tuple(s), d)._to_mlir() for _, s, d in inputs]
    in_types += [ca.HandleType(ca.TensorType(tuple(s), d))._to_mlir() for _, s, d in states]
    out_types = [ca.TensorType(tuple(s), d)._to_mlir() for _, s, d in outputs] + [tok] * len(states)
    g = GraphOp(name, in_types, out_types, input_names=[n for n, _, _ in list(inputs) + list(states)],
                result_names=[n for n, _, _ in outputs] + [f"{n}_token" for n, _, _ in states])
    with g.block:
        args = list(g.arguments)
        values = [ca.Value._from_mlir(a) for a in args[:len(inputs)]]
        tokens: list = []
        state_args = []
        for handle in args[len(inputs):]:
            data, t = C.read_handle(handle, C.create_token())
            slot = len(tokens)
            tokens.append(t)

            def write(new, handle=handle, slot=slot):
                tokens[slot] = C.write_handle(handle, new._to_mlir(), tokens[slot])

            state_args.append((ca.Value._from_mlir(data), write))
        results = body(*values, *state_args)
        C.output([r._to_mlir() for r in results] + tokens)
