"""bench/pages.py from a clone: the page through the OpenVINO engine on the tiny checkpoint, per
stage, and the FLOP counts its compute bounds rest on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openvino")

from tests import tiny_checkpoint as tc  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def test_vision_flops_of_the_layout_image_match_the_issue_estimate():
    sys.path.insert(0, str(ROOT))
    import bench.compute_bound as cb
    from mineru_tui.engines.qwen2vl.config import VisionConfig

    v = VisionConfig(depth=32, embed_dim=1280, num_heads=16, hidden_size=896)
    one = cb.vision_flops([5476], v)
    assert 11.5e12 < one < 12.3e12  # "≈ 12 TFLOP" for the 1036×1036 layout image
    # attention is quadratic in an image's patches, the rest linear: two half images cost less
    whole, halves = cb.vision_flops([5472], v), cb.vision_flops([2736, 2736], v)
    assert halves < whole and whole - halves == pytest.approx(32 * 4 * 1280 * (5472**2 - 2 * 2736**2))


def test_the_page_bench_runs_the_default_effort_page_through_openvino(tmp_path):
    out = tmp_path / "pages.json"
    env = dict(os.environ, MINERU_TUI_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, "bench/pages.py", "--ckpt", str(tc.TINY_DIR), "--engines", "openvino",
                        "--effort", "default", "--no-bounds", "--json", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(out.read_text())
    assert res["engine"] == "openvino"
    assert "recognition_b8_continuous" not in res  # --effort default: the model reads table + equation only
    assert sorted(res["recognition_default_effort_blocks"]) == ["equation", "table"]
    for key in ("layout", "recognition_default_effort_b8"):
        run = res[key]
        assert run["vision_s"] > 0 and run["prefill_s"] > 0 and run["decode_s"] > 0 and run["wall_s"] > 0
    assert res["layout"]["generated"] == 18 * 20 + 1  # the forced layout answer's length
    assert res["page_s_default_effort_text_pdf"] > 0 and res["peak_rss_gib"] > 0


def test_llama_cpp_without_its_gguf_is_one_line():
    r = subprocess.run([sys.executable, "bench/pages.py", "--ckpt", str(tc.TINY_DIR), "--engines", "llama-cpp"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "needs --gguf" in r.stderr and "Traceback" not in r.stderr


def test_the_decode_step_bench_runs_from_a_clone(tmp_path):
    out = tmp_path / "decode.json"
    env = dict(os.environ, MINERU_TUI_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, "bench/decode_step.py", "--ckpt", str(tc.TINY_DIR), "--context", "30",
                        "--rounds", "1", "--tokens", "3", "--json", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(out.read_text())
    assert len(res["bare_ms_tight"]) == len(res["bare_ms_room1024"]) == 1 and res["bare_ms_tight"][0] > 0
    assert res["generate_tokens_per_s"] > 0 and res["generate_prompt_tokens"] > 30
    assert Path(res["code"]) == ROOT / "mineru_tui"  # this checkout's engine was measured
