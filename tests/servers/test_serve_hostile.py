"""``serve`` against hostile clients (issue 19, point 11 and ``n: true``): bodies bounded
while they stream, stalled connections closed, a client that leaves cancels its work,
images bounded in pixels, deep JSON a 400. The server is the real app under uvicorn with
the protocol ``serve`` uses, in this process, on loopback, over a scripted engine; small
bounds come in through the module constants. No case depends on timing: what the server
must do happens whenever the bound is reached, and a generous guard only turns a hang into
a failure."""

from __future__ import annotations

import base64
import json
import socket
import struct
import threading
import time
import zlib

import pytest

from mineru_tui.serve import app as serve_app
from mineru_tui.serve.connections import GuardedH11Protocol
from mineru_tui.serve.requests import BadRequest, parse_chat_request
from testkit.scripted_engine import ScriptedEngine

GUARD = 60.0  # seconds before a hang is a failure (not a timing assertion)


class Server:
    def __init__(self, engine):
        import uvicorn

        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(serve_app.create_app(engine, "m", max_tokens=None), log_level="error",
                                lifespan="on", http=GuardedH11Protocol)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + GUARD
        while not self.server.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)

    def connect(self) -> socket.socket:
        s = socket.create_connection(("127.0.0.1", self.port), timeout=GUARD)
        return s

    def close(self):
        self.server.should_exit = True
        self.thread.join(GUARD)


def chat_body(prompt="\nText Recognition:", **extra) -> bytes:
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": prompt}], **extra}).encode()


def post(body: bytes, headers: str = "") -> bytes:
    return (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{headers}\r\n").encode() + body


def read_all(s: socket.socket) -> bytes:
    out = b""
    while True:
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            break
        if not data:
            break
        out += data
    return out


@pytest.fixture
def slow_engine():
    seen = {"tokens": 0, "cancelled": threading.Event()}

    def on_token(ev):
        seen["tokens"] += 1
        time.sleep(0.005)

    engine = ScriptedEngine(lambda req: "word " * 100_000, on_token=on_token)
    real = engine.stream

    def stream(requests, cancel=None):
        for ev in real(requests, cancel=cancel):
            if getattr(ev, "result", None) is not None and ev.result.finish_reason == "cancelled":
                seen["cancelled"].set()
            yield ev
    engine.stream = stream
    engine.seen = seen
    return engine


@pytest.fixture
def server(slow_engine):
    s = Server(slow_engine)
    yield s
    s.close()


def test_a_declared_huge_body_is_refused_before_it_is_read(server):
    with server.connect() as s:
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 10737418240\r\n\r\n")
        answer = s.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413")


def test_a_chunked_body_is_cut_at_the_limit_while_it_streams(server, monkeypatch):
    monkeypatch.setattr(serve_app, "MAX_BODY_BYTES", 1 << 20)
    with server.connect() as s:
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        piece = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
        answer = b""
        s.settimeout(0.05)
        for _ in range(100_000):  # an endless upload, until the server answers
            try:
                s.sendall(piece)
                answer = s.recv(65536)
            except (socket.timeout, BlockingIOError):
                continue
            except OSError:
                break
            if answer:
                break
    assert answer.startswith(b"HTTP/1.1 413"), answer[:100]


def test_a_stalled_request_is_closed_and_health_still_answers(server, monkeypatch):
    monkeypatch.setattr(GuardedH11Protocol, "idle_seconds", 0.2)
    with server.connect() as half, server.connect() as half_body:
        half.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")  # no end of headers
        half_body.sendall(post(chat_body())[:-10])  # headers, and not all the body
        assert read_all(half) == b"" and read_all(half_body) == b""  # closed by the server
    with server.connect() as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert read_all(s).startswith(b"HTTP/1.1 200")


def test_a_client_that_leaves_cancels_its_non_streamed_work(server, slow_engine):
    s = server.connect()
    s.sendall(post(chat_body()))
    deadline = time.monotonic() + GUARD
    while slow_engine.seen["tokens"] < 5:  # it is being answered
        assert time.monotonic() < deadline
        time.sleep(0.01)
    s.close()
    assert slow_engine.seen["cancelled"].wait(GUARD), "the work went on after the client left"


def test_deep_json_is_a_400(server):
    with server.connect() as s:
        s.sendall(post(b"[" * 100_000 + b"]" * 100_000, "Connection: close\r\n"))
        answer = read_all(s)
    assert answer.startswith(b"HTTP/1.1 400") and b"nested too deeply" in answer


def png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims ``width`` x ``height`` (the pixels themselves are absent)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 16)) + chunk(b"IEND", b""))


def image_body(data: bytes, **extra) -> dict:
    url = "data:image/png;base64," + base64.b64encode(data).decode()
    return {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}},
                                                       {"type": "text", "text": "x"}]}], **extra}


@pytest.mark.parametrize("width,height,words", [
    (13_000, 13_000, "13000 x 13000 = 169,000,000 pixels"),  # the 169 MP
    (400_000, 250_000, "has more pixels"),  # 100 gigapixels: PIL's own bomb error
])
def test_images_are_bounded_in_pixels(width, height, words):
    with pytest.raises(BadRequest, match=words):
        parse_chat_request(image_body(png_header(width, height)), None)


def test_n_true_is_refused():
    with pytest.raises(BadRequest, match="'n' must be an integer"):
        parse_chat_request(json.loads(chat_body(n=True)), None)
    assert parse_chat_request(json.loads(chat_body(n=1)), None).request.prompt
