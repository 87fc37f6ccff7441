"""`mineru-tui model` against a hub on localhost, and the way forward a newcomer gets when the
model is not there: the real huggingface_hub code path, no network."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.fake_hub import FakeHub
from testkit.pdf_fixtures import Page, Text, write_pdf
from tests.watch_helpers import page_image

REPO = "opendatalab/MinerU2.5-Pro-2605-1.2B"
ROOT = Path(__file__).resolve().parents[2]


def checkpoint_files() -> dict[str, bytes]:
    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    return {"config.json": b'{"model_type": "qwen2_vl"}',
            "model.safetensors": struct.pack("<Q", len(header)) + header + bytes(range(16)),
            "README.md": b"not needed by the engines"}


def cli(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mineru_tui", *args], cwd=ROOT,
                          env={**os.environ, "HF_HUB_DISABLE_XET": "1", **env},
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def cache(tmp_path) -> dict:
    """An empty hub cache, offline unless a test serves a hub."""
    return {"HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1",
            "HF_ENDPOINT": "http://127.0.0.1:9"}


def test_fetch_show_and_verify_through_huggingface_hub(cache):
    before = cli("model", "show", env=cache)
    assert before.returncode == 1 and before.stdout == ""
    assert "not downloaded yet (2.3 GB); run `mineru-tui model fetch` once" in before.stderr
    with FakeHub(REPO, checkpoint_files()) as hub:
        r = cli("model", "fetch", env={**cache, "HF_HUB_OFFLINE": "0", "HF_ENDPOINT": hub.url})
    assert r.returncode == 0, r.stderr
    folder = Path(r.stdout.strip())
    assert sorted(p.name for p in folder.iterdir()) == ["config.json", "model.safetensors"]
    assert "Fetching 2 files" in r.stderr  # huggingface_hub's progress bar
    shown = cli("model", "show", env=cache)  # offline now: found in the cache
    assert shown.returncode == 0 and shown.stdout.strip() == str(folder)
    files = checkpoint_files()
    size = len(files["config.json"]) + len(files["model.safetensors"])
    assert f": {size} B in {folder}" in shown.stderr
    ok = cli("model", "verify", env=cache)
    assert ok.returncode == 0 and "every file is whole" in ok.stderr
    # a weights file damaged in the cache: verify names it and the way out
    blob = (folder / "model.safetensors").resolve()
    blob.write_bytes(blob.read_bytes()[:-1] + b"\xff")
    bad = cli("model", "verify", env=cache)
    assert bad.returncode == 1
    assert "model.safetensors: its bytes differ from the published file" in bad.stderr


def test_fetch_without_a_network_is_one_line_that_says_how_to_go_on(cache):
    r = cli("model", "fetch", "-q", env={**cache, "HF_HUB_OFFLINE": "0"})
    assert r.returncode == 1 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot download {REPO} (")
    assert "run it again (it resumes)" in lines[0] and "--model DIR" in lines[0]


def test_a_pdf_with_a_text_layer_and_no_model_offers_effort_low(tmp_path, cache):
    pdf = tmp_path / "paper.pdf"
    words = "A born-digital page whose own text layer reads perfectly well without a model."
    write_pdf(pdf, [Page(items=[Text(72, 700 - 20 * i, words) for i in range(6)])])
    r = cli("parse", str(pdf), env=cache)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip() == (
        f"error: {pdf}: needs the MinerU2.5 model (2.3 GB, not downloaded yet): run "
        f"`mineru-tui model fetch` once, or read this PDF's own text now with `--effort low`")
    low = cli("parse", str(pdf), "--effort", "low", env=cache)
    assert low.returncode == 0 and "born-digital page" in low.stdout


def test_a_scan_needs_the_model_and_is_not_offered_effort_low(tmp_path, cache):
    png = page_image(tmp_path / "scan.png")
    r = cli("parse", str(png), env=cache)
    assert r.returncode == 1
    assert r.stderr.strip() == (f"error: {png}: needs the MinerU2.5 model (2.3 GB, not "
                                f"downloaded yet): run `mineru-tui model fetch` once")
    assert "effort" not in r.stderr and "ConnectError" not in r.stderr


def test_parse_without_a_file_is_a_three_line_hint(cache):
    r = cli("parse", env=cache)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 3 and lines[0].startswith("usage: mineru-tui parse FILE...")


def test_help_names_the_formats_and_what_auto_runs_here(cache):
    text = " ".join(cli("--help", env=cache).stdout.split())
    for fmt in (".docx", ".odt", ".doc", "RTF", "HTML", "EPUB", "CSV", "PDFs", "TIFF"):
        assert fmt in text
    assert "--engine auto runs " in text and "numpy here" not in text
    assert "mineru-tui model fetch" in text


def test_verbose_says_the_engine_once_per_run_and_each_failure_as_it_happens(tmp_path, cache):
    pngs = [page_image(tmp_path / f"scan{i}.png") for i in range(2)]
    r = cli("parse", "-v", *map(str, pngs), env=cache)
    assert r.returncode == 1
    assert sum(line.startswith("engine: auto picked") for line in r.stderr.splitlines()) == 1
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert [e.split(": ")[1] for e in errors] == list(map(str, pngs))
    assert r.stderr.splitlines()[-1] == "done: 0 ok, 2 failed"
