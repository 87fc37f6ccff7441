"""The ``mineru-tui serve`` command: our engines behind an OpenAI-compatible endpoint.

Registered on the main Typer app by :func:`register`; Starlette, uvicorn and the model load
only when ``serve`` runs, so ``parse`` start-up does not pay for them.
"""

from __future__ import annotations

import sys
from typing import Optional

import typer

from mineru_tui.cli.options import EngineName, check_max_new_tokens, model_option

SERVE_HELP = """Serve the MinerU2.5 model over an OpenAI-compatible HTTP API.

\b
Routes: POST /v1/chat/completions (streamed or not, with usage),
GET /v1/models, GET /health. MinerU's own http client
(mineru-vl-utils, backend "http-client") and `parse --engine http
--server-url URL` can use it. Requests are queued and batched into the
engine; decoding is greedy with MinerU's knobs taken from each request.

\b
Listens on 127.0.0.1 (this machine only) unless --host says otherwise;
there is no authentication, so only open it to networks you trust.
Needs the `serve` extra: pip install 'mineru-tui[serve]'.
"""


# the engines serve runs in this process (a server engine would only forward requests)
LOCAL_ENGINES = (EngineName.numpy, EngineName.coreml, EngineName.coreai, EngineName.openvino)


def serve(
    engine: EngineName = typer.Option(
        EngineName.numpy, "--engine", "-e",
        help="What runs the MinerU2.5 model in this process: numpy (the reference, the "
             "default), openvino, coreml or coreai (no auto: a server runs one engine you name)."),
    model: Optional[str] = model_option(),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(30000, "--port", "-p", help="Port to listen on."),
    served_name: Optional[str] = typer.Option(None, "--served-model-name", metavar="NAME",
                                              help="Model id shown in /v1/models (default: "
                                                   "the checkpoint's name)."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", "-n", metavar="N",
                                             help="Cap every answer at N tokens (default: "
                                                  "the model's context)."),
) -> None:
    if engine not in LOCAL_ENGINES:
        raise typer.BadParameter(f"choose {' or '.join(e.value for e in LOCAL_ENGINES)}",
                                 param_hint="--engine")
    check_max_new_tokens(max_tokens, "--max-tokens")
    if not 0 < port < 65536:
        raise typer.BadParameter("must be 1-65535", param_hint="--port")
    try:
        import uvicorn

        from mineru_tui.serve.app import create_app
    except ImportError as e:
        print(f"error: serve needs the 'serve' extra (pip install 'mineru-tui[serve]'): {e}",
              file=sys.stderr)
        raise typer.Exit(1) from None
    from mineru_tui.engines.base import EngineError

    try:  # before the model loads: a busy port is known in a moment
        sock = _bind(host, port)
    except OSError as e:
        print(f"error: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        raise typer.Exit(1) from None
    try:
        try:
            eng = _open(engine.value, model)
        except EngineError as e:
            from mineru_tui.cli.options import engine_error_line

            print(engine_error_line(str(e), model), file=sys.stderr)
            raise typer.Exit(1) from None
        name = served_name or _display_name(model or eng.model_id)
        print(f"serving {name} ({eng.name} engine) on http://{host}:{port}/v1", file=sys.stderr,
              flush=True)
        try:
            from mineru_tui.serve.connections import GuardedH11Protocol

            # a stalled client is closed (connections.py); at most 1,000 connections and
            # requests at once, beyond that new ones get 503 at once
            config = uvicorn.Config(create_app(eng, name, max_tokens=max_tokens), host=host,
                                    port=port, log_level="warning", lifespan="on",
                                    http=GuardedH11Protocol, limit_concurrency=1000)
            uvicorn.Server(config).run(sockets=[sock])
        finally:
            eng.close()
    finally:
        sock.close()


def _bind(host: str, port: int):
    """A listening socket on ``host:port``, as uvicorn would open it (OSError if taken)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


def _open(engine: str, model: Optional[str]):
    """The engine, through the engine registry (EngineError with one line)."""
    from mineru_tui.engines import EngineOptions, open_engine

    return open_engine(EngineOptions(engine=engine, model=model))


def _display_name(spec: str) -> str:
    """``/x/MinerU2.5-Pro-2605-1.2B`` or ``org/MinerU...`` -> ``MinerU2.5-Pro-2605-1.2B``."""
    return spec.rstrip("/").replace("\\", "/").rsplit("/", 1)[-1] or "mineru"


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to the main app."""
    app.command(name="serve", help=SERVE_HELP)(serve)
