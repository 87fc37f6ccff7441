"""The ASGI app of ``mineru-tui serve`` (Starlette): OpenAI chat completions over an engine.

Answers are shaped as vLLM's: a streamed answer starts with a ``role`` chunk, sends one chunk
per text delta, a last chunk with ``finish_reason``, then (with
``stream_options.include_usage``) a chunk with ``choices: []`` and ``usage``, then
``data: [DONE]``. A non-streamed answer always carries ``usage``. Errors are OpenAI-style
``{"error": {"message", "type", "code"}}`` with a 4xx for the client's mistakes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from mineru_tui.engines.base import Engine
from mineru_tui.engines.events import GenerationResult

from .batcher import Batcher, Pending
from .requests import BadRequest, parse_chat_request

MAX_BODY_BYTES = 64 * 1024 * 1024  # a page image as base64 PNG is a few MB


def _error(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}},
                        status_code=status)


def _usage(result: GenerationResult) -> dict[str, int]:
    completion = len(result.token_ids)
    return {"prompt_tokens": result.prompt_tokens, "completion_tokens": completion,
            "total_tokens": result.prompt_tokens + completion}


def _finish(result: GenerationResult) -> str:
    return "length" if result.finish_reason == "length" else "stop"


def create_app(engine: Engine, model_name: str, *, max_tokens: int | None = None,
               window: float = 0.02) -> Starlette:
    """The app; ``max_tokens`` caps every answer (and is the default when a request sets none)."""
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette):
        state["batcher"] = Batcher(engine, window)
        try:
            yield
        finally:
            state.pop("batcher").stop()

    async def health(_: HttpRequest) -> Response:
        batcher: Batcher | None = state.get("batcher")
        return JSONResponse({"status": "ok", "engine": engine.name, "model": model_name,
                             "queued": batcher.queue.qsize() if batcher else 0,
                             "batches": batcher.batches if batcher else 0,
                             "largest_batch": batcher.largest_batch if batcher else 0})

    async def models(_: HttpRequest) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": model_name, "object": "model", "created": int(time.time()),
             "owned_by": "mineru-tui", "max_model_len": max_tokens}]})

    async def chat(http: HttpRequest) -> Response:
        raw = await _body(http, MAX_BODY_BYTES)
        if raw is None:
            return _error(413, f"the body is larger than {MAX_BODY_BYTES // 2**20} MB")
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the body is not valid JSON")
        except RecursionError:
            return _error(400, "the body's JSON is nested too deeply")
        try:
            chat_req = parse_chat_request(body, max_tokens)
        except BadRequest as e:
            return _error(400, str(e))
        if chat_req.model is not None and chat_req.model != model_name:
            return _error(404, f"the model '{chat_req.model}' does not exist (this server has "
                               f"'{model_name}')", "not_found_error")
        pending = state["batcher"].submit(chat_req.request)
        rid = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        created = int(time.time())
        if chat_req.stream:
            return StreamingResponse(_sse(pending, rid, created, model_name, chat_req.include_usage),
                                     media_type="text/event-stream")
        # A client that leaves before its answer cancels it: the batcher stops the work
        # when every request of the batch is gone, and the next request does not wait.
        gone = asyncio.ensure_future(_disconnected(http))
        try:
            while True:
                got = asyncio.ensure_future(pending.events.get())
                await asyncio.wait({got, gone}, return_when=asyncio.FIRST_COMPLETED)
                if not got.done():
                    got.cancel()
                    pending.cancelled = True
                    return Response(status_code=499)  # nobody reads it
                kind, item = got.result()
                if kind == "token":
                    continue
                result: GenerationResult = item
                break
        finally:
            gone.cancel()
            if not pending.finished:
                pending.cancelled = True
        if result.finish_reason in ("error", "cancelled"):
            return _error(500, f"generation failed: {result.error or result.finish_reason}", "server_error")
        return JSONResponse({
            "id": rid, "object": "chat.completion", "created": created, "model": model_name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": result.text},
                         "finish_reason": _finish(result)}],
            "usage": _usage(result)})

    async def not_found(http: HttpRequest, exc: Exception) -> Response:
        return _error(404, f"no such endpoint: {http.method} {http.url.path}", "not_found_error")

    async def not_allowed(http: HttpRequest, exc: Exception) -> Response:
        return _error(405, f"{http.method} is not allowed on {http.url.path}")

    return Starlette(
        routes=[Route("/health", health, methods=["GET"]),
                Route("/v1/models", models, methods=["GET"]),
                Route("/v1/chat/completions", chat, methods=["POST"])],
        lifespan=lifespan,
        exception_handlers={404: not_found, 405: not_allowed},
    )


async def _body(http: HttpRequest, limit: int) -> bytes | None:
    """The request body, or None as soon as it is known to be larger than ``limit``: from
    its Content-Length before reading, or while it streams in (chunked uploads)."""
    declared = http.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        return None
    body = bytearray()
    async for part in http.stream():
        body += part
        if len(body) > limit:
            return None
    return bytes(body)


async def _disconnected(http: HttpRequest) -> None:
    """Return when the client has gone away (after the body was read)."""
    while True:
        message = await http.receive()
        if message["type"] == "http.disconnect":
            return


async def _sse(pending: Pending, rid: str, created: int, model: str, include_usage: bool):
    """The event stream of one answer (see the module docstring for its shape)."""

    def data(choices: list[dict[str, Any]], **extra: Any) -> str:
        payload = {"id": rid, "object": "chat.completion.chunk", "created": created,
                   "model": model, "choices": choices, **extra}
        return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"

    try:
        yield data([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        while True:
            kind, item = await pending.events.get()
            if kind == "token":
                if item.text_delta:
                    yield data([{"index": 0, "delta": {"content": item.text_delta}, "finish_reason": None}])
                continue
            result: GenerationResult = item
            break
        if result.finish_reason in ("error", "cancelled"):
            msg = f"generation failed: {result.error or result.finish_reason}"
            yield f"data: {json.dumps({'error': {'message': msg, 'type': 'server_error', 'code': 500}})}\n\n"
            return
        yield data([{"index": 0, "delta": {}, "finish_reason": _finish(result)}])
        if include_usage:
            yield data([], usage=_usage(result))
        yield "data: [DONE]\n\n"
    finally:
        if not pending.finished:
            pending.cancelled = True  # the client went away: stop generating for it
