"""checkpoint.py: weight mapping (layouts, shards, dtypes), validation, --model resolution."""

import json

import numpy as np
import pytest

from mineru_tui.engines.qwen2vl.checkpoint import DEFAULT_MODEL, expected_shapes, load_checkpoint, resolve_model
from mineru_tui.engines.errors import ModelError
from tests import tiny_checkpoint as tc


@pytest.fixture(scope="module")
def legacy():
    return load_checkpoint(tc.TINY_DIR)


def test_legacy_layout_loads_every_tensor(legacy):
    ref = tc.read_tensors()
    assert len(ref) == 57
    shapes = expected_shapes(legacy.config)
    assert set(shapes) == set(ref)  # tied: no lm_head.weight expected
    for k, v in ref.items():
        got = legacy.weights[k]
        assert got.dtype == np.float32 and got.shape == shapes[k]
        np.testing.assert_array_equal(got, v)
    np.testing.assert_array_equal(legacy.weights["lm_head.weight"], ref["model.embed_tokens.weight"])
    assert legacy.stop_token_ids == (3842, 3840)
    assert legacy.preprocessor.max_pixels == 12845056


def test_weights_are_memory_mapped_and_read_only(legacy):
    w = legacy.weights["model.layers.0.self_attn.q_proj.weight"]
    assert isinstance(w.base, np.memmap) or isinstance(getattr(w.base, "base", None), np.memmap)
    with pytest.raises(ValueError):
        w[0, 0] = 1.0


def test_v5_layout_loads_identical_arrays(tmp_path, legacy):
    ck = load_checkpoint(tc.make_v5_checkpoint(tmp_path / "v5"))
    assert ck.config == legacy.config
    assert set(ck.weights) == set(legacy.weights)
    for k in legacy.weights:
        np.testing.assert_array_equal(ck.weights[k], legacy.weights[k])


def test_sharded(tmp_path, legacy):
    d = tc.make_sharded_checkpoint(tmp_path / "sharded")
    assert len(list(d.glob("*.safetensors"))) == 2
    ck = load_checkpoint(d)
    for k in legacy.weights:
        np.testing.assert_array_equal(ck.weights[k], legacy.weights[k])


def test_missing_shard(tmp_path):
    d = tc.make_sharded_checkpoint(tmp_path / "sharded")
    (d / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(ModelError, match="shard model-00002-of-00002.safetensors is missing"):
        load_checkpoint(d)


@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_half_precision_files(tmp_path, dtype):
    d, expected = tc.make_half_checkpoint(tmp_path / dtype, dtype)
    ck = load_checkpoint(d)
    assert ck.weights.dtype_of("model.norm.weight") == dtype
    for k, v in expected.items():
        got = ck.weights[k]
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, v)
    assert ck.weights["model.norm.weight"] is ck.weights["model.norm.weight"]  # converted once


def test_missing_tensor(tmp_path):
    d = tc.rewrite_weights(tmp_path / "m", lambda t: t.pop("model.layers.1.self_attn.k_proj.bias"))
    with pytest.raises(ModelError, match=r"missing tensor model\.layers\.1\.self_attn\.k_proj\.bias"):
        load_checkpoint(d)


def test_misshaped_tensor(tmp_path):
    def edit(t):
        t["visual.blocks.0.attn.qkv.weight"] = t["visual.blocks.0.attn.qkv.weight"][:-1]

    d = tc.rewrite_weights(tmp_path / "m", edit)
    with pytest.raises(ModelError, match=r"visual\.blocks\.0\.attn\.qkv\.weight has shape \[191, 64\], expected \[192, 64\]"):
        load_checkpoint(d)


def test_untied_needs_lm_head(tmp_path):
    d = tc.copy_without_weights(tmp_path / "u")
    (d / "model.safetensors").symlink_to(tc.TINY_DIR / "model.safetensors")
    cfg = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps(dict(cfg, tie_word_embeddings=False)))
    with pytest.raises(ModelError, match="lm_head.weight"):
        load_checkpoint(d)


def test_truncated_weights(tmp_path):
    d = tc.copy_without_weights(tmp_path / "t")
    data = (tc.TINY_DIR / "model.safetensors").read_bytes()
    (d / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="truncated"):
        load_checkpoint(d)


def test_not_a_checkpoint(tmp_path):
    with pytest.raises(ModelError, match="no config.json"):
        load_checkpoint(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert", "architectures": ["BertModel"]}))
    with pytest.raises(ModelError, match="not a Qwen2-VL checkpoint"):
        load_checkpoint(tmp_path)
    with pytest.raises(ModelError, match="no such checkpoint directory"):
        load_checkpoint(tmp_path / "nope")


def test_no_weights(tmp_path):
    d = tc.copy_without_weights(tmp_path / "w")
    with pytest.raises(ModelError, match="no model.safetensors"):
        load_checkpoint(d)


def test_resolve_directory_as_is(tmp_path):
    assert resolve_model(tc.TINY_DIR) == tc.TINY_DIR
    assert resolve_model(str(tc.TINY_DIR)) == tc.TINY_DIR
    with pytest.raises(ModelError, match="no such directory"):
        resolve_model(str(tmp_path / "missing" / "dir" / "x"))
    f = tmp_path / "file.bin"
    f.write_bytes(b"")
    with pytest.raises(ModelError, match="is a file"):
        resolve_model(f)


def test_resolve_repo_id_offline_without_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError) as e:
        resolve_model(None)  # the default repo id
    msg = str(e.value)
    assert "\n" not in msg and DEFAULT_MODEL in msg
    assert f"download {DEFAULT_MODEL}" in msg and "--model DIR" in msg


def test_resolve_repo_id_without_network(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)  # may be stale from an earlier test
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there: connection refused
    with pytest.raises(ModelError, match=r"cannot download model someone/tiny .*hf download someone/tiny.*--model DIR") as e:
        resolve_model("someone/tiny")
    assert "\n" not in str(e.value)


def test_resolve_repo_id_from_cache(tmp_path, monkeypatch):
    """A repo already in the hub cache resolves offline to its snapshot folder."""
    cache = tmp_path / "hub"
    repo = cache / "models--someone--tiny"
    snap = repo / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    for p in tc.TINY_DIR.iterdir():
        (snap / p.name).symlink_to(p)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("a" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = resolve_model("someone/tiny")
    assert path == snap
    assert load_checkpoint(path).config.image_token_id == 3852
