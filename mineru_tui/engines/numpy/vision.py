"""Qwen2-VL vision tower (ViT + PatchMerger) forward pass in numpy, float32.

``pixel_values [N, 1176]`` (rows in merge-window-major patch order, columns (C, T, py, px)) →
``image_embeds [N/4, out_hidden]``, one row per ``<|image_pad|>`` token, in the same order.
Several images per call are supported: attention is full inside each image (frame) and absent
across images (``cu_seqlens`` semantics), so one call on [img1; img2] equals two calls.
See ``qwen2vl-numerics.md`` §2.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mineru_tui.engines.qwen2vl.config import VisionConfig
from .ops import gelu_erf, layer_norm, linear, num_threads, quick_gelu_, row_chunks, run_parallel, softmax_
from mineru_tui.engines.qwen2vl.rope import apply_rotary, vision_cos_sin

# Attention is computed per head in blocks of this many query rows. Measured ~2x faster than all
# heads at once; 128 rows beat 256 by ~8 % and a whole [N, N] segment per head is ~25 % slower
# (engine-bench.md).
ATTN_QUERY_ROWS = 128
# Rows of patches per task in the row-parallel phases of a block (LN, linears, rotary, MLP): large
# enough for single-threaded BLAS to run near its peak, small enough to split a page in four.
ROW_CHUNK = 768
# Row sums of exp(scores) below this mean (nearly) every term underflowed: redo with the max shift.
SAFE_SUM_MIN = np.float32(1e-30)


def attention_heads(q_HND: np.ndarray, k_HND: np.ndarray, v_HND: np.ndarray, cu_seqlens) -> np.ndarray:
    """softmax(q kᵀ) v per head, block-diagonal over cu_seqlens segments; q already scaled.

    Heads run on the worker threads (softmax runs on every core too), each in blocks of
    ``ATTN_QUERY_ROWS`` query rows: a [rows, n] score block (1.5 MB at n = 3072) stays in cache
    through softmax, and no [heads, N, N] matrix (1.9 GB for the 5476-patch layout image) is
    ever materialised.
    """
    H, N, D = q_HND.shape
    out_HND = np.empty_like(q_HND)
    segments = list(zip(cu_seqlens[:-1].tolist(), cu_seqlens[1:].tolist()))
    rows = ATTN_QUERY_ROWS

    def one_head(h: int) -> None:
        with np.errstate(over="ignore", invalid="ignore"):  # overflowing rows are redone below
            head(h)

    def head(h: int) -> None:
        scores_buf = np.empty((min(rows, N), max(b - a for a, b in segments)), np.float32)  # reused
        for a, b in segments:  # images (frames) never attend to each other
            kT_Dn, v_nD = k_HND[h, a:b].T, v_HND[h, a:b]
            for r0 in range(a, b, rows):
                r1 = min(r0 + rows, b)
                scores_rn = np.matmul(q_HND[h, r0:r1], kT_Dn, out=scores_buf[: r1 - r0, : b - a])
                # Softmax without the max shift: exp(s)/Σexp(s) is as exact as exp(s−m)/Σexp(s−m)
                # while no score overflows (s > 88) or every score underflows (all s < −87); both
                # show in the row sums, and only those rows are redone with the shift. Saves the
                # max and subtract passes (≈ 6 % of attention).
                np.exp(scores_rn, out=scores_rn)
                sums_r1 = scores_rn.sum(axis=-1, keepdims=True)
                # normalise the [rows, D] output instead of the [rows, n] probabilities
                o_rD = np.matmul(scores_rn, v_nD, out=out_HND[h, r0:r1])
                ok = np.isfinite(sums_r1) & (sums_r1 > SAFE_SUM_MIN)
                if ok.all():
                    o_rD /= sums_r1
                    continue
                bad = np.flatnonzero(~ok[:, 0])
                o_rD[ok[:, 0]] /= sums_r1[ok[:, 0]]
                o_rD[bad] = softmax_(q_HND[h, r0 + bad] @ kT_Dn) @ v_nD  # the shifted softmax

    run_parallel(one_head, H)
    return out_HND


def vision_cu_seqlens(grid_thws: Sequence[Sequence[int]]) -> np.ndarray:
    """[0, cumsum(h·w repeated t times)]: one attention segment per image frame."""
    lengths = [int(h) * int(w) for t, h, w in grid_thws for _ in range(int(t))]
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


class VisionTower:
    """The ViT of Qwen2-VL, reading its weights by checkpoint key (``visual.…``).

    ``weights`` maps legacy checkpoint names to float32 arrays (memory maps are fine: nothing is
    copied). Call it with ``(pixel_values [N, 1176], grid_thws)``.
    """

    def __init__(self, weights: Mapping[str, np.ndarray], cfg: VisionConfig, prefix: str = "visual."):
        self.cfg = cfg
        self.heads = cfg.num_heads
        self.head_dim = cfg.head_dim
        self.merge = cfg.spatial_merge_size

        def w(name: str) -> np.ndarray:
            return np.asarray(weights[prefix + name])  # base-class view of a memmap, no copy

        E = cfg.embed_dim
        # Conv3d with kernel == stride over (C, T, P, P)-ordered rows is a plain matmul
        self.patch_W_EK = w("patch_embed.proj.weight").reshape(E, -1)
        self.blocks = []
        for i in range(cfg.depth):
            p = f"blocks.{i}."
            self.blocks.append(
                {
                    name: w(p + name)
                    for name in (
                        "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
                        "attn.qkv.weight", "attn.qkv.bias", "attn.proj.weight", "attn.proj.bias",
                        "mlp.fc1.weight", "mlp.fc1.bias", "mlp.fc2.weight", "mlp.fc2.bias",
                    )
                }
            )  # fmt: skip
        self.merger = {
            name: w("merger." + name)
            for name in ("ln_q.weight", "ln_q.bias", "mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias")
        }

    # ------------------------------------------------------------------ pieces

    def block(self, x_NE: np.ndarray, blk: Mapping[str, np.ndarray], rot: tuple, cu_seqlens) -> np.ndarray:
        """x += proj(attn(LN1 x)); x += fc2(quick_gelu(fc1(LN2 x))) — x is updated in place.

        Three parallel phases: row chunks (LN1, qkv, rotary) → heads (attention) → row chunks
        (proj, LN2, MLP). Row chunks of ``ROW_CHUNK`` patches run on the worker threads with
        single-threaded BLAS, so LayerNorm, bias, rotary and GELU run on every core and while their
        chunk is still in cache (≈ 7 % faster per block than whole-matrix passes).
        """
        N = x_NE.shape[0]
        H, D = self.heads, self.head_dim
        eps = self.cfg.layer_norm_eps
        cos_q_ND, sin_q_ND, cos_ND, sin_ND = rot
        q_HND = np.empty((H, N, D), np.float32)
        k_HND = np.empty((H, N, D), np.float32)
        v_HND = np.empty((H, N, D), np.float32)
        chunks = row_chunks(N, ROW_CHUNK, multiple=num_threads())

        def qkv_rows(i: int) -> None:
            a, b = chunks[i]
            h = layer_norm(x_NE[a:b], blk["norm1.weight"], blk["norm1.bias"], eps)
            qkv_n3HD = linear(h, blk["attn.qkv.weight"], blk["attn.qkv.bias"]).reshape(b - a, 3, H, D)
            # written head-major ([H, n, D] views): each head's attention then reads contiguous rows
            apply_rotary(qkv_n3HD[:, 0], cos_q_ND[a:b, None], sin_q_ND[a:b, None], out=q_HND[:, a:b].transpose(1, 0, 2))
            apply_rotary(qkv_n3HD[:, 1], cos_ND[a:b, None], sin_ND[a:b, None], out=k_HND[:, a:b].transpose(1, 0, 2))
            v_HND[:, a:b] = qkv_n3HD[:, 2].transpose(1, 0, 2)

        run_parallel(qkv_rows, len(chunks))
        out_HND = attention_heads(q_HND, k_HND, v_HND, cu_seqlens)

        def mlp_rows(i: int) -> None:
            a, b = chunks[i]
            x_nE = x_NE[a:b]
            attn_nE = out_HND[:, a:b].transpose(1, 0, 2).reshape(b - a, H * D)
            x_nE += linear(attn_nE, blk["attn.proj.weight"], blk["attn.proj.bias"])
            h = layer_norm(x_nE, blk["norm2.weight"], blk["norm2.bias"], eps)
            h_nF = quick_gelu_(linear(h, blk["mlp.fc1.weight"], blk["mlp.fc1.bias"]))
            x_nE += linear(h_nF, blk["mlp.fc2.weight"], blk["mlp.fc2.bias"])

        run_parallel(mlp_rows, len(chunks))
        return x_NE

    def merge_patches(self, x_NE: np.ndarray) -> np.ndarray:
        """PatchMerger: LN per patch, 2×2 windows (consecutive rows) → MLP with exact GELU."""
        m = self.merger
        h = layer_norm(x_NE, m["ln_q.weight"], m["ln_q.bias"], self.cfg.layer_norm_eps)
        h_TM = h.reshape(-1, x_NE.shape[1] * self.merge**2)
        h_TM = gelu_erf(linear(h_TM, m["mlp.0.weight"], m["mlp.0.bias"]))
        return linear(h_TM, m["mlp.2.weight"], m["mlp.2.bias"])

    # ------------------------------------------------------------------ forward

    def __call__(
        self,
        pixel_values_NK: np.ndarray,
        grid_thws: Sequence[Sequence[int]],
        capture: dict[str, np.ndarray] | None = None,
        check: Callable[[], None] | None = None,
    ) -> np.ndarray:
        """image_embeds [N/merge², out_hidden] for the concatenated patches of ``grid_thws``.

        ``capture``, when given, receives the intermediate tensors under the oracle's names
        (``vis.patch_embed``, ``vis.block{i}``, ``vis.merger_ln_q``) — for tests. ``check`` is
        called between blocks (the host's cancel hook; it may raise).
        """
        grid_thws = [tuple(int(v) for v in g) for g in grid_thws]
        N = sum(t * h * w for t, h, w in grid_thws)
        if pixel_values_NK.ndim != 2 or pixel_values_NK.shape != (N, self.patch_W_EK.shape[1]):
            raise ValueError(
                f"pixel_values has shape {pixel_values_NK.shape}, grids {grid_thws} need ({N}, {self.patch_W_EK.shape[1]})"
            )
        x_NE = linear(np.asarray(pixel_values_NK, dtype=np.float32), self.patch_W_EK)
        if capture is not None:
            capture["vis.patch_embed"] = x_NE.copy()
        cos_ND, sin_ND = vision_cos_sin(grid_thws, self.head_dim, self.cfg.rope_theta, self.merge)
        # q's 1/sqrt(D) scale folded into its cos/sin: one pass fewer per block, same result to 1 ulp
        scale = np.float32(self.head_dim**-0.5)
        rot = (cos_ND * scale, sin_ND * scale, cos_ND, sin_ND)
        cu_seqlens = vision_cu_seqlens(grid_thws)
        for i, blk in enumerate(self.blocks):
            if check is not None:
                check()
            x_NE = self.block(x_NE, blk, rot, cu_seqlens)
            if capture is not None:
                capture[f"vis.block{i}"] = x_NE.copy()
        if capture is not None:
            m = self.merger
            capture["vis.merger_ln_q"] = layer_norm(x_NE, m["ln_q.weight"], m["ln_q.bias"], self.cfg.layer_norm_eps)
        return self.merge_patches(x_NE)
