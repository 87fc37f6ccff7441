"""Run a MIL program numerically on any OS, with coremltools' own op implementations.

There is no Core ML runtime off macOS, but most MIL ops carry a numpy ``value_inference`` (used
by coremltools for constant folding). :class:`ProgramEvaluator` walks a function's operations in
order, attaches the runtime values to each op's inputs and calls that implementation
(coreml-build.md §6). A few ops are done here instead: those without one (``silu``,
``read_state``, ``coreml_update_state``, ``constexpr_*``), the reductions (a ``numpy.bool``
``keep_dims`` from the package loader breaks ``np.mean``), ``shape``, and — for speed — ``linear``,
``matmul`` and ``scaled_dot_product_attention``.

fp16 tensors are computed in float32 and each op's result rounded to the op's declared dtype
(fp16 ops "in fp32, rounded": numpy's own fp16 matmul is ~80x slower and no closer to a GPU's).
This checks what the graph computes, not Core ML's kernels (their accumulation order and
precision on CPU/GPU/Neural Engine differ slightly).

Programs come from the builder (``mil_text`` / ``mil_vision``) or from a saved package
(:func:`load_package_program`). It relies on private attributes (``_sym_val``, ``_sym_type``) of
coremltools 9.0; the manifest records the version a bundle was built with.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .coremltools_import import coremltools


def load_package_program(path: str | Path):
    """The PyMIL ``Program`` of a saved ``.mlpackage`` (all of its functions, weights as numpy)."""
    ct = coremltools()
    from coremltools.converters.mil.frontend.milproto.load import load

    path = Path(path)
    spec = ct.utils.load_spec(str(path))
    weights_dir = path / "Data" / "com.apple.CoreML" / "weights"
    return load(spec, spec.specificationVersion, str(weights_dir))


def _f32(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _softmax_last(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


class ProgramEvaluator:
    """Evaluate the functions of one MIL program; constants are materialised once and kept."""

    def __init__(self, program):
        self.program = program
        self._consts: dict[int, np.ndarray] = {}  # id(op output var) -> value (fp32 for fp16 weights)
        self._by_content: dict[tuple, np.ndarray] = {}  # the same weight seen by several functions

    @property
    def functions(self) -> list[str]:
        return list(self.program.functions)

    def _const(self, op) -> np.ndarray:
        key = id(op.outputs[0])
        val = self._consts.get(key)
        if val is None:
            if op.op_type == "const":
                val = op.outputs[0].val
            else:  # constexpr_* (compressed weights): decompress once
                val = op.materialized_val_inference()
                val = val[0] if isinstance(val, (tuple, list)) else val
            val = np.asarray(val)
            if val.size > 4096:  # functions of one package share weights: keep one copy of each
                digest = (val.dtype.str, val.shape, hashlib.blake2b(np.ascontiguousarray(val).data).digest())
                val = self._by_content.setdefault(digest, val.astype(np.float32) if val.dtype == np.float16 else val)
            elif val.dtype == np.float16 and val.size > 64:
                val = val.astype(np.float32)  # weights are used in fp32 (rounded back per op)
            self._consts[key] = val
        return val

    def run(self, function: str, feeds: Mapping[str, np.ndarray], states: dict[str, np.ndarray] | None = None
            ) -> dict[str, np.ndarray]:
        """Outputs of ``function`` by name; ``states`` (name → array) are updated in place."""
        log = logging.getLogger("coremltools")
        level = log.level
        log.setLevel(logging.ERROR)  # "Saving value type of float32 into fp16": our fp32-for-fp16 values
        try:
            return self._run(function, feeds, states)
        finally:
            log.setLevel(level)

    def _run(self, function, feeds, states):
        from coremltools.converters.mil.mil import types

        func = self.program.functions[function]
        states = states if states is not None else {}
        env: dict = {}
        for name, var in func.inputs.items():
            if types.is_state(var.sym_type):
                if name not in states:
                    raise KeyError(f"function {function} needs state {name}")
                env[var] = states[name]
            else:
                if name not in feeds:
                    raise KeyError(f"function {function} needs input {name}")
                env[var] = np.asarray(feeds[name]).astype(types.nptype_from_builtin(var.dtype), copy=False)
        for op in func.operations:
            outs = self._eval(op, env)
            for ov, val in zip(op.outputs, outs):
                if types.is_tensor(ov.sym_type) or types.is_scalar(ov.sym_type):
                    val = np.asarray(val).astype(types.nptype_from_builtin(ov.dtype), copy=False)
                env[ov] = val
        return {v.name: env[v] for v in func.outputs}

    # ------------------------------------------------------------------ one op

    def _eval(self, op, env) -> list:
        t = op.op_type
        inp = op.inputs

        def val(name):
            v = inp[name]
            return env[v] if v in env else self._const(v.op)

        if t == "const" or t.startswith("constexpr_"):
            return [self._const(op)]
        if t == "read_state":
            return [env[inp["input"]].copy()]
        if t == "coreml_update_state":
            state = env[inp["state"]]
            state[...] = val("value")
            return [state.copy()]
        if t == "silu":
            x = _f32(val("x"))
            return [x / (1 + np.exp(-x))]
        if t == "shape":
            return [np.array(val("x").shape, np.int32)]
        if t.startswith("reduce_"):
            x = _f32(val("x"))
            axes = tuple(int(a) for a in val("axes")) if "axes" in inp and inp["axes"] is not None else None
            keep = bool(val("keep_dims")) if "keep_dims" in inp and inp["keep_dims"] is not None else False
            fn = {"reduce_mean": np.mean, "reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min,
                  "reduce_prod": np.prod}.get(t)
            if fn is None:
                return self._generic(op, env)
            return [fn(x, axis=axes, keepdims=keep)]
        if t == "linear":
            x = _f32(val("x"))
            out = x @ _f32(val("weight")).T
            if "bias" in inp and inp["bias"] is not None:
                out = out + _f32(val("bias"))
            return [out]
        if t == "matmul":
            x, y = _f32(val("x")), _f32(val("y"))
            if bool(val("transpose_x")):
                x = np.swapaxes(x, -1, -2)
            if bool(val("transpose_y")):
                y = np.swapaxes(y, -1, -2)
            return [x @ y]
        if t == "scaled_dot_product_attention":
            q, k, v = _f32(val("query")), _f32(val("key")), _f32(val("value"))
            scores = (q @ np.swapaxes(k, -1, -2)) * np.float32(q.shape[-1] ** -0.5)
            if "attn_mask" in inp and inp["attn_mask"] is not None:
                m = val("attn_mask")
                scores = np.where(m, scores, -np.inf) if m.dtype == bool else scores + _f32(m)
            return [_softmax_last(scores.astype(np.float32)) @ v]
        return self._generic(op, env)

    def _generic(self, op, env) -> list:
        """The op's own ``value_inference`` on the runtime values (fp16 values passed as fp32)."""
        from coremltools.converters.mil.mil import types

        saved = []
        try:
            for v in op.get_flattened_inputs():
                if v in env or (v.op is not None and v.op.op_type.startswith("constexpr_")):
                    value = env[v] if v in env else self._const(v.op)
                    saved.append((v, v._sym_val, v._sym_type))
                    if types.is_tensor(v._sym_type):
                        v._sym_type = types.tensor(v.dtype, value.shape)  # concrete shape for shape-reading ops
                    inst = v._sym_type()
                    value = _f32(np.asarray(value))
                    inst.val = value[()] if value.ndim == 0 else value  # a numpy scalar for scalar types
                    v._sym_val = inst
            out = op.value_inference()
        finally:
            for v, sv, st in saved:
                v._sym_val, v._sym_type = sv, st
        return list(out) if isinstance(out, (tuple, list)) else [out]
