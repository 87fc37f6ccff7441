"""The vision tower (32 ViT blocks + PatchMerger) as an OpenVINO model, built from the checkpoint.

Inputs (every dimension dynamic, so one model serves every image size and any number of images):

* ``pixel_values [N, 1176]`` f32 — the patches of one or more images, concatenated;
* the call's images (frames) for attention, in one of two forms — the host fills one and gives
  the other empty inputs (zero rows):

  - **equal**: B frames of L patches each (N = B·L): ``cos``, ``sin [B, L, head_dim]`` f32, the
    2-D rotary tables (host: ``rope.vision_cos_sin``), whose shape gives the graph B and L.
    Nothing is padded, so attention has no mask (the fused kernel is ≈ 7 % faster without one);
  - **padded**: frames of different sizes as a padded batch: ``gather_idx [B·Lmax]`` i64 (row
    ``b·Lmax + j`` is patch ``gather_idx``; padding points anywhere and is masked),
    ``scatter_idx [N]`` i64 (each patch's row back), ``key_mask [B, 1, 1, Lmax]`` f32 (−1e30 on
    padding), ``cos_padded``, ``sin_padded [B·Lmax, head_dim]`` in the padded batch's row order.

Output ``image_embeds [N/4, 896]`` in the order of ``<|image_pad|>`` tokens. Attention is full
inside an image and absent across images (the ``cu_seqlens`` semantics of the numpy tower).
Everything else (LayerNorm, the linears, quick-GELU, the merger's exact GELU) is the numpy
tower's arithmetic.

The attention part of a block is written in the shapes the CPU plugin fuses (checked in its
runtime graph, ``PERF_COUNT``): the fused qkv rows reshaped to ``[B, L, 3H, D]``, a VariadicSplit
into q/k/v and a Transpose to ``[B, H, L, D]``; the rotary ``x·cos + concat(−x₂, x₁)·sin`` on that
rank-4 layout becomes one ``RoPE`` node per tensor (the Split/Negative/Concat/Multiply/Add chain of
a rank-3 layout stays ten separate nodes), and ``ScaledDotProductAttention`` becomes one fused
attention kernel (a snippets ``Subgraph``: tiled matmul–softmax–matmul on AMX where the CPU has
it, no L² score matrix in memory; docs/openvino.md, "The attention kernel").
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.qwen2vl.config import VisionConfig
from .ops import const, i64, layer_norm, linear, opset, rope_fusable

INPUTS = ("pixel_values", "cos", "sin", "cos_padded", "sin_padded", "gather_idx", "scatter_idx", "key_mask")


def build_vision(weights: Mapping[str, np.ndarray], cfg: VisionConfig, wformat: str, prefix: str = "visual."):
    """The ``openvino.Model`` of the vision tower with ``wformat`` linear weights (f32 | int8)."""
    import openvino as ov

    op = opset()
    E, H, D = cfg.embed_dim, cfg.num_heads, cfg.head_dim
    eps = cfg.layer_norm_eps

    def w(name):
        return np.asarray(weights[prefix + name])

    px = op.parameter([-1, cfg.patch_dim], ov.Type.f32, name="pixel_values")
    cos = op.parameter([-1, -1, D], ov.Type.f32, name="cos")
    sin = op.parameter([-1, -1, D], ov.Type.f32, name="sin")
    cos_p = op.parameter([-1, D], ov.Type.f32, name="cos_padded")
    sin_p = op.parameter([-1, D], ov.Type.f32, name="sin_padded")
    gather_idx = op.parameter([-1], ov.Type.i64, name="gather_idx")
    scatter_idx = op.parameter([-1], ov.Type.i64, name="scatter_idx")
    key_mask = op.parameter([-1, 1, 1, -1], ov.Type.f32, name="key_mask")
    params = [px, cos, sin, cos_p, sin_p, gather_idx, scatter_idx, key_mask]

    zero = const(np.int64(0))
    to_bhld = i64(0, 2, 1, 3)
    scale = const(np.float32(D**-0.5))
    # the equal part: [B, L] from the rotary table's shape, its B·L rows first
    B_L = op.gather(op.shape_of(cos, "i64"), i64(0, 1), zero)
    n_equal = op.reduce_prod(B_L, i64(0), True)
    cos4, sin4 = op.unsqueeze(cos, i64(1)), op.unsqueeze(sin, i64(1))  # [B, 1, L, D]
    B_L_3H_D = op.concat([B_L, i64(3 * H, D)], 0)
    no_mask = const(np.zeros((1, 1, 1, 1), np.float32))  # a constant: the fused kernel adds nothing
    # the padded part: [Bp, Lmax] from the mask's shape
    Bp_L = op.gather(op.shape_of(key_mask, "i64"), i64(0, 3), zero)
    Bp_1_L_D = op.concat([op.gather(Bp_L, i64(0), zero), i64(1), op.gather(Bp_L, i64(1), zero), i64(D)], 0)
    cos_p4, sin_p4 = op.reshape(cos_p, Bp_1_L_D, False), op.reshape(sin_p, Bp_1_L_D, False)  # [Bp, 1, Lmax, D]
    Bp_L_3H_D = op.concat([Bp_L, i64(3 * H, D)], 0)

    def attention(qkv, shape, c, s, mask):  # qkv rows in [B, L] order → [B·L, E]
        qkv = op.reshape(qkv, shape, False)  # [B, L, 3H, D]
        q, k, v = (op.transpose(t, to_bhld) for t in op.variadic_split(qkv, i64(2), i64(H, H, H)).outputs())
        q, k = rope_fusable(q, c, s, D // 2), rope_fusable(k, c, s, D // 2)
        a = op.scaled_dot_product_attention(q, k, v, mask, scale, causal=False)  # [B, H, L, D]
        return op.reshape(op.transpose(a, to_bhld), i64(-1, E), False)

    x = linear(px, w("patch_embed.proj.weight").reshape(E, -1), None, wformat)  # Conv3d == matmul
    for i in range(cfg.depth):
        p = f"blocks.{i}."
        h = layer_norm(x, w(p + "norm1.weight"), w(p + "norm1.bias"), eps)
        qkv = linear(h, w(p + "attn.qkv.weight"), w(p + "attn.qkv.bias"), wformat)  # [N, 3E]
        equal = op.slice(qkv, i64(0), n_equal, i64(1), i64(0))  # rows [0, B·L): all or none
        a_equal = attention(equal, B_L_3H_D, cos4, sin4, no_mask)
        a_padded = attention(op.gather(qkv, gather_idx, zero), Bp_L_3H_D, cos_p4, sin_p4, key_mask)
        a = op.concat([a_equal, op.gather(a_padded, scatter_idx, zero)], 0)  # [N, E], the patches in order
        x = op.add(x, linear(a, w(p + "attn.proj.weight"), w(p + "attn.proj.bias"), wformat))
        h = layer_norm(x, w(p + "norm2.weight"), w(p + "norm2.bias"), eps)
        h = linear(h, w(p + "mlp.fc1.weight"), w(p + "mlp.fc1.bias"), wformat)
        h = op.multiply(h, op.sigmoid(op.multiply(h, const(np.float32(1.702)))))  # quick_gelu
        x = op.add(x, linear(h, w(p + "mlp.fc2.weight"), w(p + "mlp.fc2.bias"), wformat))
    m = "merger."
    h = layer_norm(x, w(m + "ln_q.weight"), w(m + "ln_q.bias"), eps)
    h = op.reshape(h, i64(-1, E * cfg.spatial_merge_size**2), False)  # 2×2 windows are consecutive rows
    h = op.gelu(linear(h, w(m + "mlp.0.weight"), w(m + "mlp.0.bias"), wformat), "erf")
    out = linear(h, w(m + "mlp.2.weight"), w(m + "mlp.2.bias"), wformat)
    out.output(0).get_tensor().set_names({"image_embeds"})
    return ov.Model([out], params, "mineru_vision")



def batch_layout(sizes: list[int], offset: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gather_idx, scatter_idx, key_mask) for images of ``sizes`` patches, concatenated from row
    ``offset`` of the call: the padded part of a vision call."""
    B, L = len(sizes), max(sizes)
    gather = np.zeros((B, L), np.int64)
    mask = np.full((B, 1, 1, L), np.float32(-1e30), np.float32)
    scatter = np.empty(sum(sizes), np.int64)
    start = 0
    for b, n in enumerate(sizes):
        gather[b, :n] = offset + np.arange(start, start + n)
        mask[b, 0, 0, :n] = 0
        scatter[start:start + n] = b * L + np.arange(n)
        start += n
    return gather.reshape(-1), scatter, mask
