"""The Qwen2 decoder (prefill and single-token decode over a KV cache) as an OpenVINO model.

One model serves prefill chunks and decode steps (every dimension dynamic). The KV cache stays
on the host, in the numpy engine's ``KVCache`` ([layers, batch, kv_heads, ctx, head_dim]), so
the host loop — per-row prefill, batch compaction, growing, any scheduler that keeps the
``TextForward`` contract — works unchanged. Each call reads the cache (zero-copy: one input per
layer, a contiguous view) and returns only the new keys/values, which the host writes at its
slots. Attention is split in two parts so the cache is never copied inside the graph:
``softmax([q·K_pastᵀ + mask_past, q·k_newᵀ + mask_new])`` over the past slots and the chunk's
own tokens, with one shared maximum and denominator.

Inputs: ``embeds [B,S,H]``, ``cos``/``sin [B,S,D]`` (M-RoPE from the host), ``mask_past
[B,1,1,S,C]`` and ``mask_new [B,1,1,S,S]`` (additive), ``logit_index [R]`` (rows of the chunk
that get logits), ``past_k{i}``/``past_v{i} [B,G,C,D]`` per layer. Outputs: ``logits [B,R,V]``,
``present_k``/``present_v [layers,B,G,S,D]``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.numpy.config import TextConfig
from .ops import const, i64, linear, opset, rms_norm, rotate, weight


def build_text(weights: Mapping[str, np.ndarray], cfg: TextConfig, wformat: str, cache_type: str = "f32"):
    """The ``openvino.Model`` of the decoder with ``wformat`` linear weights (f32 | int8)."""
    import openvino as ov

    op = opset()
    Hh, Q, G, D, Lyr = cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.num_hidden_layers
    rep = Q // G
    eps = cfg.rms_norm_eps

    def w(name):
        return np.asarray(weights[name])

    embeds = op.parameter([-1, -1, Hh], ov.Type.f32, name="embeds")
    cos = op.parameter([-1, -1, D], ov.Type.f32, name="cos")
    sin = op.parameter([-1, -1, D], ov.Type.f32, name="sin")
    mask_past = op.parameter([-1, 1, 1, -1, -1], ov.Type.f32, name="mask_past")
    mask_new = op.parameter([-1, 1, 1, -1, -1], ov.Type.f32, name="mask_new")
    logit_index = op.parameter([-1], ov.Type.i64, name="logit_index")
    ctype = ov.Type.f32 if cache_type == "f32" else ov.Type.f16
    past = [(op.parameter([-1, G, -1, D], ctype, name=f"past_k{i}"), op.parameter([-1, G, -1, D], ctype, name=f"past_v{i}"))
            for i in range(Lyr)]
    params = [embeds, cos, sin, mask_past, mask_new, logit_index] + [p for kv in past for p in kv]

    shp = op.shape_of(embeds, "i64")
    B = op.gather(shp, i64(0), const(np.int64(0)))
    S = op.gather(shp, i64(1), const(np.int64(0)))
    cos_BS1D, sin_BS1D = op.unsqueeze(cos, i64(2)), op.unsqueeze(sin, i64(2))
    scale = const(np.float32(D**-0.5))
    q_shape = op.concat([B, S, i64(G, rep, D)], 0)  # [B, S, G, rep, D]
    kv_shape = op.concat([B, S, i64(G, D)], 0)
    rows_shape = op.concat([B, i64(G), op.multiply(S, i64(rep)), i64(D)], 0)  # [B, G, rep·S, D]
    scores_shape = op.concat([B, i64(G, rep), S, i64(-1)], 0)  # [B, G, rep, S, T]
    axis_m1 = i64(-1)

    x = embeds
    new_k, new_v = [], []
    for i in range(Lyr):
        p = f"model.layers.{i}."
        h = rms_norm(x, w(p + "input_layernorm.weight"), eps)
        q = linear(h, w(p + "self_attn.q_proj.weight"), w(p + "self_attn.q_proj.bias"), wformat)
        k = linear(h, w(p + "self_attn.k_proj.weight"), w(p + "self_attn.k_proj.bias"), wformat)
        v = linear(h, w(p + "self_attn.v_proj.weight"), w(p + "self_attn.v_proj.bias"), wformat)
        q = op.reshape(q, op.concat([B, S, i64(Q, D)], 0), False)
        q = op.multiply(rotate(q, cos_BS1D, sin_BS1D, D // 2), scale)
        k = rotate(op.reshape(k, kv_shape, False), cos_BS1D, sin_BS1D, D // 2)
        k_BGSD = op.transpose(k, i64(0, 2, 1, 3))
        v_BGSD = op.transpose(op.reshape(v, kv_shape, False), i64(0, 2, 1, 3))
        new_k.append(op.unsqueeze(k_BGSD, i64(0)))
        new_v.append(op.unsqueeze(v_BGSD, i64(0)))
        # q heads g·rep … g·rep+rep−1 share kv head g: [B, S, G, rep, D] → [B, G, rep·S, D]
        q = op.reshape(op.transpose(op.reshape(q, q_shape, False), i64(0, 2, 3, 1, 4)), rows_shape, False)
        pk, pv = past[i]
        if cache_type != "f32":
            pk, pv = op.convert(pk, "f32"), op.convert(pv, "f32")
        s_past = op.add(op.reshape(op.matmul(q, pk, False, True), scores_shape, False), mask_past)
        s_new = op.add(op.reshape(op.matmul(q, k_BGSD, False, True), scores_shape, False), mask_new)
        m = op.maximum(op.reduce_max(s_past, axis_m1, True), op.reduce_max(s_new, axis_m1, True))
        e_past = op.exp(op.subtract(s_past, m))
        e_new = op.exp(op.subtract(s_new, m))
        denom = op.add(op.reduce_sum(e_past, axis_m1, True), op.reduce_sum(e_new, axis_m1, True))
        e_past = op.reshape(e_past, op.concat([B, i64(G), op.multiply(S, i64(rep)), i64(-1)], 0), False)
        e_new = op.reshape(e_new, op.concat([B, i64(G), op.multiply(S, i64(rep)), i64(-1)], 0), False)
        o = op.add(op.matmul(e_past, pv, False, False), op.matmul(e_new, v_BGSD, False, False))  # [B,G,rep·S,D]
        o = op.divide(op.reshape(o, op.concat([B, i64(G, rep), S, i64(D)], 0), False), denom)
        o = op.reshape(op.transpose(o, i64(0, 3, 1, 2, 4)), op.concat([B, S, i64(Q * D)], 0), False)
        x = op.add(x, linear(o, w(p + "self_attn.o_proj.weight"), None, wformat))
        h = rms_norm(x, w(p + "post_attention_layernorm.weight"), eps)
        gate = op.swish(linear(h, w(p + "mlp.gate_proj.weight"), None, wformat))
        up = linear(h, w(p + "mlp.up_proj.weight"), None, wformat)
        x = op.add(x, linear(op.multiply(gate, up), w(p + "mlp.down_proj.weight"), None, wformat))
    x = op.gather(x, logit_index, const(np.int64(1)))  # only the rows asked for reach lm_head
    h = rms_norm(x, w("model.norm.weight"), eps)
    head = w("lm_head.weight") if "lm_head.weight" in weights else w("model.embed_tokens.weight")
    logits = op.matmul(h, weight(head, wformat), False, True)
    present_k = op.concat(new_k, 0)
    present_v = op.concat(new_v, 0)
    for node, name in ((logits, "logits"), (present_k, "present_k"), (present_v, "present_v")):
        node.output(0).get_tensor().set_names({name})
    return ov.Model([logits, present_k, present_v], params, "mineru_decoder")
