"""``--engine http``: MinerU2.5 on one or more OpenAI-compatible servers (vLLM, llama.cpp, ours).

    engine = open_engine(EngineOptions(engine="http", server_urls=("http://gpu1:30000", "http://gpu2:30000")))

Each request is sent as mineru-vl-utils' http client sends it (:mod:`.openai_wire`), streamed
(SSE) with usage requested, and turned into the reader's events: ``TokenEvent`` per text chunk
(``token_id`` is -1: servers send text, not ids), ``SequenceDone`` per request, ``Done`` last,
with time to first token reported as the prefill stage and tok/s from the usage counts.

How the work is spread
    ``stream()`` is a plain iterator; the requests run in worker threads, ``concurrency``
    per live server, all taking jobs from one shared queue, so a fast server simply takes more.
    Each server's slots are a semaphore shared by every ``stream()`` call, so calls made at the
    same time (several files in flight) together never exceed the per-server limit. Threads suit
    this: the work is waiting on sockets, and a thread per in-flight request keeps the code
    sequential and easy to follow.

Failures
    * 429: wait ``Retry-After`` (capped), then try again — not the server's fault;
    * 500/502/503/504, timeouts, a stream cut in the middle, garbage: retried with exponential
      backoff (``backoff * 2**attempt``), up to ``retries`` times per request; three such
      failures in a row take the server out;
    * connection refused: the server is taken out at once and the request goes back to the queue
      for the others (not counted as an attempt);
    * other 4xx: that request ends with ``finish_reason == "error"``, the rest go on;
    * every server out: one more health check each, then :class:`EngineError` naming them.
    A server taken out is checked again every ``health_interval`` seconds and rejoins when it
    answers ``/v1/models``. A retried request streams again from the start; text already shown
    is not shown twice (greedy output repeats), and ``SequenceDone.result.text`` is always the
    complete answer of the attempt that succeeded.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from mineru_tui.engines.base import EngineError, EngineOptions, Request
from mineru_tui.engines.openai_wire import (
    EndTokenHoldBack,
    WireError,
    api_key,
    end_token,
    parse_server_url,
    parse_sse_line,
    request_body,
)
from mineru_tui.engines.events import (
    CancelFlag,
    Done,
    Event,
    GenerationResult,
    SequenceDone,
    StageEvent,
    Timing,
    TokenEvent,
)

DEFAULT_CONCURRENCY = 8  # requests in flight per server (vLLM takes far more; llama.cpp: its slots)
# What a server may send, checked here whatever it was asked (a hostile or broken server
# must not hang or swell the run; see README, "What a hostile server or PDF can do"):
DEFAULT_MAX_TOKENS = 16384  # the answer's length when the request sets none
MAX_CHARS_PER_TOKEN = 64  # text beyond max tokens x this is cut (a token is a few characters)
MAX_SSE_LINE = 1 << 20  # one event-stream line (one JSON chunk)
MAX_LINES_AFTER_LIMIT = 16  # lines read after max tokens (the finish and usage chunks)
MAX_STREAM_BYTES = 256 << 20  # everything one answer's stream may send
MAX_ERROR_BODY = 64 << 10  # what is read of a non-200 answer
MAX_MODELS_BYTES = 1 << 20  # the /v1/models answer
DEFAULT_REQUEST_SECONDS = 1800.0  # one request, from sending to the last byte
MAX_RETRY_AFTER_S = 60.0
MAX_THROTTLED = 8  # 429 answers tolerated per request
FAILS_TO_TAKE_OUT = 3  # consecutive server faults that take a server out


class Server:
    """One OpenAI-compatible endpoint, its connection pool and whether it is in service."""

    def __init__(self, url: str, slots: int, timeout: float, connect_timeout: float):
        import httpx

        self.url = url
        base, version = parse_server_url(url)
        self.chat_url = f"{base}/{version}/chat/completions"
        self.models_url = f"{base}/{version}/models"
        self.slots = slots
        headers = {"Authorization": f"Bearer {key}"} if (key := api_key()) else None
        self.client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(connect=connect_timeout, read=timeout, write=timeout, pool=None),
            limits=httpx.Limits(max_connections=slots + 2, max_keepalive_connections=slots),
        )
        self.gate = threading.BoundedSemaphore(slots)  # the per-server limit, across stream() calls
        self.alive = True
        self.reason = ""
        self.fails = 0
        self.checked_at = 0.0
        self.checking = False
        self.lock = threading.Lock()

    def take_out(self, reason: str) -> None:
        with self.lock:
            self.alive, self.reason, self.checked_at = False, reason, time.monotonic()

    def fault(self, reason: str) -> None:
        """A retryable failure; enough in a row take the server out."""
        with self.lock:
            self.fails += 1
            out = self.fails >= FAILS_TO_TAKE_OUT
        if out:
            self.take_out(reason)

    def ok(self) -> None:
        with self.lock:
            self.fails = 0

    def models(self, timeout: float = 5.0) -> list[str]:
        """The served model ids (raises httpx errors / WireError); the answer is read only
        up to :data:`MAX_MODELS_BYTES` and within ``timeout`` seconds in all."""
        import json

        deadline = time.monotonic() + timeout
        with self.client.stream("GET", self.models_url, timeout=timeout) as resp:
            if resp.status_code != 200:
                raise WireError(f"/models answered HTTP {resp.status_code}")
            body = bytearray()
            for part in resp.iter_bytes():
                body += part
                if len(body) > MAX_MODELS_BYTES:
                    raise WireError(f"/models answered more than {MAX_MODELS_BYTES >> 20} MiB")
                if time.monotonic() > deadline:
                    raise WireError(f"/models did not finish answering within {timeout:g} s")
        try:
            data = json.loads(bytes(body)).get("data", [])
            return [str(m["id"]) for m in data]
        except (ValueError, AttributeError, KeyError, TypeError, RecursionError):
            raise WireError("/models did not answer the OpenAI format") from None

    def check(self) -> bool:
        """Health check (``GET /v1/models``); brings the server back when it answers."""
        self.checking = True
        try:
            self.models(timeout=3.0)
        except Exception as e:  # noqa: BLE001 - any failure means "not healthy"
            with self.lock:
                self.alive, self.reason, self.checked_at = False, _why(e), time.monotonic()
            return False
        finally:
            self.checking = False
        with self.lock:
            self.alive, self.reason, self.fails, self.checked_at = True, "", 0, time.monotonic()
        return True

    def close(self) -> None:
        self.client.close()


def _why(e: BaseException) -> str:
    """A short reason for a failed call."""
    import httpx

    if isinstance(e, httpx.ConnectError):
        return "connection refused" if "refused" in str(e).lower() else f"cannot connect ({e})"
    if isinstance(e, httpx.TimeoutException):
        return "timed out"
    if isinstance(e, httpx.RemoteProtocolError):
        return "the connection was cut"
    return str(e) or type(e).__name__


@dataclass
class _Job:
    """One request's progress across attempts."""

    index: int
    body: dict[str, Any] | None = None
    attempts: int = 0  # retryable failures so far
    throttled: int = 0  # 429 answers so far
    not_before: float = 0.0  # monotonic time before which it must not be retried
    shown: list[str] = field(default_factory=list)  # text already emitted as TokenEvents
    shown_len: int = 0
    diverged: bool = False  # a retry produced other text than was shown: stop streaming it


@dataclass
class _Progress:
    """One attempt's text so far, as far as :meth:`HttpEngine._show` needs it."""

    pos: int = 0  # characters this attempt produced
    shown_text: str | None = None  # the job's shown text joined (only when a retry compares)


@dataclass
class _Call:
    """Shared state of one ``stream()`` call."""

    requests: Sequence[Request]
    cancel: CancelFlag | None
    t0: float
    events: queue.Queue = field(default_factory=queue.Queue)
    jobs: list[_Job] = field(default_factory=list)  # waiting to run
    cv: threading.Condition = field(default_factory=threading.Condition)
    left: int = 0  # requests without a result
    stop: bool = False


class _Retry(Exception):
    def __init__(self, reason: str, after: float | None = None, server_fault: bool = True,
                 throttled: bool = False):
        super().__init__(reason)
        self.reason, self.after, self.server_fault, self.throttled = reason, after, server_fault, throttled


class _ServerDown(Exception):
    pass


class _Failed(Exception):
    pass


class _Workers:
    """The worker threads of one ``stream`` call: ``server.slots`` of them per answering server
    (started at once), started again for a server that comes back; the servers that are out are
    checked every ``health_interval`` seconds, off the caller's thread."""

    def __init__(self, engine: HttpEngine, call: _Call):
        self.engine, self.call = engine, call
        self.threads: dict[Server, list[threading.Thread]] = {}
        for server in engine.servers:
            if server.alive:
                self.start(server)
        self.next_health = time.monotonic() + engine.health_interval

    def start(self, server: Server) -> None:
        """Top ``server`` up to ``server.slots`` live workers."""
        alive = [t for t in self.threads.get(server, []) if t.is_alive()]
        new = [threading.Thread(target=self.engine._worker, args=(self.call, server), daemon=True,
                                name=f"http-engine {server.url}") for _ in range(server.slots - len(alive))]
        self.threads[server] = alive + new
        for t in new:
            t.start()

    def tend(self) -> None:
        """Between two events: EngineError when no server answers (after one more look); the
        servers that are out checked when their time has come; workers for a server back."""
        servers = self.engine.servers
        if not any(s.alive for s in servers):
            self.engine._recheck(force=True)
            if not any(s.alive for s in servers):
                raise EngineError(self.engine._none_answers())
        elif (now := time.monotonic()) >= self.next_health:
            self.next_health = now + self.engine.health_interval
            for server in servers:
                if not server.alive and not server.checking:
                    threading.Thread(target=server.check, daemon=True).start()
        for server in servers:
            if server.alive and not any(t.is_alive() for t in self.threads.get(server, [])):
                self.start(server)

    def stop(self) -> None:
        """Tell every worker the call is over (they end after their current request)."""
        with self.call.cv:
            self.call.stop = True
            self.call.cv.notify_all()


def _ending(call: _Call, results: list[GenerationResult | None], first_token_at: float | None,
            last_token_at: float) -> Iterator[Event]:
    """The events that close a call: a ``cancelled`` result for each request that did not end,
    the stages still open, ``Done`` with the call's timings."""
    elapsed = time.perf_counter() - call.t0
    for i, res in enumerate(results):  # cancelled before they finished
        if res is None:
            results[i] = GenerationResult([], "", "cancelled", Timing(total_s=elapsed))
            yield SequenceDone(i, results[i])
    done_results = [r for r in results if r is not None]
    if first_token_at is None:
        yield StageEvent("prefill", True, elapsed, elapsed)
    timing = Timing(
        first_token_s=first_token_at or 0.0,
        prefill_s=first_token_at or 0.0,
        prefill_tokens=sum(r.prompt_tokens for r in done_results),
        decode_s=max(last_token_at - (first_token_at or 0.0), 0.0),
        decode_tokens=sum(r.timings.decode_tokens for r in done_results),
        decode_steps=max((r.timings.decode_steps for r in done_results), default=0),
        total_s=elapsed,
    )
    if first_token_at is not None:
        yield StageEvent("decode", True, elapsed, timing.decode_s, timing.decode_tokens)
    yield Done(done_results, timing)


class HttpEngine:
    """An :class:`~mineru_tui.engines.base.Engine` over OpenAI-compatible servers."""

    name = "http"
    continuous_batching = False  # the page reader sends ``max_batch`` requests per call

    def __init__(self, servers: list[Server], model_id: str, *, retries: int = 3,
                 backoff: float = 0.5, health_interval: float = 5.0,
                 request_seconds: float = DEFAULT_REQUEST_SECONDS):
        self.request_seconds = request_seconds
        self.servers = servers
        self.model_id = model_id
        self.retries = retries
        self.backoff = backoff
        self.health_interval = health_interval
        self.max_batch = 2 * sum(s.slots for s in servers)  # keep every slot fed, plus a queue
        self.end_token = end_token()

    # ------------------------------------------------------------------ the call

    def stream(self, requests: Sequence[Request], *, cancel: CancelFlag | None = None) -> Iterator[Event]:
        """Run every request on the servers; events as described in the module docstring."""
        call = _Call(requests, cancel, time.perf_counter())
        call.jobs = [_Job(i) for i in range(len(requests))]
        call.left = len(requests)
        results: list[GenerationResult | None] = [None] * len(requests)
        first_token_at: float | None = None
        last_token_at = 0.0
        yield StageEvent("prefill", False, 0.0)
        if not requests:
            yield StageEvent("prefill", True, 0.0)
            yield Done([], Timing())
            return
        self._recheck(force=False)
        workers = _Workers(self, call)
        try:
            while call.left > 0:
                if cancel is not None and cancel.is_set():
                    break
                try:
                    ev = call.events.get(timeout=0.2)
                except queue.Empty:
                    ev = None
                if isinstance(ev, TokenEvent):
                    if first_token_at is None:
                        first_token_at = ev.elapsed
                        yield StageEvent("prefill", True, ev.elapsed, ev.elapsed)
                        yield StageEvent("decode", False, ev.elapsed)
                    last_token_at = ev.elapsed
                    yield ev
                elif isinstance(ev, SequenceDone) and results[ev.seq_index] is None:
                    results[ev.seq_index] = ev.result
                    call.left -= 1
                    yield ev
                workers.tend()
        finally:
            workers.stop()
        yield from _ending(call, results, first_token_at, last_token_at)

    def adapt_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """Hook for servers that name a knob differently (the llama-cpp engine); as is here."""
        return body

    # ------------------------------------------------------------------ workers

    def _take(self, call: _Call, server: Server) -> _Job | None:
        """The next job that may run now (None: the call is over or the server is out)."""
        with call.cv:
            while True:
                if call.stop or call.left <= 0 or not server.alive:
                    return None
                now = time.monotonic()
                ready = [j for j in call.jobs if j.not_before <= now]
                if ready:
                    job = min(ready, key=lambda j: j.index)
                    call.jobs.remove(job)
                    return job
                wait = min((j.not_before for j in call.jobs), default=now + 0.5) - now
                call.cv.wait(timeout=max(0.01, min(wait, 0.5)))

    def _put_back(self, call: _Call, job: _Job, delay: float = 0.0) -> None:
        with call.cv:
            job.not_before = time.monotonic() + delay
            call.jobs.append(job)
            call.cv.notify_all()

    def _worker(self, call: _Call, server: Server) -> None:
        while not (call.stop or call.left <= 0) and server.alive:
            if not server.gate.acquire(timeout=0.2):  # another call holds every slot of it
                continue
            try:
                job = self._take(call, server)
                if job is None:
                    return
                self._run_job(call, server, job)
            finally:
                server.gate.release()

    def _run_job(self, call: _Call, server: Server, job: _Job) -> None:
        """One attempt of a job and what follows from its outcome."""
        try:
            result = self._attempt(call, server, job)
        except _ServerDown as e:
            server.take_out(str(e))
            self._put_back(call, job)
            return
        except _Retry as e:
            if e.server_fault:
                server.fault(e.reason)
            if e.throttled:
                job.throttled += 1
                give_up = job.throttled > MAX_THROTTLED
            else:
                job.attempts += 1
                give_up = job.attempts > self.retries
            if give_up:
                self._finish(call, job, self._error_result(call, f"{server.url}: {e.reason} "
                                                                 f"(gave up after retries)"))
            else:
                delay = e.after if e.after is not None else self.backoff * 2 ** (job.attempts - 1)
                self._put_back(call, job, delay)
            return
        except _Failed as e:
            self._finish(call, job, self._error_result(call, f"{server.url}: {e}"))
            return
        except Exception as e:  # noqa: BLE001 - a bug must not hang the call
            self._finish(call, job, self._error_result(call, f"{type(e).__name__}: {e}"))
            return
        server.ok()
        if result is not None:
            self._finish(call, job, result)

    def _finish(self, call: _Call, job: _Job, result: GenerationResult) -> None:
        call.events.put(SequenceDone(job.index, result))

    def _error_result(self, call: _Call, reason: str) -> GenerationResult:
        return GenerationResult([], "", "error", Timing(total_s=time.perf_counter() - call.t0),
                                error=reason.replace("\n", " ")[:300])

    def _attempt(self, call: _Call, server: Server, job: _Job) -> GenerationResult | None:
        """One streamed request; raises _Retry / _ServerDown / _Failed (None: cancelled)."""
        import httpx

        req = call.requests[job.index]
        if job.body is None:
            try:
                job.body = self.adapt_body(request_body(self.model_id, req.image, req.prompt,
                                                        req.sampling, req.max_new_tokens))
            except (OSError, ValueError) as e:
                raise _Failed(f"cannot send the image ({e})") from None
        started = time.perf_counter()
        deadline = time.monotonic() + self.request_seconds
        max_tokens = req.max_new_tokens or DEFAULT_MAX_TOKENS
        max_chars = max_tokens * MAX_CHARS_PER_TOKEN
        hold = EndTokenHoldBack(self.end_token)
        progress = _Progress()
        n_chunks = n_chars = after_limit = 0
        first = last = 0.0
        finish = None
        prompt_tokens = completion_tokens = None
        try:
            with server.client.stream("POST", server.chat_url, json=job.body) as resp:
                if resp.status_code != 200:
                    _read_some(resp, MAX_ERROR_BODY)
                    self._raise_for_status(resp)
                for line in _sse_lines(resp, deadline, self.request_seconds):
                    if call.stop or (call.cancel is not None and call.cancel.is_set()):
                        return None
                    at_limit = n_chunks >= max_tokens or n_chars >= max_chars
                    if at_limit:  # only the finish and usage chunks may follow, a few lines
                        after_limit += 1
                        if after_limit > MAX_LINES_AFTER_LIMIT:
                            finish = "length"
                            break
                    chunk = parse_sse_line(line)
                    if chunk is None:
                        continue
                    if chunk.done:
                        break
                    if chunk.prompt_tokens is not None:
                        prompt_tokens, completion_tokens = chunk.prompt_tokens, chunk.completion_tokens
                    if chunk.finish_reason is not None:
                        finish = chunk.finish_reason
                    if chunk.content and at_limit:  # more than asked for: the answer ends here
                        finish = "length"
                        break
                    if chunk.content:
                        now = time.perf_counter()
                        if n_chunks == 0:
                            first = now
                        last = now
                        n_chunks += 1
                        text = chunk.content[:max_chars - n_chars]
                        n_chars += len(text)
                        self._show(call, job, hold.push(text), n_chunks, progress)
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            raise _ServerDown(_why(e)) from None
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as e:
            raise _Retry(_why(e)) from None
        except WireError as e:
            raise _Retry(str(e)) from None
        if finish is None:
            raise _Retry("the stream ended before the answer was complete")
        self._show(call, job, hold.flush(), n_chunks, progress)
        if finish not in ("stop", "length"):
            raise _Failed(f"the server ended the answer with finish_reason {finish!r}")
        n_tokens = completion_tokens if isinstance(completion_tokens, int) else n_chunks
        n_tokens = min(max(n_tokens, 0), max_tokens)
        timing = Timing(
            first_token_s=(first - started) if n_chunks else 0.0,
            prefill_s=(first - started) if n_chunks else 0.0,
            prefill_tokens=prompt_tokens if isinstance(prompt_tokens, int) else 0,
            decode_s=(last - first) if n_chunks else 0.0,
            decode_tokens=max(n_tokens - 1, 0),
            decode_steps=max(n_tokens - 1, 0),
            total_s=time.perf_counter() - started,
        )
        return GenerationResult([], hold.final(), finish, timing,
                                prompt_tokens=prompt_tokens if isinstance(prompt_tokens, int) else 0)

    def _show(self, call: _Call, job: _Job, delta: str, n: int, progress: _Progress) -> None:
        """Emit the part of this attempt's new text ``delta`` not shown yet (see the module
        docstring on retries). Each character is looked at once: linear in the answer."""
        start = progress.pos
        progress.pos += len(delta)
        if job.diverged or not delta:
            return
        overlap = min(len(delta), max(job.shown_len - start, 0))
        if overlap:  # a retry repeating text shown before: it must be the same text
            if progress.shown_text is None:
                progress.shown_text = "".join(job.shown)
            if progress.shown_text[start:start + overlap] != delta[:overlap]:
                job.diverged = True
                return
        new = delta[overlap:]
        if not new:
            return
        job.shown.append(new)
        job.shown_len += len(new)
        call.events.put(TokenEvent(job.index, -1, new, n, time.perf_counter() - call.t0))

    @staticmethod
    def _raise_for_status(resp: Any) -> None:
        code = resp.status_code
        text = getattr(resp, "_some_text", "").replace("\n", " ")[:200]
        if code == 429:
            after = None
            value = resp.headers.get("retry-after")
            if value:
                try:
                    after = min(max(float(value), 0.0), MAX_RETRY_AFTER_S)
                except ValueError:
                    after = None
            raise _Retry("HTTP 429 (busy)", after=after if after is not None else 1.0,
                         server_fault=False, throttled=True)
        if code in (500, 502, 503, 504):
            raise _Retry(f"HTTP {code}: {text}")
        raise _Failed(f"HTTP {code}: {text}")

    # ------------------------------------------------------------------ health

    def _recheck(self, force: bool) -> None:
        """Health-check the servers that are out (all of them when ``force``), in parallel."""
        now = time.monotonic()
        due = [s for s in self.servers if not s.alive and (force or now - s.checked_at >= self.health_interval)]
        threads = [threading.Thread(target=s.check, daemon=True) for s in due]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _none_answers(self) -> str:
        parts = [f"{s.url} ({s.reason or 'no answer'})" for s in self.servers]
        return "no server answers: " + "; ".join(parts)

    def close(self) -> None:
        for server in self.servers:
            server.close()


def _read_some(resp: Any, limit: int) -> None:
    """Read at most ``limit`` bytes of an (error) answer, kept as ``resp._some_text``."""
    body = bytearray()
    for part in resp.iter_bytes():
        body += part
        if len(body) >= limit:
            break
    resp._some_text = bytes(body[:limit]).decode("utf-8", "replace")


def _sse_lines(resp: Any, deadline: float, seconds: float) -> Iterator[str]:
    """The event stream's lines, bounded: each at most :data:`MAX_SSE_LINE` bytes, all of
    them at most :data:`MAX_STREAM_BYTES`, and the whole answer before ``deadline``.
    Lines are cut from the bytes as they come (linear in the stream's length)."""
    pending = bytearray()
    total = 0
    for part in resp.iter_bytes():
        total += len(part)
        if total > MAX_STREAM_BYTES:
            raise _Failed(f"the answer's stream went over {MAX_STREAM_BYTES >> 20} MiB")
        if time.monotonic() > deadline:
            raise _Failed(f"no complete answer within {seconds:g} s")
        start = 0
        while True:
            end = part.find(b"\n", start)
            if end < 0:
                break
            pending += part[start:end]
            start = end + 1
            if len(pending) > MAX_SSE_LINE:
                raise _Failed(f"an event-stream line longer than {MAX_SSE_LINE >> 20} MiB")
            yield pending.decode("utf-8", "replace")
            pending.clear()
        pending += part[start:]
        if len(pending) > MAX_SSE_LINE:
            raise _Failed(f"an event-stream line longer than {MAX_SSE_LINE >> 20} MiB")
    if pending:
        yield pending.decode("utf-8", "replace")


def split_urls(urls: Sequence[str]) -> list[str]:
    """``("a,b", "c")`` -> ``["a", "b", "c"]`` (``--server-url`` takes commas and repeats)."""
    return [u.strip() for item in urls for u in item.split(",") if u.strip()]


def connect(urls: Sequence[str], model: str | None = None, *, concurrency: int = 0,
            timeout: float = 600.0, connect_timeout: float = 10.0, retries: int = 3,
            backoff: float = 0.5, health_interval: float = 5.0,
            request_seconds: float = DEFAULT_REQUEST_SECONDS) -> HttpEngine:
    """Check the servers and resolve the model name; EngineError (one line) when none answers.

    ``timeout`` bounds each wait for bytes, ``request_seconds`` one request in all."""
    urls = split_urls(urls)
    if not urls:
        raise EngineError("the http engine needs --server-url URL[,URL...]")
    try:
        servers = [Server(u, concurrency or DEFAULT_CONCURRENCY, timeout, connect_timeout) for u in urls]
    except ValueError as e:
        raise EngineError(f"--server-url: {e}") from None
    listed: dict[Server, list[str]] = {}

    def probe(server: Server) -> None:
        try:
            listed[server] = server.models()
        except Exception as e:  # noqa: BLE001
            server.take_out(_why(e))

    threads = [threading.Thread(target=probe, args=(s,), daemon=True) for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    up = [s for s in servers if s.alive]
    if not up:
        for s in servers:
            s.close()
        raise EngineError("no server answers: " + "; ".join(f"{s.url} ({s.reason})" for s in servers))
    model = model or os.environ.get("MINERU_VL_MODEL_NAME") or None
    names = listed[up[0]]
    if model is None:
        if len(names) != 1:
            raise EngineError(f"{up[0].url} serves {len(names)} models ({', '.join(names) or 'none'}); "
                              "name one with --server-model")
        model = names[0]
    elif not any(model in listed[s] for s in up):
        raise EngineError(f"no server serves the model {model!r} (they list: {', '.join(names)})")
    return HttpEngine(servers, model, retries=retries, backoff=backoff, health_interval=health_interval,
                      request_seconds=request_seconds)


def open_engine(options: EngineOptions) -> HttpEngine:
    """The engine registry's entry point (see :func:`connect`; ``extra`` may set timeout/retries)."""
    extra = dict(options.extra)
    try:
        timeout = float(extra.get("timeout", 600))
        retries = int(extra.get("retries", 3))
        request_seconds = float(extra.get("request_timeout", DEFAULT_REQUEST_SECONDS))
    except ValueError as e:
        raise EngineError(f"http engine setting: {e}") from None
    return connect(options.server_urls, options.server_model, concurrency=options.concurrency,
                   timeout=timeout, retries=retries, request_seconds=request_seconds)
