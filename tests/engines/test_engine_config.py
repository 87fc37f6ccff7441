"""config.py: legacy and transformers-5 config forms, preprocessor budgets, validation errors."""

import json

import pytest

from mineru_tui.engines.qwen2vl.config import (
    DEFAULT_MAX_PIXELS,
    DEFAULT_MIN_PIXELS,
    load_generation_defaults,
    load_model_config,
    load_preprocessor_config,
    parse_generation_config,
    parse_model_config,
    parse_preprocessor_config,
)
from mineru_tui.engines.errors import ModelError
from tests.tiny_checkpoint import REF_JSON, TINY_DIR, v5_config

LEGACY = json.loads((TINY_DIR / "config.json").read_text())


def test_tiny_config_matches_reference_meta():
    cfg = load_model_config(TINY_DIR)
    meta = json.loads(REF_JSON.read_text())["config"]
    assert cfg.image_token_id == meta["image_token_id"] == 3852
    assert cfg.video_token_id == meta["video_token_id"]
    assert cfg.vision_start_token_id == meta["vision_start_token_id"]
    assert cfg.vision_end_token_id == meta["vision_end_token_id"]
    assert cfg.text.mrope_section == tuple(meta["mrope_section"])
    assert cfg.text.rope_theta == meta["rope_theta"]
    assert cfg.text.rms_norm_eps == meta["rms_norm_eps"]
    assert cfg.vision.rope_theta == meta["vision_rope_theta"]
    assert cfg.vision.hidden_act == meta["vision_hidden_act"]
    t, v = cfg.text, cfg.vision
    assert (t.hidden_size, t.num_hidden_layers, t.num_attention_heads, t.num_key_value_heads, t.head_dim) == (64, 2, 4, 2, 16)
    assert (t.intermediate_size, t.vocab_size, t.tie_word_embeddings) == (128, 4096, True)
    assert (v.embed_dim, v.depth, v.num_heads, v.head_dim, v.mlp_dim, v.hidden_size) == (64, 2, 4, 16, 256, 64)
    assert (v.patch_dim, v.merged_dim, v.spatial_merge_size) == (1176, 256, 2)
    assert cfg.eos_token_ids == (3842,)


def test_nested_v5_config_equals_legacy():
    assert parse_model_config(v5_config(LEGACY)) == parse_model_config(LEGACY)


def test_real_shape_config():
    cfg = dict(LEGACY, hidden_size=896, num_attention_heads=14, num_key_value_heads=2, rope_scaling={"type": "mrope", "mrope_section": [8, 12, 12]})
    cfg["vision_config"] = dict(LEGACY["vision_config"], embed_dim=1280, num_heads=16, depth=32, hidden_size=896)
    c = parse_model_config(cfg)
    assert c.text.head_dim == 64 and c.vision.head_dim == 80 and c.vision.merged_dim == 5120


@pytest.mark.parametrize(
    "change, message",
    [
        ({"rope_scaling": {"type": "mrope", "mrope_section": [4, 6, 6]}}, "mrope_section"),
        ({"rope_scaling": {"type": "default"}}, "mrope_section"),
        ({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}, "not a Qwen2-VL"),
        ({"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"]}, "Qwen2.5-VL"),
        ({"num_key_value_heads": 3}, "num_key_value_heads"),
        ({"hidden_size": 66}, "divisible"),
        ({"vision_config": None}, "vision_config"),
        ({"image_token_id": None}, "image_token_id"),
        ({"num_hidden_layers": "two"}, "integer"),
    ],
)
def test_invalid_configs(change, message):
    cfg = dict(LEGACY, **change)
    with pytest.raises(ModelError, match=message):
        parse_model_config(cfg)


def test_preprocessor_both_spellings():
    legacy = load_preprocessor_config(TINY_DIR)
    assert (legacy.min_pixels, legacy.max_pixels, legacy.factor) == (3136, 12845056, 28)
    v5 = parse_preprocessor_config({"size": {"shortest_edge": 3136, "longest_edge": 12845056}})
    assert v5 == legacy
    old = parse_preprocessor_config({"size": {"min_pixels": 3136, "max_pixels": 12845056}})
    assert old == legacy
    defaults = parse_preprocessor_config({})
    assert (defaults.min_pixels, defaults.max_pixels) == (DEFAULT_MIN_PIXELS, DEFAULT_MAX_PIXELS)
    with pytest.raises(ModelError, match="min_pixels"):
        parse_preprocessor_config({"min_pixels": 10, "max_pixels": 5})


def test_generation_defaults(tmp_path):
    gen = load_generation_defaults(TINY_DIR)
    assert gen.eos_token_ids == (3842, 3840) and gen.pad_token_id == 3840
    g = parse_generation_config({"eos_token_id": 7, "repetition_penalty": 1.05, "no_repeat_ngram_size": 100, "top_k": 1})
    assert (g.eos_token_ids, g.repetition_penalty, g.no_repeat_ngram_size, g.extra) == ((7,), 1.05, 100, {"top_k": 1})
    # no generation_config.json: stop on config.json's eos
    (tmp_path / "config.json").write_text(json.dumps(LEGACY))
    assert load_generation_defaults(tmp_path, load_model_config(tmp_path)).eos_token_ids == (3842,)


def test_missing_or_broken_config_json(tmp_path):
    with pytest.raises(ModelError, match="no config.json"):
        load_model_config(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ModelError, match="cannot read"):
        load_model_config(tmp_path)
