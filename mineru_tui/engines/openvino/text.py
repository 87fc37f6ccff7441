"""The Qwen2 decoder (prefill and single-token decode over a KV cache) as an OpenVINO model.

One model serves prefill chunks and decode steps (every dimension dynamic). The KV cache stays
on the host, in the numpy engine's ``KVCache`` ([layers, batch, kv_heads, ctx, head_dim]), so
the host loop — per-row prefill, batch compaction, growing, any scheduler that keeps the
``TextForward`` contract — works unchanged. Each call reads the cache (zero-copy: one input per
layer, a contiguous view) and returns only the new keys/values, which the host writes at its
slots. Attention scores are computed in two parts so the cache is never copied inside the
graph — ``q·K_pastᵀ`` over the past slots and ``q·k_newᵀ`` over the chunk's own tokens — then
joined (a small copy: scores, not keys), masked, one ``Softmax``, split again for the two
``·V`` products.

The graph is written in few, fusable nodes because at one token each node's dispatch costs about
as much as its arithmetic: the rotary in the form the CPU plugin fuses into one ``RoPE`` node,
the 1/√D scale folded into the q projection, one mask input, the plugin's ``Softmax``.

Inputs: ``embeds [B,S,H]``, ``cos``/``sin [B,S,D]`` (M-RoPE from the host), ``mask
[B,1,1,S,P+S]`` (additive; the P past slots, then the chunk's S tokens), ``logit_index [R]``
(rows of the chunk that get logits), ``past_k{i}``/``past_v{i} [B,G,P,D]`` per layer. Outputs:
``logits [B,R,V]``, ``present_k``/``present_v [layers,B,G,S,D]``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.qwen2vl.config import TextConfig
from .ops import const, i64, linear, opset, rms_norm, rope_fusable, weight


def build_text(weights: Mapping[str, np.ndarray], cfg: TextConfig, wformat: str, cache_type: str = "f32"):
    """The ``openvino.Model`` of the decoder with ``wformat`` linear weights (f32 | int8 | int4)."""
    import openvino as ov

    op = opset()
    Hh, Q, G, D, Lyr = cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim, cfg.num_hidden_layers
    rep = Q // G
    eps = cfg.rms_norm_eps
    scale = np.float32(D**-0.5)

    def w(name):
        return np.asarray(weights[name])

    embeds = op.parameter([-1, -1, Hh], ov.Type.f32, name="embeds")
    cos = op.parameter([-1, -1, D], ov.Type.f32, name="cos")
    sin = op.parameter([-1, -1, D], ov.Type.f32, name="sin")
    mask = op.parameter([-1, 1, 1, -1, -1], ov.Type.f32, name="mask")
    logit_index = op.parameter([-1], ov.Type.i64, name="logit_index")
    ctype = ov.Type.f32 if cache_type == "f32" else ov.Type.f16
    past = [(op.parameter([-1, G, -1, D], ctype, name=f"past_k{i}"), op.parameter([-1, G, -1, D], ctype, name=f"past_v{i}"))
            for i in range(Lyr)]
    params = [embeds, cos, sin, mask, logit_index] + [p for kv in past for p in kv]

    shp = op.shape_of(embeds, "i64")
    B = op.gather(shp, i64(0), const(np.int64(0)))
    S = op.gather(shp, i64(1), const(np.int64(0)))
    cos_B1SD, sin_B1SD = op.unsqueeze(cos, i64(1)), op.unsqueeze(sin, i64(1))
    to_bhsd = i64(0, 2, 1, 3)
    q_shape = op.concat([B, S, i64(Q, D)], 0)
    kv_shape = op.concat([B, S, i64(G, D)], 0)
    rows_shape = op.concat([B, i64(G), op.multiply(S, i64(rep)), i64(D)], 0)  # [B, G, rep·S, D]
    scores_shape = op.concat([B, i64(G, rep), S, i64(-1)], 0)  # [B, G, rep, S, P+S]
    flat_shape = op.concat([B, i64(G), op.multiply(S, i64(rep)), i64(-1)], 0)  # [B, G, rep·S, P+S]
    out_shape = op.concat([B, S, i64(Q * D)], 0)
    P = op.gather(op.shape_of(past[0][0], "i64"), i64(2), const(np.int64(0)))
    split_at = op.concat([P, S], 0)  # the joined scores' two parts: past slots, the chunk

    x = embeds
    new_k, new_v = [], []
    for i in range(Lyr):
        p = f"model.layers.{i}."
        h = rms_norm(x, w(p + "input_layernorm.weight"), eps)
        # the 1/√D scale folded into the q projection (the rotary is linear: it commutes)
        q = linear(h, w(p + "self_attn.q_proj.weight") * scale, w(p + "self_attn.q_proj.bias") * scale, wformat)
        k = linear(h, w(p + "self_attn.k_proj.weight"), w(p + "self_attn.k_proj.bias"), wformat)
        v = linear(h, w(p + "self_attn.v_proj.weight"), w(p + "self_attn.v_proj.bias"), wformat)
        q = rope_fusable(op.transpose(op.reshape(q, q_shape, False), to_bhsd), cos_B1SD, sin_B1SD, D // 2)
        k_BGSD = rope_fusable(op.transpose(op.reshape(k, kv_shape, False), to_bhsd), cos_B1SD, sin_B1SD, D // 2)
        v_BGSD = op.transpose(op.reshape(v, kv_shape, False), to_bhsd)
        new_k.append(op.unsqueeze(k_BGSD, i64(0)))
        new_v.append(op.unsqueeze(v_BGSD, i64(0)))
        # q heads g·rep … g·rep+rep−1 share kv head g: [B, Q, S, D] → [B, G, rep·S, D] (a reshape)
        q = op.reshape(q, rows_shape, False)
        pk, pv = past[i]
        if cache_type != "f32":
            pk, pv = op.convert(pk, "f32"), op.convert(pv, "f32")
        scores = op.concat([op.matmul(q, pk, False, True), op.matmul(q, k_BGSD, False, True)], -1)
        scores = op.add(op.reshape(scores, scores_shape, False), mask)
        probs = op.reshape(op.softmax(scores, -1), flat_shape, False)
        p_past, p_new = op.variadic_split(probs, const(np.int64(-1)), split_at).outputs()
        o = op.add(op.matmul(p_past, pv, False, False), op.matmul(p_new, v_BGSD, False, False))  # [B,G,rep·S,D]
        o = op.reshape(op.transpose(op.reshape(o, op.concat([B, i64(Q), S, i64(D)], 0), False), to_bhsd), out_shape, False)
        x = op.add(x, linear(o, w(p + "self_attn.o_proj.weight"), None, wformat))
        h = rms_norm(x, w(p + "post_attention_layernorm.weight"), eps)
        gate = op.swish(linear(h, w(p + "mlp.gate_proj.weight"), None, wformat))
        up = linear(h, w(p + "mlp.up_proj.weight"), None, wformat)
        x = op.add(x, linear(op.multiply(gate, up), w(p + "mlp.down_proj.weight"), None, wformat))
    x = op.gather(x, logit_index, const(np.int64(1)))  # only the rows asked for reach lm_head
    h = rms_norm(x, w("model.norm.weight"), eps)
    head = w("lm_head.weight") if "lm_head.weight" in weights else w("model.embed_tokens.weight")
    # int4 layers keep an int8 lm_head: its 136 M weights decide the token, and in int4 it would
    # be the largest error of the step
    logits = op.matmul(h, weight(head, "int8" if wformat == "int4" else wformat), False, True)
    present_k = op.concat(new_k, 0)
    present_v = op.concat(new_v, 0)
    for node, name in ((logits, "logits"), (present_k, "present_k"), (present_v, "present_v")):
        node.output(0).get_tensor().set_names({name})
    return ov.Model([logits, present_k, present_v], params, "mineru_decoder")
