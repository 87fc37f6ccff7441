"""Real servers on loopback for the engine tests: our ``serve`` in a subprocess, and a scripted
stub for what a real server cannot be made to do on demand (429, a cut stream, garbage)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "fixtures" / "tiny"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen | None = None, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not become healthy in {timeout} s")


class ServeProcess:
    """``python -m mineru_tui serve`` on the tiny checkpoint, on a free loopback port."""

    def __init__(self, max_tokens: int = 12, extra: tuple[str, ...] = ()):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mineru_tui", "serve", "--model", str(TINY), "--port", str(self.port),
             "--max-tokens", str(max_tokens), *extra],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_healthy(self.url + "/health", self.proc)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()


def sse(chunks: list[dict | str]) -> bytes:
    out = []
    for c in chunks:
        out.append("data: " + (c if isinstance(c, str) else json.dumps(c)) + "\n\n")
    return "".join(out).encode()


def delta(text: str | None = None, finish: str | None = None, usage: dict | None = None) -> dict:
    choices = [] if usage is not None else [{"index": 0, "delta": {} if text is None else {"content": text},
                                              "finish_reason": finish}]
    d: dict = {"object": "chat.completion.chunk", "choices": choices}
    if usage is not None:
        d["usage"] = usage
    return d


def good_stream(text: str = "hello world") -> bytes:
    """A complete vLLM-shaped answer: role chunk, two deltas, finish, usage, [DONE]."""
    half = len(text) // 2
    return sse([{"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
                delta(text[:half]), delta(text[half:]), delta(finish="stop"),
                delta(usage={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}), "[DONE]"])


class Stub:
    """A scripted OpenAI-compatible server on loopback.

    ``script(n, body)`` gets the 0-based index of the chat request and its JSON body and returns
    ``(status, headers, payload_bytes)``; payload ``None`` means "send half a stream, then drop the
    connection". Requests and their headers are recorded.
    """

    def __init__(self, script: Callable[[int, dict], tuple[int, dict, bytes | None]],
                 models: tuple[str, ...] = ("stub-model",)):
        self.script = script
        self.models = models
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                if self.path.endswith("/models"):
                    body = json.dumps({"object": "list", "data": [{"id": m} for m in stub.models]}).encode()
                    self._send(200, {"Content-Type": "application/json"}, body)
                else:
                    self._send(404, {}, b"{}")

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = json.loads(raw)
                with stub.lock:
                    n = len(stub.bodies)
                    stub.bodies.append(body)
                    stub.headers.append(dict(self.headers))
                status, headers, payload = stub.script(n, body)
                if payload is None:  # a stream cut in the middle
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self.wfile.write(sse([delta("partial ")]))
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self._send(status, {"Content-Type": "text/event-stream", **headers}, payload)

            def _send(self, status, headers, body):
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")  # so close() really takes the stub away
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
