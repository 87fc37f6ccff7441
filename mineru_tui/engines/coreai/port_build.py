"""Bundles in the folder layout and I/O contract of the MinerU2.5-Pro Core AI port
(``mlboydaisuke/MinerU2.5-Pro-CoreAI``), authored from a checkpoint — so the reader of that
layout (:mod:`.port`) is tested here on a tiny bundle with the identical interface.

    <dir>/vision/vision.aimodel + metadata.json          recognition grid: 672×896 letterbox (768 tokens)
    <dir>/decoder/decoder.aimodel + metadata.json
    <dir>/layout/vision/ ...  <dir>/layout/decoder/ ...  layout grid: 1036² stretch (1369 tokens)
    <dir>/tokenizer/                                     the checkpoint's tokenizer files

Decoder functions ``main`` (S = 1) and ``prefill`` (S = 64) share the weights:

    input_ids [1,S] int32 (image placeholders rewritten to vocab_size + slot)
    position_ids [1,total] int32 (the ramp 0…total−1; the query rows are its last S)
    image_embeds [N,H] (zeros for text only)   rope_shift_start [1]   rope_shift_amount [1]
    states keyCache / valueCache [layers, 1, kv_heads, T, head_dim] (T chosen by the host)
    → logits [1,S,V]

In the graph: the token embedding or ``image_embeds[slot]``; M-RoPE positions located from the
ids (image token: t = s0, h = s0 + row, w = s0 + col with s0 = rope_shift_start − N; text after
the image shifted back by rope_shift_amount); K/V written at total − S; the causal mask built
from positions. Vision: ``patches [4N, 1176]`` (merge-window-major, as our preprocessing makes
them) → ``image_embeds [N, H]``, the 2-D rotary baked for the fixed grid.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mineru_tui.engines.bundle_files.building import building, source_checkpoint
from mineru_tui.engines.qwen2vl.config import TextConfig
from .authoring import authoring
from .ops import Ops, define_graph, i32, u32
from .text import STATE_NAMES, head_table
from .vision import add_vision

PREFILL = 64
# (folder, merged grid rows × cols): the port's fixed grids
GRIDS = {"": (32, 24), "layout": (37, 37)}
DEFAULT_CONTEXT = 4096
TEXT_ONLY_START = 1 << 30  # rope_shift_start for a request without an image


def add_port_decoder(ops: Ops, cfg: TextConfig, *, chunk: int, n_image: int, grid: tuple[int, int], name: str) -> None:
    ca = ops.ca
    H, D, L = cfg.hidden_size, cfg.head_dim, cfg.num_hidden_layers
    nq, nkv = cfg.num_attention_heads, cfg.num_key_value_heads
    rep, S, V, N = nq // nkv, int(chunk), cfg.vocab_size, int(n_image)
    gw = grid[1]
    inputs = [("input_ids", (1, S), np.int32), ("position_ids", (1, -1), np.int32),
              ("image_embeds", (N, H), np.float32), ("rope_shift_start", (1,), np.int32),
              ("rope_shift_amount", (1,), np.int32)]
    states = [(n, (L, 1, nkv, -1, D), ops.dt) for n in STATE_NAMES]
    inv_freq = (1.0 / (cfg.rope_theta ** (np.arange(0, D, 2, dtype=np.float64) / D))).astype(np.float32)
    stream = np.repeat(np.arange(3), list(cfg.mrope_section))  # which stream feeds frequency j

    def shape(*parts):  # a run-time shape (reshape wants uint32)
        return ca.cast(ca.concat(np.int32(0), list(parts)), np.uint32)

    def body(input_ids, position_ids, image_embeds, shift_start, shift_amount, kv_k, kv_v):
        (kc, write_k), (vc, write_v) = kv_k, kv_v
        total = ca.slice_(ca.cast(ca.get_shape(position_ids), np.int32), i32(1), i32(2), i32(1))  # [1]
        offset = ca.broadcasting_sub(total, i32(S))
        ids = ca.reshape(input_ids, u32(S))
        # the query rows' positions: the last S entries of the ramp
        pos = ca.reshape(ca.slice_(position_ids, ca.concat(np.int32(0), [i32(0), offset]),
                                   ca.concat(np.int32(0), [i32(1), total]), i32(1, 1)), u32(S))
        is_img = ca.broadcasting_greater(ids, i32(V - 1))
        slot = ca.broadcasting_where(is_img, ca.broadcasting_sub(ids, i32(V)), i32(0))
        tok = ca.broadcasting_where(is_img, i32(0), ids)
        emb = ca.gather_nd(ops.tensor("model.embed_tokens.weight"), ca.reshape(tok, u32(S, 1)))
        img = ops.from_f32(ca.gather_nd(image_embeds, ca.reshape(slot, u32(S, 1))))
        x = ca.broadcasting_where(ca.reshape(is_img, u32(S, 1)), img, emb)
        # M-RoPE positions (t, h, w) per query row
        s0 = ca.broadcasting_sub(shift_start, i32(N))
        text_pos = ca.broadcasting_where(ca.broadcasting_greater(pos, ca.broadcasting_sub(shift_start, i32(1))),
                                         ca.broadcasting_sub(pos, shift_amount), pos)
        row = ca.broadcasting_floor_divide(slot, i32(gw))
        col = ca.broadcasting_modulo(slot, i32(gw))
        t = ca.broadcasting_where(is_img, ca.broadcast_to(s0, u32(S)), text_pos)
        h = ca.broadcasting_where(is_img, ca.broadcasting_add(s0, row), text_pos)
        w = ca.broadcasting_where(is_img, ca.broadcasting_add(s0, col), text_pos)
        thw = ca.cast(ca.concat(np.int32(0), [ca.reshape(t, u32(1, S)), ca.reshape(h, u32(1, S)),
                                              ca.reshape(w, u32(1, S))]), np.float32)  # [3, S]
        pos_SF = ca.transpose(ca.gather_nd(thw, stream.astype(np.int32).reshape(-1, 1)), u32(1, 0))  # [S, F]
        ang = ca.broadcasting_mul(pos_SF, inv_freq[None])
        ang = ca.concat(np.int32(1), [ang, ang])
        cos3 = ops.from_f32(ca.reshape(ca.cos(ang), u32(S, 1, D)))
        sin3 = ops.from_f32(ca.reshape(ca.sin(ang), u32(S, 1, D)))
        # causal mask over the T cache slots: key j visible to query s when j <= offset + s
        T = ca.slice_(ca.cast(ca.get_shape(kc), np.int32), i32(3), i32(4), i32(1))
        kpos = ca.expand_dims(ca.range_(np.int32(0), ca.reshape(T, u32()), np.int32(1)), i32(0))  # [1, T]
        qpos = ca.reshape(ca.broadcasting_add(ca.range_(np.int32(0), np.int32(S), np.int32(1)), offset), u32(S, 1))
        m = ca.broadcasting_where(ca.broadcasting_greater(kpos, qpos), ops.k(-1e4), ops.k(0.0))  # [S, T]
        if rep > 1:
            m = ca.tile(m, u32(rep, 1))
        end_pos = total
        for i in range(L):
            p = f"model.layers.{i}."
            hN = ops.rms_norm(x, p + "input_layernorm.weight", cfg.rms_norm_eps)
            q = ca.reshape(ops.linear(hN, p + "self_attn.q_proj.weight", p + "self_attn.q_proj.bias"), u32(S, nq, D))
            k = ca.reshape(ops.linear(hN, p + "self_attn.k_proj.weight", p + "self_attn.k_proj.bias"), u32(S, nkv, D))
            v = ca.reshape(ops.linear(hN, p + "self_attn.v_proj.weight", p + "self_attn.v_proj.bias"), u32(S, nkv, D))
            q, k = ops.rotary(q, cos3, sin3, D), ops.rotary(k, cos3, sin3, D)
            begin = ca.concat(np.int32(0), [i32(i, 0, 0), offset, i32(0)])
            end = ca.concat(np.int32(0), [i32(i + 1, 1, nkv), end_pos, i32(D)])
            k_new = ca.reshape(ca.transpose(k, u32(1, 0, 2)), u32(1, 1, nkv, S, D))
            v_new = ca.reshape(ca.transpose(v, u32(1, 0, 2)), u32(1, 1, nkv, S, D))
            kc = ca.slice_update(kc, begin, end, i32(1, 1, 1, 1, 1), k_new)
            vc = ca.slice_update(vc, begin, end, i32(1, 1, 1, 1, 1), v_new)
            lay_end = ca.concat(np.int32(0), [i32(i + 1, 1, nkv), T, i32(D)])
            k_l = ca.reshape(ca.slice_(kc, i32(i, 0, 0, 0, 0), lay_end, i32(1, 1, 1, 1, 1)), shape(i32(nkv), T, i32(D)))
            v_l = ca.reshape(ca.slice_(vc, i32(i, 0, 0, 0, 0), lay_end, i32(1, 1, 1, 1, 1)), shape(i32(nkv), T, i32(D)))
            q_g = ca.reshape(ca.transpose(q, u32(1, 0, 2)), u32(nkv, rep * S, D))
            a = ops.attention(q_g, k_l, v_l, m, D)
            a = ca.reshape(ca.transpose(ca.reshape(a, u32(nq, S, D)), u32(1, 0, 2)), u32(S, nq * D))
            x = ca.broadcasting_add(x, ops.linear(a, p + "self_attn.o_proj.weight"))
            hN = ops.rms_norm(x, p + "post_attention_layernorm.weight", cfg.rms_norm_eps)
            gate = ca.silu(ops.linear(hN, p + "mlp.gate_proj.weight"))
            up = ops.linear(hN, p + "mlp.up_proj.weight")
            x = ca.broadcasting_add(x, ops.linear(ca.broadcasting_mul(gate, up), p + "mlp.down_proj.weight"))
        write_k(kc)
        write_v(vc)
        x = ops.rms_norm(x, "model.norm.weight", cfg.rms_norm_eps)
        logits = ca.transpose(ca.batch_matmul(head_table(ops), ca.transpose(x, u32(1, 0))), u32(1, 0))  # [S, V]
        return [ops.f32(ca.reshape(logits, u32(1, S, V)))]

    define_graph(name, inputs, [("logits", (1, S, V), np.float32)], body, states)


def _metadata(kind: str, asset: str, extra: dict | None = None) -> dict:
    return {"metadata_version": "0.2", "kind": kind, "assets": {"main": asset}, **(extra or {})}


def build_port_layout(model: str, out: str | os.PathLike[str], *, compute: str = "f32", weights: str | None = None,
                      context: int = DEFAULT_CONTEXT, progress: Callable[[str], None] | None = None) -> Path:
    """Write a bundle in the port's folder layout for ``model`` into ``out`` (see the module docstring)."""
    ca = authoring()
    t0 = time.time()
    say = (lambda m: progress(f"[{time.time() - t0:6.1f} s] {m}")) if progress else (lambda m: None)
    checkpoint = source_checkpoint(model)
    tc, vc = checkpoint.config.text, checkpoint.config.vision
    m2 = vc.spatial_merge_size ** 2
    out = Path(out).expanduser()
    with building(out) as work:
        for folder, (gh, gw) in GRIDS.items():
            n = gh * gw
            base = work / folder if folder else work
            say(f"{folder or 'recognition'}: vision ({gh}×{gw} merged grid, {n * m2} patches)")
            ops = Ops(checkpoint.weights, compute)
            mod = ca.Module.create()
            with mod:
                add_vision(ops, vc, n * m2, grid=(gh * vc.spatial_merge_size, gw * vc.spatial_merge_size),
                           name="main", input_name="patches")
            (base / "vision").mkdir(parents=True)
            ca.AIProgram(mod).save_asset(base / "vision" / "vision.aimodel")
            (base / "vision" / "metadata.json").write_text(json.dumps(_metadata("vision", "vision.aimodel"), indent=1))
            say(f"{folder or 'recognition'}: decoder (main + prefill {PREFILL}, {n} image slots)")
            ops = Ops(checkpoint.weights, compute, weights)
            mod = ca.Module.create()
            with mod:
                add_port_decoder(ops, tc, chunk=1, n_image=n, grid=(gh, gw), name="main")
                add_port_decoder(ops, tc, chunk=PREFILL, n_image=n, grid=(gh, gw), name="prefill")
            (base / "decoder").mkdir(parents=True)
            ca.AIProgram(mod).save_asset(base / "decoder" / "decoder.aimodel")
            lang = {"language": {"tokenizer": "../tokenizer" if not folder else "../../tokenizer",
                                 "vocab_size": tc.vocab_size, "max_context_length": int(context),
                                 "function_map": {"main": ["main", "prefill"]}}}
            (base / "decoder" / "metadata.json").write_text(json.dumps(_metadata("llm", "decoder.aimodel", lang), indent=1))
        (work / "tokenizer").mkdir()
        for p in checkpoint.path.iterdir():
            if p.is_file() and (p.name.startswith("tokenizer") or p.name in ("vocab.json", "merges.txt",
                                                                            "special_tokens_map.json")):
                shutil.copy(p, work / "tokenizer" / p.name)
    say(f"port-layout bundle ready: {out}")
    return out
