"""``mineru-tui serve``: our engines behind an OpenAI-compatible chat-completions endpoint.

    from mineru_tui.serve import create_app
    app = create_app(engine, model_name="MinerU2.5")       # an ASGI app (Starlette)

Routes: ``POST /v1/chat/completions`` (streamed or not, with usage), ``GET /v1/models``,
``GET /health``. Requests are queued and batched into the engine by :mod:`.batcher` (one batch
at a time in a worker thread); :mod:`.requests` turns an OpenAI body into an engine request and
rejects malformed ones with a 4xx and one clear sentence.

Starlette and uvicorn come with the ``serve`` extra; nothing here is imported by ``parse``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
