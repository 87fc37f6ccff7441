"""Tampered model folders end in one line, before anything is sized by them (issue 19,
point 13): tokenizer.json's size, config.json's layer counts against the weights, JSON
nested too deeply — for the loader, ``generate`` and ``parse``. Copies of the tiny
fixture checkpoint are edited in a temporary folder."""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys

import pytest

from mineru_tui.engines.errors import ModelError
from mineru_tui.engines.qwen2vl import checkpoint as ckpt
from mineru_tui.engines.qwen2vl import tokenizer as tok
from tests import tiny_checkpoint as tc

DEEP = "[" * 200_000 + "]" * 200_000


def copy_tiny(tmp_path):
    d = tmp_path / "model"
    shutil.copytree(tc.TINY_DIR, d)
    return d


def edit_config(d, **changes):
    cfg = json.loads((d / "config.json").read_text())
    for key, value in changes.items():
        if key == "vision_depth":
            cfg["vision_config"]["depth"] = value
        else:
            cfg[key] = value
    (d / "config.json").write_text(json.dumps(cfg))


def test_a_tokenizer_json_over_the_size_cap_is_refused_before_loading(tmp_path, monkeypatch):
    d = copy_tiny(tmp_path)
    monkeypatch.setattr(tok, "MAX_TOKENIZER_BYTES", 1024)
    with pytest.raises(ModelError, match=r"tokenizer.json: 0 MiB, larger than a tokenizer can be"):
        tok.Tokenizer.from_dir(d)


@pytest.mark.parametrize("changes,words", [
    ({"num_hidden_layers": 3}, "num_hidden_layers 3, the weights hold 2 layers"),
    ({"vision_depth": 5}, "vision depth 5, the weights hold 2 layers"),
])
def test_layer_counts_are_checked_against_the_weights(tmp_path, changes, words):
    d = copy_tiny(tmp_path)
    edit_config(d, **changes)
    with pytest.raises(ModelError, match=words):
        ckpt.load_checkpoint(d)


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))


def test_a_billion_layers_is_one_line_under_a_memory_limit(tmp_path):
    d = copy_tiny(tmp_path)
    edit_config(d, num_hidden_layers=1_000_000_000)
    code = ("from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint\n"
            "from mineru_tui.engines.errors import ModelError\n"
            f"try:\n    load_checkpoint({str(d)!r})\nexcept ModelError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       preexec_fn=_limit_memory)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().endswith("config.json says num_hidden_layers 1000000000, the weights hold 2 layers")


@pytest.mark.parametrize("name", ["config.json", "tokenizer_config.json"])
def test_deep_json_in_a_model_folder_is_one_line_for_generate(tmp_path, name):
    d = copy_tiny(tmp_path)
    (d / name).write_text(DEEP)
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "generate", "--model", str(d),
                        str(tc.REF_PNG)], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "nested too deeply" in lines[0], r.stderr


def test_deep_config_json_is_one_clear_line_for_parse(tmp_path):
    from PIL import Image

    d = copy_tiny(tmp_path)
    (d / "config.json").write_text(DEEP)
    Image.new("RGB", (64, 64), "white").save(tmp_path / "p.png")
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", "--engine", "numpy", "--model", str(d),
                        str(tmp_path / "p.png")], capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-3000:]
    errors = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "nested too deeply" in errors[0], r.stderr
