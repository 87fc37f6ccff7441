"""The Qwen2 text decoder as MIL programs (coremltools builder, no torch).

Three programs share one set of weights and are merged into one multifunction package later:

* ``prefill`` — a fixed chunk of S tokens: ``inputs_embeds [1,S,H]``, ``cos``/``sin [1,S,D]``
  (M-RoPE computed on the host), ``mask [1,1,S,C]`` (additive, over all C cache slots),
  ``pos [1]`` (the slot of the chunk's first token), ``last_index [1]`` (the row whose logits
  are returned) → ``logits [1,1,V]``;
* ``decode`` — the same with S = 1 and no ``last_index``;
* ``embed`` — ``input_ids [1,n]`` → ``embeds [1,n,H]`` (the tied embedding table).

The KV cache is two Core ML states ``keyCache``/``valueCache [layers, kv_heads, C, D]`` (fp16;
fp32 is accepted by the builder for numerical tests only). Each state is read **once** per call
and the value returned by ``coreml_update_state`` is threaded through the layers: coremltools
9.0's ``remove_redundant_ops`` merges repeated ``read_state`` ops into one stale read
(coreml-build.md §2.4), which would make every layer overwrite the previous layer's cache rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.qwen2vl.config import TextConfig
from .mil_ops import linear, mb, rms_norm, rotary

STATE_NAMES = ("keyCache", "valueCache")


def _target():
    from .coremltools_import import coremltools

    return coremltools().target.iOS18  # states, slice_update, SDPA and multifunction need iOS18/macOS15


def decoder_program(weights: Mapping[str, np.ndarray], cfg: TextConfig, *, chunk: int, context: int,
                    state_dtype: str = "fp16"):
    """The decoder over a fixed chunk of ``chunk`` tokens (1 = the decode function)."""
    b = mb()
    from coremltools.converters.mil.mil import types

    H, D, L = cfg.hidden_size, cfg.head_dim, cfg.num_hidden_layers
    nq, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    rep, S, C = nq // nkv, int(chunk), int(context)
    sdt = types.fp16 if state_dtype == "fp16" else types.fp32
    embed_VH = np.asarray(weights["model.embed_tokens.weight"], np.float32)
    lm_head_VH = np.asarray(weights["lm_head.weight"], np.float32) if "lm_head.weight" in weights else embed_VH

    specs = [
        b.TensorSpec((1, S, H), dtype=types.fp32),
        b.TensorSpec((1, S, D), dtype=types.fp32),
        b.TensorSpec((1, S, D), dtype=types.fp32),
        b.TensorSpec((1, 1, S, C), dtype=types.fp32),
        b.TensorSpec((1,), dtype=types.int32),
    ]
    if S > 1:
        specs.append(b.TensorSpec((1,), dtype=types.int32))
    specs += [b.StateTensorSpec((L, nkv, C, D), dtype=sdt), b.StateTensorSpec((L, nkv, C, D), dtype=sdt)]

    def body(inputs_embeds, cos, sin, mask, pos, last_index, key_state, value_state):
        x = inputs_embeds
        cos4, sin4 = b.expand_dims(x=cos, axes=[1]), b.expand_dims(x=sin, axes=[1])  # [1,1,S,D]: all heads
        mask_r = b.tile(x=mask, reps=[1, 1, rep, 1]) if rep > 1 else mask  # rows of the stacked q heads
        kc = b.read_state(input=key_state)  # once per call (see the module docstring)
        vc = b.read_state(input=value_state)
        end_pos = b.add(x=pos, y=np.int32(S))
        for i in range(L):
            p = f"model.layers.{i}."

            def w(n: str, p: str = p) -> np.ndarray:
                return np.asarray(weights[p + n], np.float32)

            h = rms_norm(x, w("input_layernorm.weight"), cfg.rms_norm_eps)
            q = linear(h, w("self_attn.q_proj.weight"), w("self_attn.q_proj.bias"))
            k = linear(h, w("self_attn.k_proj.weight"), w("self_attn.k_proj.bias"))
            v = linear(h, w("self_attn.v_proj.weight"), w("self_attn.v_proj.bias"))
            q = b.transpose(x=b.reshape(x=q, shape=[1, S, nq, D]), perm=[0, 2, 1, 3])  # [1,nq,S,D]
            k = b.transpose(x=b.reshape(x=k, shape=[1, S, nkv, D]), perm=[0, 2, 1, 3])  # [1,nkv,S,D]
            v = b.transpose(x=b.reshape(x=v, shape=[1, S, nkv, D]), perm=[0, 2, 1, 3])
            q, k = rotary(q, cos4, sin4, D), rotary(k, cos4, sin4, D)
            begin = b.concat(values=[np.array([i, 0], np.int32), pos, np.array([0], np.int32)], axis=0)
            end = b.concat(values=[np.array([i + 1, nkv], np.int32), end_pos, np.array([D], np.int32)], axis=0)
            k_s = b.cast(x=k, dtype=state_dtype) if state_dtype == "fp16" else k
            v_s = b.cast(x=v, dtype=state_dtype) if state_dtype == "fp16" else v
            kc = b.coreml_update_state(state=key_state, value=b.slice_update(x=kc, update=k_s, begin=begin, end=end))
            vc = b.coreml_update_state(state=value_state, value=b.slice_update(x=vc, update=v_s, begin=begin, end=end))
            k_l = b.slice_by_index(x=kc, begin=[i, 0, 0, 0], end=[i + 1, nkv, C, D])  # [1,nkv,C,D]
            v_l = b.slice_by_index(x=vc, begin=[i, 0, 0, 0], end=[i + 1, nkv, C, D])
            if state_dtype == "fp16":
                k_l, v_l = b.cast(x=k_l, dtype="fp32"), b.cast(x=v_l, dtype="fp32")
            # kv head g serves q heads g·rep … g·rep+rep−1: stack them along the row axis
            q_g = b.reshape(x=q, shape=[1, nkv, rep * S, D])
            a = b.scaled_dot_product_attention(query=q_g, key=k_l, value=v_l, attn_mask=mask_r)
            a = b.reshape(x=b.transpose(x=b.reshape(x=a, shape=[1, nq, S, D]), perm=[0, 2, 1, 3]), shape=[1, S, nq * D])
            x = b.add(x=x, y=linear(a, w("self_attn.o_proj.weight")))
            h = rms_norm(x, w("post_attention_layernorm.weight"), cfg.rms_norm_eps)
            gate = b.silu(x=linear(h, w("mlp.gate_proj.weight")))
            x = b.add(x=x, y=linear(b.mul(x=gate, y=linear(h, w("mlp.up_proj.weight"))), w("mlp.down_proj.weight")))
        if last_index is not None:  # only the row the host wants logits for goes through the lm_head
            x = b.gather(x=x, indices=last_index, axis=1)
        x = rms_norm(x, np.asarray(weights["model.norm.weight"], np.float32), cfg.rms_norm_eps)
        return b.linear(x=x, weight=lm_head_VH, name="logits")

    # mb.program names the inputs after the Python parameters
    if S > 1:
        @b.program(input_specs=specs, opset_version=_target())
        def prefill(inputs_embeds, cos, sin, mask, pos, last_index, keyCache, valueCache):
            return body(inputs_embeds, cos, sin, mask, pos, last_index, keyCache, valueCache)

        return prefill

    @b.program(input_specs=specs, opset_version=_target())
    def decode(inputs_embeds, cos, sin, mask, pos, keyCache, valueCache):
        return body(inputs_embeds, cos, sin, mask, pos, None, keyCache, valueCache)

    return decode


def embed_program(weights: Mapping[str, np.ndarray], cfg: TextConfig, *, context: int):
    """``input_ids [1, n]`` (1 ≤ n ≤ context) → ``embeds [1, n, H]`` from the embedding table."""
    b = mb()
    from coremltools.converters.mil.mil import get_new_symbol, types

    table = np.asarray(weights["model.embed_tokens.weight"], np.float32)
    n = get_new_symbol()

    @b.program(input_specs=[b.TensorSpec((1, n), dtype=types.int32)], opset_version=_target())
    def prog(input_ids):
        return b.gather(x=table, indices=input_ids, axis=0, name="embeds")

    return prog
