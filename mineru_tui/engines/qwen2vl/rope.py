"""Rotary position embeddings of Qwen2-VL, computed on the host.

Two kinds:

* the text model's 3-stream M-RoPE: ``get_rope_index`` turns a token sequence with image-pad runs
  into (t, h, w) position ids, and ``mrope_cos_sin`` turns those into the per-token cos/sin the
  decoder forward pass consumes (the forward pass never sees positions, only cos/sin);
* the vision tower's 2-D rotary over each image's patch grid (``vision_cos_sin``), in the
  merge-window-major patch order of ``pixel_values``.

Numerics follow transformers 5.24 (float32 inverse frequencies, float32 angle = pos · inv_freq,
float32 cos/sin); see ``qwen2vl-numerics.md`` §2 and §4.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def rotate_half(x: np.ndarray) -> np.ndarray:
    """cat(-x[..., d/2:], x[..., :d/2]) — pairs dimension j with j + d/2 (HF convention)."""
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rotary(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """x·cos + rotate_half(x)·sin; cos/sin broadcast against x (last dim = head_dim).

    Written half by half into one output (``out``, which may be a strided view, or a new array),
    without materialising rotate_half(x).
    """
    half = x.shape[-1] // 2
    out = np.multiply(x, cos, out=out)
    out[..., :half] -= x[..., half:] * sin[..., :half]
    out[..., half:] += x[..., :half] * sin[..., half:]
    return out


# ----------------------------------------------------------------------------- text (M-RoPE)


def get_rope_index(
    input_ids_L: Sequence[int] | np.ndarray,
    mm_token_type_ids_L: Sequence[int] | np.ndarray,
    image_grid_thw: Sequence[Sequence[int]],
    spatial_merge_size: int = 2,
) -> tuple[np.ndarray, int]:
    """3-stream M-RoPE position ids of one sequence (``Qwen2VLModel.get_rope_index``).

    Tokens are walked in groups of equal ``mm_token_type_ids`` (1 = image pad). A text group of
    n tokens at running position p gets p..p+n-1 on all three streams. The k-th image group, of
    grid (t, H, W) patches, becomes an LLM grid (t, H/m, W/m): stream t = p + frame index, stream
    h = p + row, stream w = p + col (row-major, the order of the image embeds); then p advances by
    max(t, H/m, W/m), not by the number of image tokens.

    Returns ``(position_ids [3, L] int64, rope_delta)`` where rope_delta = max position + 1 − L;
    a token generated at sequence index i later sits at position i + rope_delta on all streams.
    """
    input_ids_L = np.asarray(input_ids_L)
    types_L = np.asarray(mm_token_type_ids_L).astype(np.int64)
    L = int(types_L.shape[0])
    if input_ids_L.shape[0] != L:
        raise ValueError(f"input_ids ({input_ids_L.shape[0]}) and mm_token_type_ids ({L}) differ in length")
    position_ids_3L = np.zeros((3, L), dtype=np.int64)
    pos = 0  # next free position
    i = 0
    image_index = 0
    while i < L:
        j = i
        while j < L and types_L[j] == types_L[i]:
            j += 1
        n = j - i
        if types_L[i] == 0:  # text run
            position_ids_3L[:, i:j] = pos + np.arange(n, dtype=np.int64)
            pos += n
        else:  # image run: one image (several adjacent images would be split by vision_start/end)
            if image_index >= len(image_grid_thw):
                raise ValueError(f"more image-pad runs in the prompt than images ({len(image_grid_thw)})")
            t, h, w = (int(v) for v in image_grid_thw[image_index])
            gh, gw = h // spatial_merge_size, w // spatial_merge_size
            if t * gh * gw != n:
                raise ValueError(f"image {image_index}: {n} pad tokens, grid {t}x{h}x{w} needs {t * gh * gw}")
            tt, hh, ww = np.meshgrid(np.arange(t), np.arange(gh), np.arange(gw), indexing="ij")
            position_ids_3L[0, i:j] = pos + tt.reshape(-1)
            position_ids_3L[1, i:j] = pos + hh.reshape(-1)
            position_ids_3L[2, i:j] = pos + ww.reshape(-1)
            pos += max(t, gh, gw)
            image_index += 1
        i = j
    rope_delta = int(position_ids_3L.max()) + 1 - L if L else 0
    return position_ids_3L, rope_delta


def text_inv_freq(head_dim: int, theta: float) -> np.ndarray:
    """inv_freq [head_dim/2] float32 = 1 / theta^(arange(0, hd, 2)/hd), computed as HF does (f32)."""
    exponent = np.arange(0, head_dim, 2, dtype=np.int64).astype(np.float32) / np.float32(head_dim)
    return (np.float32(1.0) / (np.float32(theta) ** exponent)).astype(np.float32)


def mrope_cos_sin(
    position_ids_3S: np.ndarray,
    head_dim: int,
    theta: float,
    mrope_section: Sequence[int],
) -> tuple[np.ndarray, np.ndarray]:
    """cos, sin [S, head_dim] float32 for 3-stream positions [3, S].

    Frequency index j takes its angle from stream 0 (t) for j < s0, stream 1 (h) for
    s0 <= j < s0+s1, stream 2 (w) after; the 32 angles are then duplicated to 64 dims
    (``cat(freqs, freqs)``), matching ``rotate_half``'s pairing. With equal streams (text, decode)
    this is ordinary RoPE.
    """
    position_ids_3S = np.asarray(position_ids_3S)
    if position_ids_3S.ndim == 1:  # one stream given: all three equal
        position_ids_3S = np.broadcast_to(position_ids_3S, (3, position_ids_3S.shape[0]))
    if sum(mrope_section) * 2 != head_dim:
        raise ValueError(f"mrope_section {list(mrope_section)} must sum to head_dim/2 = {head_dim // 2}")
    inv_freq_F = text_inv_freq(head_dim, theta)  # F = head_dim/2
    stream_of_F = np.repeat(np.arange(3), list(mrope_section))  # [F]: which stream feeds frequency j
    pos_SF = position_ids_3S[stream_of_F].T.astype(np.float32)  # [S, F]
    angles_SF = pos_SF * inv_freq_F[None, :]
    angles_SD = np.concatenate([angles_SF, angles_SF], axis=-1)
    return np.cos(angles_SD).astype(np.float32), np.sin(angles_SD).astype(np.float32)


# ----------------------------------------------------------------------------- vision (2-D)


def vision_rot_pos_ids(grid_thw: Sequence[int], spatial_merge_size: int = 2) -> np.ndarray:
    """(row, col) patch coordinates [t·h·w, 2] in merge-window-major order.

    Row r of ``pixel_values`` is ((bh·(w/m) + bw)·m + mh)·m + mw → patch (bh·m + mh, bw·m + mw);
    the t frames repeat the same coordinates.
    """
    t, h, w = (int(v) for v in grid_thw)
    m = spatial_merge_size
    bh, bw, mh, mw = np.meshgrid(np.arange(h // m), np.arange(w // m), np.arange(m), np.arange(m), indexing="ij")
    rows = (bh * m + mh).reshape(-1)
    cols = (bw * m + mw).reshape(-1)
    ids_N2 = np.stack([rows, cols], axis=-1).astype(np.int64)
    return np.tile(ids_N2, (t, 1))


def vision_cos_sin(
    grid_thws: Sequence[Sequence[int]],
    head_dim: int,
    theta: float = 10000.0,
    spatial_merge_size: int = 2,
) -> tuple[np.ndarray, np.ndarray]:
    """cos, sin [N_total, head_dim] float32 for all patches of the given images, concatenated.

    ``Qwen2VLVisionRotaryEmbedding(head_dim/2)``: inv_freq over d = head_dim/2 (20 frequencies for
    head_dim 80); angles = [row·inv_freq, col·inv_freq] (head_dim/2), duplicated to head_dim.
    """
    d = head_dim // 2
    inv_freq_F = (np.float32(1.0) / (np.float32(theta) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))).astype(
        np.float32
    )
    ids_N2 = np.concatenate([vision_rot_pos_ids(g, spatial_merge_size) for g in grid_thws], axis=0)
    angles_N2F = ids_N2[:, :, None].astype(np.float32) * inv_freq_F[None, None, :]
    angles_Nd = angles_N2F.reshape(ids_N2.shape[0], -1)  # [row freqs..., col freqs...]
    angles_ND = np.concatenate([angles_Nd, angles_Nd], axis=-1)
    return np.cos(angles_ND).astype(np.float32), np.sin(angles_ND).astype(np.float32)
