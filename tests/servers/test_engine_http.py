"""``--engine http`` against scripted loopback servers: the request MinerU sends, streaming into
events, and every failure a real server cannot be made to show on demand (429 + Retry-After, a
stream cut in the middle, garbage, 5xx, a 4xx for one request, nobody answering).

Real servers (our ``serve``, two of them with one killed mid-run) are in test_serve.py.
"""

from __future__ import annotations

import io
import time

import pytest
from PIL import Image

from mineru_tui.engines import EngineError, EngineOptions, Request, open_engine
from mineru_tui.engines.http import connect
from mineru_tui.engines.openai_wire import EndTokenHoldBack, parse_server_url
from mineru_tui.engines.events import Done, SequenceDone, StageEvent, TokenEvent
from mineru_tui.reader.tasks import TASKS
from tests.server_helpers import Stub, delta, free_port, good_stream, sse


def _page() -> Image.Image:
    im = Image.new("RGB", (64, 48), "white")
    im.putpixel((3, 4), (10, 20, 30))
    return im


def _run(engine, requests):
    events = list(engine.stream(requests))
    assert isinstance(events[-1], Done)
    return events, events[-1].results


def _texts(events, n):
    out = [""] * n
    for ev in events:
        if isinstance(ev, TokenEvent):
            out[ev.seq_index] += ev.text_delta
    return out


@pytest.fixture
def stubs():
    made = []

    def make(script, **kw):
        s = Stub(script, **kw)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def test_request_body_is_the_one_mineru_http_client_builds(stubs):
    from mineru_vl_utils.mineru_client import DEFAULT_SAMPLING_PARAMS
    from mineru_vl_utils.vlm_client.base_client import DEFAULT_SYSTEM_PROMPT
    from mineru_vl_utils.vlm_client.http_client import HttpVlmClient

    stub = stubs(lambda n, body: (200, {}, good_stream()))
    engine = connect([stub.url])
    assert engine.model_id == "stub-model"  # resolved from /v1/models
    page = _page()
    _run(engine, [Request(page, TASKS["table"].prompt, TASKS["table"].sampling)])
    ours = stub.bodies[0]
    client = HttpVlmClient(server_url=stub.url, use_tqdm=False)
    buf = io.BytesIO()
    page.save(buf, format="PNG")
    theirs = client.build_request_body(DEFAULT_SYSTEM_PROMPT, [buf.getvalue()], "\nTable Recognition:",
                                       DEFAULT_SAMPLING_PARAMS["table"], "png", None)
    assert ours.pop("stream") is True
    assert ours.pop("stream_options") == {"include_usage": True}
    assert ours == theirs
    assert ours["skip_special_tokens"] is False and ours["vllm_xargs"]["no_repeat_ngram_size"] == 100


def test_stream_events_usage_and_end_token(stubs):
    stub = stubs(lambda n, body: (200, {}, good_stream("abc <|box_start|>1<|im_end|>")))
    engine = connect([stub.url])
    events, results = _run(engine, [Request(_page(), "\nText Recognition:")] * 2)
    assert [r.text for r in results] == ["abc <|box_start|>1"] * 2
    assert _texts(events, 2) == ["abc <|box_start|>1"] * 2  # deltas add up, end token held back
    assert all(r.prompt_tokens == 7 and r.finish_reason == "stop" for r in results)
    stages = [(e.stage, e.done) for e in events if isinstance(e, StageEvent)]
    assert stages == [("prefill", False), ("prefill", True), ("decode", False), ("decode", True)]
    timing = events[-1].timings
    assert timing.decode_tokens == 4 and timing.prefill_tokens == 14  # (3 - 1) per answer, 7 prompt each
    assert sum(isinstance(e, SequenceDone) for e in events) == 2


def test_api_key_from_the_environment(stubs, monkeypatch):
    monkeypatch.setenv("MINERU_VL_API_KEY", "sekret")
    stub = stubs(lambda n, body: (200, {}, good_stream()))
    _run(connect([stub.url]), [Request(None, "hi")])
    assert stub.headers[0]["Authorization"] == "Bearer sekret"


def test_429_waits_for_retry_after_then_succeeds(stubs):
    stub = stubs(lambda n, body: (429, {"Retry-After": "1"}, b'{"error": "busy"}') if n == 0
                 else (200, {}, good_stream("ok!")))
    engine = connect([stub.url], backoff=0.01)
    t0 = time.perf_counter()
    _, results = _run(engine, [Request(None, "hi")])
    assert results[0].text == "ok!"
    assert time.perf_counter() - t0 >= 0.9  # waited the second the server asked for
    assert len(stub.bodies) == 2


def test_a_stream_cut_mid_way_is_retried_without_repeating_text(stubs):
    stub = stubs(lambda n, body: (200, {}, None) if n == 0 else (200, {}, good_stream("partial answer")))
    engine = connect([stub.url], backoff=0.01)
    events, results = _run(engine, [Request(None, "hi")])
    assert results[0].text == "partial answer"
    assert _texts(events, 1) == ["partial answer"]  # "partial " shown once, not twice
    assert len(stub.bodies) == 2


def test_garbage_and_5xx_are_retried(stubs):
    answers = [(200, {}, b"data: {this is not json\n\n"), (503, {}, b"overloaded"),
               (200, {}, sse([delta("x")]))]  # no finish_reason, no [DONE]: incomplete

    def script(n, body):
        return answers[n] if n < len(answers) else (200, {}, good_stream("fine"))

    stub = stubs(script)
    engine = connect([stub.url], backoff=0.01, retries=3)
    _, results = _run(engine, [Request(None, "hi")])
    assert results[0].text == "fine" and len(stub.bodies) == 4


def test_a_request_that_keeps_failing_ends_alone_with_an_error(stubs):
    def script(n, body):
        if body["messages"][-1]["content"][-1]["text"] == "bad":
            return 400, {}, b'{"error": {"message": "image too large"}}'
        return 200, {}, good_stream("good")

    stub = stubs(script)
    engine = connect([stub.url], backoff=0.01)
    _, results = _run(engine, [Request(None, "ok"), Request(None, "bad"), Request(None, "ok")])
    assert [r.finish_reason for r in results] == ["stop", "error", "stop"]
    assert "HTTP 400" in results[1].error and "image too large" in results[1].error


def test_retries_are_bounded(stubs):
    stub = stubs(lambda n, body: (500, {}, b"boom"))
    engine = connect([stub.url], backoff=0.01, retries=2)
    _, results = _run(engine, [Request(None, "hi")])
    assert results[0].finish_reason == "error" and "gave up" in results[0].error
    assert len(stub.bodies) == 3  # 1 + 2 retries


def test_failover_to_the_other_server(stubs):
    dead = stubs(lambda n, body: (200, {}, good_stream("from A")))
    alive = stubs(lambda n, body: (200, {}, good_stream("from B")))
    engine = connect([dead.url, alive.url], backoff=0.01, concurrency=2)
    dead.close()  # A goes away after the health check
    _, results = _run(engine, [Request(None, f"r{i}") for i in range(6)])
    assert [r.text for r in results] == ["from B"] * 6
    assert not engine.servers[0].alive and engine.servers[1].alive


def test_no_server_answers_is_one_clear_error():
    urls = [f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"]
    with pytest.raises(EngineError, match="no server answers") as e:
        open_engine(EngineOptions(engine="http", server_urls=(",".join(urls),)))
    assert urls[0] in str(e.value) and urls[1] in str(e.value) and "\n" not in str(e.value)


def test_all_servers_dying_mid_run_raises_engine_error(stubs):
    stub = stubs(lambda n, body: (200, {}, good_stream()))
    engine = connect([stub.url], backoff=0.01)
    stub.close()
    with pytest.raises(EngineError, match="no server answers"):
        list(engine.stream([Request(None, "hi")]))


def test_model_name_rules(stubs):
    two = stubs(lambda n, body: (200, {}, good_stream()), models=("a", "b"))
    with pytest.raises(EngineError, match="serves 2 models"):
        connect([two.url])
    assert connect([two.url], "b").model_id == "b"
    with pytest.raises(EngineError, match="no server serves the model 'c'"):
        connect([two.url], "c")
    with pytest.raises(EngineError, match="needs --server-url"):
        connect([])


def test_server_url_rules_are_mineru_s():
    assert parse_server_url("http://127.0.0.1:30000") == ("http://127.0.0.1:30000", "v1")
    assert parse_server_url("http://h:8000/v1") == ("http://h:8000", "v1")
    assert parse_server_url("http://h:8000/proxy/v2/") == ("http://h:8000/proxy", "v2")
    assert parse_server_url("https://h/api/") == ("https://h/api", "v1")
    assert parse_server_url("https://h/api") == ("https://h", "v1")


def test_end_token_hold_back():
    hb = EndTokenHoldBack("<|im_end|>")
    out = hb.push("ab<|im") + hb.push("_e") + hb.push("nd|>")
    assert out == "ab" and hb.flush() == "" and hb.final() == "ab"
    hb = EndTokenHoldBack("<|im_end|>")
    out = hb.push("x<|im") + hb.push("age|>")
    assert out + hb.flush() == "x<|image|>"


def test_the_per_server_limit_holds_across_concurrent_calls(stubs):
    import threading

    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def script(n, body):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.15)
        with lock:
            state["now"] -= 1
        return 200, {}, good_stream("ok")

    stub = stubs(script)
    engine = connect([stub.url], concurrency=2)
    out = []
    calls = [threading.Thread(target=lambda: out.append(_run(engine, [Request(None, "x")] * 4)[1]))
             for _ in range(3)]
    for t in calls:
        t.start()
    for t in calls:
        t.join()
    assert [r.text for results in out for r in results] == ["ok"] * 12
    assert state["peak"] == 2  # 3 calls x 4 requests, never more than 2 at the server


def test_a_server_taken_out_rejoins_when_its_health_check_answers(stubs):
    flaky = stubs(lambda n, body: (500, {}, b"warming up") if n < 3 else (200, {}, good_stream("A")))

    def slow(n, body):
        time.sleep(0.3)
        return 200, {}, good_stream("B")

    steady = stubs(slow)
    engine = connect([flaky.url, steady.url], concurrency=1, backoff=0.01)
    engine.health_interval = 0.2
    _, results = _run(engine, [Request(None, f"r{i}") for i in range(10)])
    assert all(r.finish_reason == "stop" for r in results)
    assert len(flaky.bodies) > 3 and "A" in [r.text for r in results]  # back in service after 3 faults
