"""tokenizer.py: chat template, prompt ids exact vs the oracle, errors, streaming detokenisation."""

import json
import shutil

import numpy as np
import pytest

from mineru_tui.engines.errors import ModelError, PromptError
from mineru_tui.engines.qwen2vl.tokenizer import (
    QWEN2VL_CHAT_TEMPLATE,
    Tokenizer,
    load_tokenizer,
    render_chat_template,
)
from tests.tiny_checkpoint import REF_JSON, REF_NPZ, TINY_DIR

META = json.loads(REF_JSON.read_text())


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer(TINY_DIR)


@pytest.fixture(scope="module")
def ref():
    with np.load(REF_NPZ) as z:
        return {k: z[k] for k in ("txt.template_ids", "txt.input_ids", "txt.mm_token_type_ids", "gen.ids")}


def test_prompt_matches_oracle(tok, ref):
    p = tok.build_prompt(META["user_prompt"], META["n_image_tokens"])
    assert p.text == META["prompt_text"]
    assert tok.encode(p.text) == ref["txt.template_ids"][0].tolist()
    assert p.input_ids.dtype == np.int64 and p.mm_token_type_ids.dtype == np.int64
    np.testing.assert_array_equal(p.input_ids, ref["txt.input_ids"][0])
    np.testing.assert_array_equal(p.mm_token_type_ids, ref["txt.mm_token_type_ids"][0])
    assert len(p) == META["prompt_len"] == 53 and p.num_image_tokens == (18,)


def test_special_ids_and_decode(tok, ref):
    assert tok.token_id("<|image_pad|>") == tok.image_token_id == 3852
    assert tok.token_id("<|im_end|>") == 3842
    with pytest.raises(KeyError):
        tok.token_id("<|no_such_token|>")
    assert tok.decode(ref["gen.ids"]) == META["gen_text_with_stop"]
    assert tok.decode([3845, 16, 3846]) == "<|box_start|>1<|box_end|>"  # special tokens kept
    assert tok.encode("<|im_start|>x") == [3841, 87]


def test_stock_template_when_checkpoint_has_none(tmp_path, tok):
    d = tmp_path / "ck"
    d.mkdir()
    shutil.copy(TINY_DIR / "tokenizer.json", d)
    cfg = json.loads((TINY_DIR / "tokenizer_config.json").read_text())
    cfg.pop("chat_template")
    (d / "tokenizer_config.json").write_text(json.dumps(cfg))
    stock = load_tokenizer(d)
    assert stock.chat_template == QWEN2VL_CHAT_TEMPLATE
    np.testing.assert_array_equal(stock.build_prompt("\nText Recognition:", 18).input_ids, tok.build_prompt("\nText Recognition:", 18).input_ids)


def test_checkpoint_template_is_used(tmp_path):
    d = tmp_path / "ck"
    d.mkdir()
    shutil.copy(TINY_DIR / "tokenizer.json", d)
    custom = "{% for m in messages %}[{{ m['role'] }}]{% if m['content'] is string %}{{ m['content'] }}{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<|image_pad|>{% else %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}{{ eos_token }}{% endif %}"
    (d / "tokenizer_config.json").write_text(json.dumps({"eos_token": "<|im_end|>", "chat_template": "ignored"}))
    (d / "chat_template.json").write_text(json.dumps({"chat_template": custom}))
    t = load_tokenizer(d)
    # trim_blocks eats the newline after a block tag, as in transformers
    assert t.build_prompt("hi", [3, 1]).text == "[system]You are a helpful assistant.[user]<|image_pad|><|image_pad|>hi<|im_end|>"
    (d / "chat_template.jinja").write_text("{{ raise_exception('no images here') }}")
    with pytest.raises(PromptError, match="no images here"):
        load_tokenizer(d).build_prompt("hi", 2)


def test_template_rendering_rules():
    # trim_blocks + lstrip_blocks, as transformers compiles templates
    src = "{% for m in messages %}\n  {% if true %}\n{{ m['content'] }}|{% endif %}\n{% endfor %}"
    assert render_chat_template(src, [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]) == "a|b|"
    assert render_chat_template("{{ x | tojson }}", [], x={"k": "é"}) == '{"k": "é"}'
    assert render_chat_template("{% generation %}g{% endgeneration %}", []) == "g"


def test_several_images_and_text_only(tok):
    p = tok.build_prompt("\nText Recognition:", [4, 2])
    assert p.text.count("<|vision_start|><|image_pad|><|vision_end|>") == 2
    assert int(p.mm_token_type_ids.sum()) == 6 and p.num_image_tokens == (4, 2)
    pads = np.flatnonzero(p.input_ids == tok.image_token_id)
    assert pads[3] + 1 != pads[4]  # the two images' pads are separate runs
    text_only = tok.build_prompt("merge these tables", None)
    assert text_only.mm_token_type_ids.sum() == 0 and "<|image_pad|>" not in text_only.text


def test_prompt_errors(tok):
    with pytest.raises(PromptError, match="empty"):
        tok.build_prompt("", 18)
    with pytest.raises(PromptError, match="empty"):
        tok.build_prompt("  \n", 18)
    with pytest.raises(PromptError, match=r"53 tokens \(18 for the image\), more than the model's context of 52"):
        tok.build_prompt("\nText Recognition:", 18, max_len=52)
    assert len(tok.build_prompt("\nText Recognition:", 18, max_len=53)) == 53
    with pytest.raises(PromptError, match="must not contain"):
        tok.build_prompt("look: <|image_pad|>", 18)
    with pytest.raises(PromptError, match="at least one token"):
        tok.build_prompt("x", 0)


def _stream(tok, ids):
    d = tok.detokenizer()
    deltas = [d.push(i) for i in ids]
    return deltas, d.flush()


@pytest.mark.parametrize(
    "text",
    ["表格识别：第一行", "emoji 😀👍🏽 and 🇫🇷", "ünïcödé — “quotes” …", "<|box_start|>12 34 56 78<|box_end|><|ref_start|>text<|ref_end|>"],
)
def test_detokenizer_never_splits_characters(tok, text):
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    deltas, tail = _stream(tok, ids)
    assert "".join(deltas) + tail == text
    assert tail == "" and not any("\ufffd" in s for s in deltas)
    if any(ord(c) > 0x7FF for c in text):  # multi-byte chars were split over byte tokens and held back
        assert "" in deltas


def test_detokenizer_matches_decode_on_random_ids(tok):
    rng = np.random.default_rng(1)
    for _ in range(300):  # raw bytes (ids < 256, many invalid UTF-8 runs), BPE tokens and specials
        ids = np.concatenate([rng.integers(0, 256, 4), rng.integers(0, 3860, 4)])
        rng.shuffle(ids)
        deltas, tail = _stream(tok, ids.tolist())
        assert "".join(deltas) + tail == tok.decode(ids.tolist())


def test_incomplete_character_at_end_is_flushed(tok):
    ids = tok.encode("界")
    assert len(ids) > 1
    deltas, tail = _stream(tok, ids[:-1])
    assert "".join(deltas) == "" and tail == "\ufffd" == tok.decode(ids[:-1])


def test_no_tokenizer_json(tmp_path):
    with pytest.raises(ModelError, match="no tokenizer.json"):
        Tokenizer.from_dir(tmp_path)
