"""The Qwen2-VL vision tower (ViT + PatchMerger) as Core AI functions (``coreai.authoring``).

The Core ML bundle's contract (``engines/coreml/mil_vision.py``), one image per call padded to a bucket
of N patches:

    pixel_values [N, 1176]   cos, sin [N, head_dim]   key_mask [1, N]   →   image_embeds [N/4, out]

The buckets are enumerated shapes: one static function ``main_n<N>`` per bucket (what
``AIProgram.set_static_shape_config`` makes, written directly), all sharing one copy of the
weights; the runner picks the function from the rows it is fed. ``key_mask`` is additive (0 for
real patches, −1e4 for padding), so padded patches are never attended to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mineru_tui.engines.qwen2vl.config import VisionConfig
from .ops import Ops, define_graph, u32

PREFIX = "visual."


def function_name(patches: int) -> str:
    return f"main_n{int(patches)}"


def bucket_of(function: str) -> int | None:
    """The bucket size of a vision function name, None for another name."""
    head, _, n = function.rpartition("_n")
    return int(n) if head == "main" and n.isdigit() else None


def add_vision(ops: Ops, cfg: VisionConfig, patches: int, *, grid: tuple[int, int] | None = None,
               name: str | None = None, input_name: str = "pixel_values") -> None:
    """One vision function over ``patches`` rows. With ``grid`` (patch rows, cols) the 2-D rotary
    tables are baked in and the only input is the patches (the port's fixed-grid contract: no
    padding, no mask); else cos / sin / key_mask are inputs (our bucket contract)."""
    ca = ops.ca
    E, Hh, D, m = cfg.embed_dim, cfg.num_heads, cfg.head_dim, cfg.spatial_merge_size
    K = cfg.in_channels * cfg.temporal_patch_size * cfg.patch_size**2
    N, out = int(patches), cfg.hidden_size
    eps = cfg.layer_norm_eps
    f32 = np.float32
    patch_w = np.asarray(ops.weights[PREFIX + "patch_embed.proj.weight"], np.float32).reshape(E, -1)
    patch_w = ops._once(("patch_embed", "2d"), lambda: patch_w)  # one array for every bucket

    def lin(x, name, bias=True):
        return ops.linear(x, PREFIX + name + ".weight", PREFIX + name + ".bias" if bias else None, quantize=False)

    def body(pixel_values, cos=None, sin=None, key_mask=None):
        if grid is not None:
            from mineru_tui.engines.qwen2vl.rope import vision_cos_sin

            c, s_ = vision_cos_sin([(1, grid[0], grid[1])], D, cfg.rope_theta, m)
            cos, sin, key_mask = c.astype(np.float32), s_.astype(np.float32), np.zeros((1, N), np.float32)
        # Conv3d with kernel == stride over (C, T, P, P)-ordered rows is a plain matmul
        x = ops.linear(ops.from_f32(pixel_values), PREFIX + "patch_embed.proj.weight", quantize=False, weight=patch_w)
        cos3 = ops.from_f32(ca.reshape(cos, u32(N, 1, D)))
        sin3 = ops.from_f32(ca.reshape(sin, u32(N, 1, D)))
        mask = ops.from_f32(ca.reshape(key_mask, u32(1, 1, N)))  # every head and query row
        for i in range(cfg.depth):
            p = f"blocks.{i}."
            h = ops.layer_norm(x, PREFIX + p + "norm1.weight", PREFIX + p + "norm1.bias", eps)
            q, k, v = (ca.reshape(t, u32(N, Hh, D)) for t in ca.split(lin(h, p + "attn.qkv"), u32(E, E, E), np.int32(1)))
            q, k = ops.rotary(q, cos3, sin3, D), ops.rotary(k, cos3, sin3, D)
            q, k, v = (ca.transpose(t, u32(1, 0, 2)) for t in (q, k, v))  # [heads, N, D]
            a = ops.attention(q, k, v, mask, D)
            a = ca.reshape(ca.transpose(a, u32(1, 0, 2)), u32(N, E))
            x = ca.broadcasting_add(x, lin(a, p + "attn.proj"))
            h = ops.layer_norm(x, PREFIX + p + "norm2.weight", PREFIX + p + "norm2.bias", eps)
            h = lin(h, p + "mlp.fc1")
            h = ca.broadcasting_mul(h, ca.sigmoid(ca.broadcasting_mul(h, ops.k(1.702))))  # quick_gelu
            x = ca.broadcasting_add(x, lin(h, p + "mlp.fc2"))
        h = ops.layer_norm(x, PREFIX + "merger.ln_q.weight", PREFIX + "merger.ln_q.bias", eps)
        h = ca.reshape(h, u32(N // (m * m), E * m * m))  # 2×2 windows are consecutive rows
        h = ca.gelu(lin(h, "merger.mlp.0"), approximate="none")
        return [ops.f32(lin(h, "merger.mlp.2"))]

    inputs = [(input_name, (N, K), f32)]
    if grid is None:
        inputs += [("cos", (N, D), f32), ("sin", (N, D), f32), ("key_mask", (1, N), f32)]
    define_graph(name or function_name(N), inputs, [("image_embeds", (N // (m * m), out), f32)], body)


def vision_module(weights: Mapping[str, np.ndarray], cfg: VisionConfig, buckets: Sequence[int], *,
                  compute: str = "f32"):
    """A ``ca.Module`` with one vision function per bucket (the tower stays in float)."""
    ops = Ops(weights, compute)
    mod = ops.ca.Module.create()
    with mod:
        for n in sorted(set(int(b) for b in buckets)):
            add_vision(ops, cfg, n)
    return mod
