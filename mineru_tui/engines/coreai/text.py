"""The Qwen2 text decoder as Core AI functions (``coreai.authoring``, no torch).

One asset, three functions sharing one copy of the weights — the Core ML bundle's contract
(``engines/coreml/mil_text.py``), so the same host (``BundleTextForward``) drives both:

* ``prefill`` — a fixed chunk of S tokens: ``inputs_embeds [1,S,H]``, ``cos``/``sin [1,S,D]``
  (M-RoPE on the host), ``mask [1,1,S,C]`` (additive, over all C cache slots), ``pos [1]`` (the
  slot of the chunk's first token), ``last_index [1]`` (the row whose logits are returned)
  → ``logits [1,1,V]``;
* ``decode`` — the same with S = 1 and no ``last_index``;
* ``embed`` — ``input_ids [1,S]`` → ``embeds [1,S,H]`` (static too: the runner pads; static
  shapes avoid the dynamic-decoder load wedge the port hit on macOS 27).

The KV cache is two states ``keyCache``/``valueCache [layers, kv_heads, C, D]`` in the compute
dtype, read once per call, updated in place with ``slice_update`` layer by layer, written once.
Inputs and outputs are float32. The embedding table serves ``embed`` (a gather) and the tied
head (``E @ xᵀ``: no transposed copy), kept in float as the port does.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.qwen2vl.config import TextConfig
from .ops import Ops, define_graph, i32, u32

STATE_NAMES = ("keyCache", "valueCache")


def head_table(ops: Ops) -> np.ndarray:
    """The lm_head rows [V, H] (the embedding table when tied), in the compute dtype."""
    name = "lm_head.weight" if "lm_head.weight" in ops.weights else "model.embed_tokens.weight"
    return ops.tensor(name)


def add_decoder(ops: Ops, cfg: TextConfig, *, chunk: int, context: int, name: str) -> None:
    """Add the decoder over a fixed chunk of ``chunk`` tokens (1 = ``decode``) as graph ``name``."""
    ca = ops.ca
    H, D, L = cfg.hidden_size, cfg.head_dim, cfg.num_hidden_layers
    nq, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    rep, S, C, V = nq // nkv, int(chunk), int(context), cfg.vocab_size
    f32 = np.float32
    inputs = [("inputs_embeds", (1, S, H), f32), ("cos", (1, S, D), f32), ("sin", (1, S, D), f32),
              ("mask", (1, 1, S, C), f32), ("pos", (1,), np.int32)]
    if S > 1:
        inputs.append(("last_index", (1,), np.int32))
    states = [(n, (L, nkv, C, D), ops.dt) for n in STATE_NAMES]

    def body(inputs_embeds, cos, sin, mask, pos, *rest):
        last_index = rest[0] if S > 1 else None
        (kc, write_k), (vc, write_v) = rest[-2:]
        x = ops.from_f32(ca.reshape(inputs_embeds, u32(S, H)))
        cos3 = ops.from_f32(ca.reshape(cos, u32(S, 1, D)))  # every head
        sin3 = ops.from_f32(ca.reshape(sin, u32(S, 1, D)))
        m = ops.from_f32(ca.reshape(mask, u32(S, C)))
        if rep > 1:  # rows of the stacked q heads of one kv head: head r, token s at r·S + s
            m = ca.tile(m, u32(rep, 1))
        m = ca.reshape(m, u32(1, rep * S, C))
        end_pos = ca.broadcasting_add(pos, i32(S))
        for i in range(L):
            p = f"model.layers.{i}."
            h = ops.rms_norm(x, p + "input_layernorm.weight", cfg.rms_norm_eps)
            q = ca.reshape(ops.linear(h, p + "self_attn.q_proj.weight", p + "self_attn.q_proj.bias"), u32(S, nq, D))
            k = ca.reshape(ops.linear(h, p + "self_attn.k_proj.weight", p + "self_attn.k_proj.bias"), u32(S, nkv, D))
            v = ca.reshape(ops.linear(h, p + "self_attn.v_proj.weight", p + "self_attn.v_proj.bias"), u32(S, nkv, D))
            q, k = ops.rotary(q, cos3, sin3, D), ops.rotary(k, cos3, sin3, D)
            # write this chunk's keys/values at [i, :, pos:pos+S, :]
            begin = ca.concat(np.int32(0), [i32(i, 0), pos, i32(0)])
            end = ca.concat(np.int32(0), [i32(i + 1, nkv), end_pos, i32(D)])
            k_new = ca.reshape(ca.transpose(k, u32(1, 0, 2)), u32(1, nkv, S, D))
            v_new = ca.reshape(ca.transpose(v, u32(1, 0, 2)), u32(1, nkv, S, D))
            kc = ca.slice_update(kc, begin, end, i32(1, 1, 1, 1), k_new)
            vc = ca.slice_update(vc, begin, end, i32(1, 1, 1, 1), v_new)
            k_l = ca.reshape(ca.slice_(kc, i32(i, 0, 0, 0), i32(i + 1, nkv, C, D), i32(1, 1, 1, 1)), u32(nkv, C, D))
            v_l = ca.reshape(ca.slice_(vc, i32(i, 0, 0, 0), i32(i + 1, nkv, C, D), i32(1, 1, 1, 1)), u32(nkv, C, D))
            # kv head g serves q heads g·rep … g·rep+rep−1: stack them along the row axis
            q_g = ca.reshape(ca.transpose(q, u32(1, 0, 2)), u32(nkv, rep * S, D))
            a = ops.attention(q_g, k_l, v_l, m, D)
            a = ca.reshape(ca.transpose(ca.reshape(a, u32(nq, S, D)), u32(1, 0, 2)), u32(S, nq * D))
            x = ca.broadcasting_add(x, ops.linear(a, p + "self_attn.o_proj.weight"))
            h = ops.rms_norm(x, p + "post_attention_layernorm.weight", cfg.rms_norm_eps)
            gate = ca.silu(ops.linear(h, p + "mlp.gate_proj.weight"))
            up = ops.linear(h, p + "mlp.up_proj.weight")
            x = ca.broadcasting_add(x, ops.linear(ca.broadcasting_mul(gate, up), p + "mlp.down_proj.weight"))
        write_k(kc)
        write_v(vc)
        if last_index is not None:  # only the row the host wants logits for goes through the head
            row_end = ca.broadcasting_add(last_index, i32(1))
            x = ca.slice_(x, ca.concat(np.int32(0), [last_index, i32(0)]),
                          ca.concat(np.int32(0), [row_end, i32(H)]), i32(1, 1))
        elif S > 1:
            x = ca.slice_(x, i32(S - 1, 0), i32(S, H), i32(1, 1))
        x = ops.rms_norm(x, "model.norm.weight", cfg.rms_norm_eps)
        logits = ca.batch_matmul(head_table(ops), ca.transpose(x, u32(1, 0)))  # [V, 1]
        return [ops.f32(ca.reshape(logits, u32(1, 1, V)))]

    define_graph(name, inputs, [("logits", (1, 1, V), f32)], body, states)


def add_embed(ops: Ops, cfg: TextConfig, *, chunk: int, name: str = "embed") -> None:
    """``input_ids [1, chunk]`` → ``embeds [1, chunk, H]`` (float32) from the embedding table."""
    ca = ops.ca
    H, S = cfg.hidden_size, int(chunk)
    table = ops.tensor("model.embed_tokens.weight")

    def body(input_ids):
        rows = ca.gather_nd(table, ca.reshape(input_ids, u32(S, 1)))
        return [ops.f32(ca.reshape(rows, u32(1, S, H)))]

    define_graph(name, [("input_ids", (1, S), np.int32)], [("embeds", (1, S, H), np.float32)], body)


def decoder_module(weights: Mapping[str, np.ndarray], cfg: TextConfig, *, chunk: int, context: int,
                   compute: str = "f32", storage: str | None = None):
    """A ``ca.Module`` holding ``prefill``, ``decode`` and ``embed`` over one set of weights."""
    ops = Ops(weights, compute, storage)
    m = ops.ca.Module.create()
    with m:  # leaving the block runs the pre-compilation rewrite (shape checks)
        add_decoder(ops, cfg, chunk=chunk, context=context, name="prefill")
        add_decoder(ops, cfg, chunk=1, context=context, name="decode")
        add_embed(ops, cfg, chunk=chunk)
    return m
