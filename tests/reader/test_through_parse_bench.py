"""bench/pages.py --through parse from a clone: a scan and a born-digital PDF read through
convert() with forced answers on the tiny checkpoint (the real path's benchmark, issue 30)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import tiny_checkpoint as tc

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # the tiny model through two documents and the engine-only page, in a child
def test_the_real_path_bench_reads_both_documents_through_convert(tmp_path):
    out = tmp_path / "pages.json"
    env = dict(os.environ, MINERU_TUI_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, "bench/pages.py", "--ckpt", str(tc.TINY_DIR), "--through", "parse",
                        "--parse-pages", "2", "--no-bounds", "--json", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(out.read_text())
    scan, digital = res["parse_scan"], res["parse_digital"]
    assert scan["pages"] == digital["pages"] == 2
    # the forced layout answer parsed into the bench page's 18 blocks: on the scan the model
    # reads 17 (the picture is not read), on the PDF only the table and the equation (the
    # text-like blocks take the text drawn into the PDF)
    assert sum(scan["requests_per_stream_call"]) == 2 * (1 + 17)
    assert sum(digital["requests_per_stream_call"]) == 2 * (1 + 2)
    for run in (scan, digital):
        assert all(run["engine_stage_s"][s] > 0 for s in ("vision", "prefill", "decode"))
        assert run["pages_per_min"] > 0 and run["decode_steps"] > 0
        assert 0 < run["real_over_engine_only"]
        # the host loop's parts, timed: every decode step and its forward pass, the vision calls
        times = run["call_times"]
        assert times["decode_steps"] == run["decode_steps"] and times["vision_calls"] >= 1
        assert times["prefill_chunks"] >= 1 and 0 < times["decode_forward_s"] <= times["decode_step_s"]
    # every layout pass decodes its 360 forced tokens: at least that many steps a page
    assert scan["decode_steps"] >= 2 * 360


@pytest.mark.slow  # the tiny model through a scan three ways, OpenVINO, in a child
def test_the_real_path_bench_runs_openvino_before_and_after_issue_30(tmp_path):
    pytest.importorskip("openvino")
    out = tmp_path / "pages.json"
    env = dict(os.environ, MINERU_TUI_CACHE=str(tmp_path / "cache"), HF_HUB_OFFLINE="1")
    r = subprocess.run([sys.executable, "bench/pages.py", "--ckpt", str(tc.TINY_DIR), "--engines", "auto",
                        "--through", "parse", "--parse-only", "--parse-docs", "scan", "--parse-pages", "scan=2",
                        "--parse-modes", "fixed,alone,cross", "--json", str(out)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(out.read_text())
    assert res["engine"] == "openvino" and res["vision_activations"] in ("int8", "bf16")
    assert "layout" not in res  # --parse-only: no engine-only page
    # what the page reader sent: chunks of 8 before issue 30, a page's blocks in one call
    # page by page, and the second page's layout joining the first page's call batched across
    assert res["parse_scan_fixed"]["requests_per_stream_call"] == [1, 8, 8, 1] * 2
    assert res["parse_scan_alone"]["requests_per_stream_call"] == [1, 17] * 2
    assert res["parse_scan"]["requests_per_stream_call"] == [2, 17, 17]
    for run in (res["parse_scan_fixed"], res["parse_scan_alone"], res["parse_scan"]):
        calls = run["engine_call_s"]
        assert calls["total"] >= calls["vision"] + calls["prefill"] + calls["decode"] > 0
        # the pages' stage events add up to the engine calls' (a shared vision call counts once)
        assert abs(sum(run["engine_stage_s"].values()) - (calls["vision"] + calls["prefill"] + calls["decode"])) < 0.35
    assert res["parse_scan"]["decode_steps"] < res["parse_scan_alone"]["decode_steps"]
    assert res["parse_scan"]["over_fixed"] > 0 and res["parse_scan"]["over_alone"] > 0
