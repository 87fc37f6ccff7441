"""``mineru-tui serve`` as a real process on loopback (tiny checkpoint), answered by clients
nobody here wrote (mineru-vl-utils' ``HttpVlmClient`` and ``MinerUClient(backend="http-client")``)
and by our ``--engine http``; malformed requests; two servers with one killed mid-run."""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import subprocess
import sys
import threading

import httpx
import pytest
from PIL import Image

from mineru_tui.engines import EngineOptions, Request, open_engine
from mineru_tui.engines.events import Done, SequenceDone, TokenEvent
from mineru_tui.reader.tasks import TASKS
from tests.server_helpers import ROOT, TINY, ServeProcess, free_port

MAX_TOKENS = 12


@pytest.fixture(scope="module")
def server():
    s = ServeProcess(max_tokens=MAX_TOKENS)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def model():
    from mineru_tui.engines.numpy import load_model

    return load_model(TINY)


def _image(seed: int = 0) -> Image.Image:
    im = Image.new("RGB", (96, 64), "white")
    for i in range(40):
        im.putpixel(((i * 7 + seed * 13) % 96, (i * 3 + seed) % 64), (i * 5 % 255, seed * 40 % 255, 90))
    return im


def _expected(model, image, task: str, max_new: int = MAX_TOKENS, prompt: str | None = None):
    s = TASKS[task].sampling
    return model.generate(image, prompt or TASKS[task].prompt, max_new_tokens=max_new,
                          no_repeat_ngram_size=s.no_repeat_ngram_size, presence_penalty=s.presence_penalty,
                          frequency_penalty=s.frequency_penalty, repetition_penalty=s.repetition_penalty)


def _png_url(image: Image.Image) -> str:
    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def test_models_and_health(server):
    models = httpx.get(server.url + "/v1/models").json()
    assert [m["id"] for m in models["data"]] == ["tiny"]
    health = httpx.get(server.url + "/health").json()
    assert health["status"] == "ok" and health["engine"] == "numpy"


def test_mineru_http_client_gets_the_numpy_answer(server, model):
    from mineru_vl_utils.mineru_client import DEFAULT_SAMPLING_PARAMS
    from mineru_vl_utils.vlm_client.http_client import HttpVlmClient

    client = HttpVlmClient(server_url=server.url, allow_truncated_content=True, use_tqdm=False)
    assert client.model_name == "tiny"  # resolved from our /v1/models
    image = _image(1)
    text = client.predict(image, "\nTable Recognition:", DEFAULT_SAMPLING_PARAMS["table"])
    assert text == _expected(model, image, "table").text
    streamed = [c for c in client.stream_predict(image, "\nTable Recognition:", DEFAULT_SAMPLING_PARAMS["table"])]
    assert "".join(streamed) == text and len(streamed) > 2
    # its concurrent batch path (asyncio, one request per image) against our batcher
    images = [_image(i) for i in range(4)]
    batch = client.batch_predict(images, "\nText Recognition:", DEFAULT_SAMPLING_PARAMS["equation"])
    expected = [_expected(model, im, "formula", prompt="\nText Recognition:").text  # equation knobs
                for im in images]
    assert batch == expected


def test_mineru_client_two_step_extract_runs_against_serve(server):
    from mineru_vl_utils import MinerUClient

    client = MinerUClient(backend="http-client", server_url=server.url)
    blocks = client.two_step_extract(_image(2))
    assert isinstance(blocks, list)  # random weights: the layout text parses to no blocks


def test_our_http_engine_gets_the_numpy_answers(server, model):
    engine = open_engine(EngineOptions(engine="http", server_urls=(server.url,)))
    tasks = ["text", "table", "formula", "layout"]
    requests = [Request(_image(i), TASKS[t].prompt, TASKS[t].sampling) for i, t in enumerate(tasks)]
    events = list(engine.stream(requests))
    done = events[-1]
    assert isinstance(done, Done)
    for i, (t, res) in enumerate(zip(tasks, done.results)):
        want = _expected(model, _image(i), t)
        assert res.text == want.text and res.finish_reason == "length"
        assert res.prompt_tokens == want.prompt_tokens  # usage came with the stream
    shown = [""] * 4
    for ev in events:
        if isinstance(ev, TokenEvent):
            shown[ev.seq_index] += ev.text_delta
    assert shown == [r.text for r in done.results]
    assert done.timings.decode_tokens == 4 * (MAX_TOKENS - 1)
    engine.close()


def test_concurrent_requests_are_batched(server):
    body = {"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": _png_url(_image(5))}},
        {"type": "text", "text": "\nText Recognition:"}]}], "max_tokens": 4}
    before = httpx.get(server.url + "/health").json()["batches"]
    answers = []

    def send():
        answers.append(httpx.post(server.url + "/v1/chat/completions", json=body, timeout=60).json())

    threads = [threading.Thread(target=send) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    health = httpx.get(server.url + "/health").json()
    assert len(answers) == 6 and len({a["choices"][0]["message"]["content"] for a in answers}) == 1
    assert all(a["usage"]["completion_tokens"] == 4 for a in answers)
    assert health["largest_batch"] >= 2 and health["batches"] - before < 6


def test_stream_shape_with_usage(server):
    body = {"model": "tiny", "stream": True, "stream_options": {"include_usage": True}, "max_tokens": 5,
            "messages": [{"role": "system", "content": "You are a helpful assistant."},
                         {"role": "user", "content": [{"type": "image_url", "image_url": {"url": _png_url(_image())}},
                                                      {"type": "text", "text": "\nText Recognition:"}]}]}
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=body, timeout=60) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        lines = [line[6:] for line in resp.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    chunks = [json.loads(x) for x in lines[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    assert chunks[-2]["choices"][0]["finish_reason"] == "length"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["completion_tokens"] == 5


@pytest.mark.parametrize("body, status, words", [
    (b"{not json", 400, "not valid JSON"),
    (b"[1, 2]", 400, "JSON object"),
    (json.dumps({"messages": []}).encode(), 400, "non-empty list"),
    (json.dumps({"messages": [{"role": "user", "content": 5}]}).encode(), 400, "string or a list"),
    (json.dumps({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/a.png"}},
                                                           {"type": "text", "text": "hi"}]}]}).encode(), 400, "fetches nothing"),
    (json.dumps({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,@@@"}},
                                                           {"type": "text", "text": "hi"}]}]}).encode(), 400, "not valid base64"),
    (json.dumps({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(b"not an image").decode()}},
        {"type": "text", "text": "hi"}]}]}).encode(), 400, "cannot be read"),
    (json.dumps({"messages": [{"role": "user", "content": [{"type": "audio"}]}]}).encode(), 400, "unsupported content part"),
    (json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": "ten"}).encode(), 400, "'max_tokens' must be an integer"),
    (json.dumps({"messages": [{"role": "user", "content": "hi"}], "repetition_penalty": 0}).encode(), 400, "must be > 0"),
    (json.dumps({"messages": [{"role": "user", "content": "hi"}], "n": 3}).encode(), 400, "'n' must be 1"),
    (json.dumps({"messages": [{"role": "user", "content": "hi"}], "model": "gpt-9"}).encode(), 404, "does not exist"),
])
def test_malformed_requests_get_a_clear_4xx(server, body, status, words):
    resp = httpx.post(server.url + "/v1/chat/completions", content=body, timeout=30)
    assert resp.status_code == status
    assert words in resp.json()["error"]["message"]
    assert httpx.get(server.url + "/health").status_code == 200  # and the server lives on


def test_wrong_method_and_path(server):
    assert httpx.get(server.url + "/v1/chat/completions").status_code == 405
    resp = httpx.get(server.url + "/v2/nothing")
    assert resp.status_code == 404 and "no such endpoint" in resp.json()["error"]["message"]


def test_serve_usage_errors_are_one_line(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "mineru_tui", "serve", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)

    bad = run("--engine", "bogus")
    assert bad.returncode == 2 and "'bogus' is not one of" in bad.stderr
    remote = run("--engine", "http")  # an engine name, but not one serve runs in its process
    assert remote.returncode == 2 and "choose numpy or coreml or coreai or openvino" in remote.stderr
    missing = run("--model", str(tmp_path / "nowhere"), "--port", str(free_port()))
    assert missing.returncode == 1
    assert missing.stderr.startswith("error: ") and missing.stderr.count("\n") == 1
    assert "Traceback" not in missing.stderr
    with socket.socket() as taken:  # a busy port is said in one line, before the model loads
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        busy = run("--model", str(TINY), "--port", str(port))
    assert busy.returncode == 1 and busy.stderr.count("\n") == 1
    assert busy.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")


def test_one_of_two_servers_killed_mid_run_loses_nothing(model):
    a, b = ServeProcess(max_tokens=200), ServeProcess(max_tokens=200)
    try:
        engine = open_engine(EngineOptions(engine="http", server_urls=(f"{a.url},{b.url}",), concurrency=2))
        n = 10
        requests = [Request(_image(i), TASKS["text"].prompt, TASKS["text"].sampling, max_new_tokens=60)
                    for i in range(n)]
        killed_after = None
        done_before_kill = 0
        events = []
        for ev in engine.stream(requests):
            events.append(ev)
            if isinstance(ev, SequenceDone) and killed_after is None:
                done_before_kill += 1
            if isinstance(ev, TokenEvent) and killed_after is None and ev.n_generated >= 5:
                a.kill()  # requests are in flight on both servers now
                killed_after = len(events)
        done = events[-1]
        assert isinstance(done, Done) and killed_after is not None and done_before_kill < n
        assert [r.finish_reason for r in done.results] == ["length"] * n
        for i, res in enumerate(done.results):
            assert res.text == _expected(model, _image(i), "text", 60).text
        assert not engine.servers[0].alive and engine.servers[1].alive
        engine.close()
    finally:
        a.stop()
        b.stop()


def test_parse_start_up_loads_no_server_stack():
    code = ("import sys; sys.argv = ['mineru-tui', 'parse', '--help']\n"
            "from mineru_tui.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "heavy = {'uvicorn', 'starlette', 'fastapi', 'httpx', 'numpy', 'anyio'}\n"
            "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in heavy), file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "LOADED []" in r.stderr


def test_parse_over_two_serves_writes_what_numpy_writes(tmp_path):
    """The issue's bar: `parse scan.png --engine http --server-url A,B` gives the numpy engine's
    MinerU output set (same pipeline; answers capped at a few tokens to stay quick)."""
    from PIL import ImageDraw

    scan = tmp_path / "scan.png"
    img = Image.new("RGB", (620, 800), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 760, 24):
        d.line((60, y, 560, y), fill="black", width=3)
    img.save(scan)
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_MAX_NEW_TOKENS="4", HF_HUB_OFFLINE="1")

    def parse(out, *engine_args):
        r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", str(scan), "-o", str(out), *engine_args],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return out / "scan"

    a, b = ServeProcess(), ServeProcess()
    try:
        ours = parse(tmp_path / "http", "--engine", "http", "--server-url", f"{a.url},{b.url}")
    finally:
        a.stop()
        b.stop()
    ref = parse(tmp_path / "numpy", "--engine", "numpy", "--model", str(TINY))
    for name in ("scan.md", "scan_content_list.json", "scan_middle.json"):
        assert (ours / name).read_text() == (ref / name).read_text(), name
    got, want = (json.loads((d / "scan_model.json").read_text()) for d in (ours, ref))
    assert got["engine"] == "http" and want["engine"] == "numpy"
    assert [p["layout"]["answer"] for p in got["pages"]] == [p["layout"]["answer"] for p in want["pages"]]
