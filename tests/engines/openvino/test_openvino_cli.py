"""``--engine auto``'s choice, the ``-v`` line saying it, and the OpenVINO engine through ``parse``
and the page reader on the tiny model (real preprocessing, crops, per-row knobs): in f32 the
page reader gets exactly what it gets from the numpy engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mineru_tui.engines import EngineOptions, auto_choice, resolve_engine_name
from tests import tiny_checkpoint as tc

ROOT = Path(__file__).resolve().parents[3]
CAP = "4"


def test_auto_picks_openvino_where_installed_else_numpy(monkeypatch):
    import mineru_tui.engines.openvino.engine as ov_engine

    monkeypatch.setattr(ov_engine, "installed", lambda: True)
    assert auto_choice(EngineOptions()) == ("openvino", auto_choice(EngineOptions())[1])
    assert "OpenVINO" in auto_choice(EngineOptions())[1]
    assert resolve_engine_name(EngineOptions(engine="auto")) == "openvino"
    assert resolve_engine_name(EngineOptions(engine="numpy")) == "numpy"  # an explicit choice stays
    assert auto_choice(EngineOptions(server_urls=("http://127.0.0.1:1",)))[0] == "http"
    monkeypatch.setattr(ov_engine, "installed", lambda: False)
    name, why = auto_choice(EngineOptions())
    assert name == "numpy" and "no OpenVINO" in why


def test_auto_prefers_coreml_where_it_has_a_bundle(monkeypatch):
    import mineru_tui.engines.coreml.engine as coreml
    import mineru_tui.engines.openvino.engine as ov_engine

    monkeypatch.setattr(ov_engine, "installed", lambda: True)
    monkeypatch.setattr(coreml, "available_for", lambda options: True)
    assert auto_choice(EngineOptions())[0] == "coreml"


def _parse(*args, cwd, env_extra=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_MAX_NEW_TOKENS=CAP, HF_HUB_OFFLINE="1",
               MINERU_TUI_CACHE=str(cwd / "cache"), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "mineru_tui", "parse", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_verbose_says_what_auto_picked(tmp_path):
    png = _page(tmp_path / "scan.png")
    r = _parse(png, "-v", "--model", tc.TINY_DIR, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("engine: auto picked")]
    assert len(lines) == 1
    want = "openvino" if _has_openvino() else "numpy"
    assert lines[0].startswith(f"engine: auto picked {want} (")
    r = _parse(png, "--model", tc.TINY_DIR, cwd=tmp_path)  # without -v: no such line
    assert r.returncode == 0 and "auto picked" not in r.stderr
    r = _parse(tmp_path / "missing.pdf", "-v", cwd=tmp_path)  # no page read: no engine opened, no line
    assert "auto picked" not in r.stderr


def test_bad_precision_or_device_is_a_usage_error(tmp_path):
    r = _parse(tmp_path / "x.png", "--engine", "openvino", "--precision", "f16", cwd=tmp_path)
    assert r.returncode == 2 and "--precision" in r.stderr and "Traceback" not in r.stderr
    r = _parse(tmp_path / "x.png", "--engine", "openvino", "--device", "TPU", cwd=tmp_path)
    assert r.returncode == 2 and "--device" in r.stderr


def _has_openvino() -> bool:
    from mineru_tui.engines.openvino.engine import installed

    return installed()


def _page(path):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (620, 800), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 760, 24):
        d.line((60, y, 560, y), fill="black", width=3)
    img.save(path)
    return path


@pytest.mark.skipif(not _has_openvino(), reason="openvino is not installed")
def test_parse_a_page_image_with_the_openvino_engine(tmp_path):
    png = _page(tmp_path / "scan.png")
    r = _parse(png, "-o", tmp_path / "out", "--engine", "openvino", "--precision", "f32", "--model", tc.TINY_DIR,
               cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and "Traceback" not in r.stderr
    model = json.loads((tmp_path / "out" / "scan" / "scan_model.json").read_text())
    assert model["engine"] == "openvino" and model["max_new_tokens"] == int(CAP)
    assert all(len(p["layout"]["answer"]) > 0 for p in model["pages"])  # the model really answered
    (tmp_path / "out" / "scan" / "scan.md").read_text()


@pytest.mark.skipif(not _has_openvino(), reason="openvino is not installed")
def test_the_page_reader_gets_the_numpy_engines_document_in_f32(tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.document import to_markdown
    from mineru_tui.engines import open_engine
    from mineru_tui.events import BlockDone
    from tests.reader.test_pages_numpy import LayoutThenModel
    from testkit.scripted_engine import layout_line

    layout = (layout_line(80, 60, 920, 200, "title") + layout_line(80, 220, 920, 500, "text")
              + layout_line(80, 520, 920, 700, "table") + layout_line(80, 720, 920, 760, "equation"))
    page = _page(tmp_path / "p.png")
    docs, blocks = [], []
    for name, extra in (("numpy", ()), ("openvino", (("precision", "f32"),))):
        engine = LayoutThenModel(open_engine(EngineOptions(engine=name, model=str(tc.TINY_DIR), extra=extra)), layout)
        events = []
        doc = convert(page, ConvertOptions(engine=engine, extra={"max_new_tokens": 6}), on_event=events.append)
        engine.close()
        docs.append(to_markdown(doc))
        blocks.append([(e.finish_reason, e.source) for e in events if isinstance(e, BlockDone)])
    assert len(blocks[0]) == 4 and blocks[0] == blocks[1]
    assert docs[0].strip() and docs[0] == docs[1]


@pytest.mark.skipif(not _has_openvino(), reason="openvino is not installed")
def test_serve_runs_the_openvino_engine(tmp_path, monkeypatch):
    import httpx
    from mineru_vl_utils.mineru_client import DEFAULT_SAMPLING_PARAMS
    from mineru_vl_utils.vlm_client.http_client import HttpVlmClient

    from mineru_tui.engines.openvino.bundle import open_openvino_model
    from mineru_tui.reader.tasks import TASKS
    from tests.server_helpers import ServeProcess

    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    server = ServeProcess(max_tokens=8, extra=("--engine", "openvino"))
    try:
        assert httpx.get(server.url + "/health").json()["engine"] == "openvino"
        client = HttpVlmClient(server_url=server.url, allow_truncated_content=True, use_tqdm=False)
        text = client.predict(str(tc.REF_PNG), "\nTable Recognition:", DEFAULT_SAMPLING_PARAMS["table"])
    finally:
        server.stop()
    s = TASKS["table"].sampling
    want = open_openvino_model(str(tc.TINY_DIR)).generate(
        str(tc.REF_PNG), "\nTable Recognition:", max_new_tokens=8, no_repeat_ngram_size=s.no_repeat_ngram_size,
        presence_penalty=s.presence_penalty, frequency_penalty=s.frequency_penalty,
        repetition_penalty=s.repetition_penalty)
    assert text and text == want.text
