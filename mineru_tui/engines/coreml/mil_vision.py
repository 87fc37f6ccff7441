"""The Qwen2-VL vision tower (ViT + PatchMerger) as a MIL program (coremltools builder, no torch).

One image per call, padded to a fixed bucket of N patches (N a multiple of 4, the merge window):

    pixel_values [N, 1176]   cos, sin [N, head_dim]   key_mask [1, N]   →   image_embeds [N/4, out]

cos/sin are the 2-D rotary tables computed on the host (``rope.vision_cos_sin``); ``key_mask``
is additive (0 for real patches, −1e4 for padding) so padded patches are never attended to —
without it a padded bucket is wrong (0.81 max error measured, coreml-build.md §5). Padded rows
produce garbage embeds that the host drops (real patches come first, in whole 2×2 windows).
N is symbolic here; the converter gets the bucket list as enumerated shapes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mineru_tui.engines.qwen2vl.config import VisionConfig
from .mil_ops import layer_norm, linear, mb, rotary

PAD_MASK = -1e4  # additive key mask of padding patches (finite: fp16 arithmetic)


def vision_program(weights: Mapping[str, np.ndarray], cfg: VisionConfig, *, patches: int | None = None,
                   prefix: str = "visual."):
    """The vision tower; ``patches`` fixes N (None: symbolic, for enumerated bucket shapes)."""
    b = mb()
    from coremltools.converters.mil.mil import get_new_symbol, types

    from .mil_text import _target

    E, Hh, D, m = cfg.embed_dim, cfg.num_heads, cfg.head_dim, cfg.spatial_merge_size
    K = cfg.in_channels * cfg.temporal_patch_size * cfg.patch_size**2
    eps = cfg.layer_norm_eps
    N = patches if patches is not None else get_new_symbol()

    def w(name: str) -> np.ndarray:
        return np.asarray(weights[prefix + name], np.float32)

    specs = [
        b.TensorSpec((N, K), dtype=types.fp32),
        b.TensorSpec((N, D), dtype=types.fp32),
        b.TensorSpec((N, D), dtype=types.fp32),
        b.TensorSpec((1, N), dtype=types.fp32),
    ]

    @b.program(input_specs=specs, opset_version=_target())
    def prog(pixel_values, cos, sin, key_mask):
        # Conv3d with kernel == stride over (C, T, P, P)-ordered rows is a plain matmul
        x = linear(pixel_values, w("patch_embed.proj.weight").reshape(E, -1))
        cos3, sin3 = b.expand_dims(x=cos, axes=[0]), b.expand_dims(x=sin, axes=[0])  # [1,N,D]: all heads
        mask3 = b.expand_dims(x=key_mask, axes=[0])  # [1,1,N] → every head and query row
        for i in range(cfg.depth):
            p = f"blocks.{i}."
            h = layer_norm(x, w(p + "norm1.weight"), w(p + "norm1.bias"), eps)
            qkv = b.reshape(x=linear(h, w(p + "attn.qkv.weight"), w(p + "attn.qkv.bias")), shape=[-1, 3, Hh, D])
            q, k, v = (b.transpose(x=b.squeeze(x=t, axes=[1]), perm=[1, 0, 2])  # [H,N,D]
                       for t in b.split(x=qkv, num_splits=3, axis=1))
            q, k = rotary(q, cos3, sin3, D), rotary(k, cos3, sin3, D)
            a = b.scaled_dot_product_attention(query=q, key=k, value=v, attn_mask=mask3)
            a = b.reshape(x=b.transpose(x=a, perm=[1, 0, 2]), shape=[-1, E])
            x = b.add(x=x, y=linear(a, w(p + "attn.proj.weight"), w(p + "attn.proj.bias")))
            h = layer_norm(x, w(p + "norm2.weight"), w(p + "norm2.bias"), eps)
            h = linear(h, w(p + "mlp.fc1.weight"), w(p + "mlp.fc1.bias"))
            h = b.mul(x=h, y=b.sigmoid(x=b.mul(x=h, y=np.float32(1.702))))  # quick_gelu
            x = b.add(x=x, y=linear(h, w(p + "mlp.fc2.weight"), w(p + "mlp.fc2.bias")))
        h = layer_norm(x, w("merger.ln_q.weight"), w("merger.ln_q.bias"), eps)
        h = b.reshape(x=h, shape=[-1, E * m * m])  # 2×2 windows are consecutive rows
        h = b.gelu(x=linear(h, w("merger.mlp.0.weight"), w("merger.mlp.0.bias")), mode="EXACT")
        return b.linear(x=h, weight=w("merger.mlp.2.weight"), bias=w("merger.mlp.2.bias"), name="image_embeds")

    return prog
