"""rope.py: M-RoPE position ids / rope deltas (exact) and cos/sin, vision 2-D rotary."""

import numpy as np
import pytest

from mineru_tui.engines.qwen2vl.rope import get_rope_index, mrope_cos_sin, vision_cos_sin, vision_rot_pos_ids
from tests import tiny_checkpoint as tc


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(tc.REF_NPZ))


def test_position_ids_and_rope_delta_exact(ref):
    pos_3L, delta = get_rope_index(ref["txt.input_ids"][0], ref["txt.mm_token_type_ids"][0], ref["pre.image_grid_thw"].tolist(), 2)
    assert pos_3L.dtype == np.int64
    np.testing.assert_array_equal(pos_3L, ref["txt.position_ids"][:, 0])
    assert delta == int(ref["txt.rope_deltas"][0, 0]) == -12
    # decode positions: sequence index + rope_delta on every stream
    L = ref["txt.input_ids"].shape[1]
    np.testing.assert_array_equal(np.arange(L, L + 20) + delta, ref["gen.token_position_ids"])


def test_full_size_page_positions():
    """672x896 page: llm grid 32x24 after 15 text tokens -> t=15, h=15..46, w=15..38, text resumes at 47."""
    n_img = 32 * 24
    types = np.r_[np.zeros(15), np.ones(n_img), np.zeros(10)].astype(np.int64)
    pos, delta = get_rope_index(np.zeros_like(types), types, [(1, 64, 48)], 2)
    img = pos[:, 15 : 15 + n_img]
    assert (img[0] == 15).all() and img[1].min() == 15 and img[1].max() == 46 and img[2].max() == 38
    assert pos[0, 15 + n_img] == 47
    assert delta == int(pos.max()) + 1 - types.shape[0]


def test_text_only_is_plain_rope():
    pos, delta = get_rope_index(np.arange(7), np.zeros(7, np.int64), [], 2)
    assert delta == 0 and (pos == np.arange(7)).all()
    cos, sin = mrope_cos_sin(np.arange(7), 16, 1e6, (2, 3, 3))
    inv = 1.0 / (1e6 ** (np.arange(0, 16, 2) / 16))
    ang = np.arange(7)[:, None] * inv[None]
    np.testing.assert_allclose(cos, np.cos(np.concatenate([ang, ang], 1)), atol=1e-6)
    np.testing.assert_allclose(sin, np.sin(np.concatenate([ang, ang], 1)), atol=1e-6)


def test_mrope_cos_sin_matches_oracle(ref):
    cos, sin = mrope_cos_sin(ref["txt.position_ids"][:, 0], 16, 1e6, (2, 3, 3))
    np.testing.assert_allclose(cos, ref["txt.rope_cos"][0], atol=1e-6)
    np.testing.assert_allclose(sin, ref["txt.rope_sin"][0], atol=1e-6)


def test_vision_rotary_matches_oracle(ref):
    grid = ref["pre.image_grid_thw"].tolist()
    np.testing.assert_array_equal(vision_rot_pos_ids(grid[0], 2), ref["vis.rot_pos_ids"])
    cos, sin = vision_cos_sin(grid, 16, 10000.0, 2)
    np.testing.assert_allclose(cos, ref["vis.rope_cos"], atol=1e-6)
    np.testing.assert_allclose(sin, ref["vis.rope_sin"], atol=1e-6)


def test_mismatched_image_run_is_an_error():
    types = np.r_[np.zeros(3), np.ones(5)].astype(np.int64)
    with pytest.raises(ValueError):
        get_rope_index(np.zeros(8), types, [(1, 4, 4)], 2)
