"""Pages per minute and tok/s of the numpy engine, our ``serve`` and llama.cpp, side by side.

The same full-size random-weight checkpoint (``bench/engine.py`` builds it; default in the temp
folder) and the same synthetic pages go through every configuration in one run:

  numpy        the numpy engine in this process (one batch of all pages)
  serve x1     one ``mineru-tui serve`` (numpy) + ``--engine http``
  serve x2     two ``serve`` processes, one ``--engine http`` over both (failover pool)
  llama x1     ``--engine llama-cpp``: one llama-server (``--threads`` all cores)
  llama x2     two llama-servers (cores split between them) + ``--engine http`` over both

Each page is one request (the page image + ``\\nText Recognition:``, MinerU's text knobs,
``--new-tokens`` tokens; random weights never stop early, so every answer has that length).
Reported per configuration: wall time, pages/min, mean time to first token (vision + prefill,
as seen by the client), decode tok/s over the call (all tokens / time from the first token to
the last: another request's vision work stalls decoding in between) and each request's own
decode rate (its tokens / the time between its first and last token), averaged.

The checkpoint is converted for llama.cpp with ``python -m mineru_tui.engines.gguf_export``
(Q8_0 text model + f16 projector, as MinerU ships it) unless ``--gguf DIR`` already holds one.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/servers.py [--pages 2] \\
        [--new-tokens 64] [--only numpy,serve1,...] [--json out.json]

Run it alone on the machine (it uses every core; the numbers are per machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.engine import page_image, write_checkpoint
from mineru_tui.engines import EngineOptions, Request, open_engine
from mineru_tui.engines.events import Done
from mineru_tui.reader.tasks import TASKS

CONFIGS = ("numpy", "serve1", "serve2", "llama1", "llama2")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 900) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: server exited with {proc.returncode}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise TimeoutError(url)


def start_serve(ckpt: Path, threads: int | None) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if threads:
        env["OMP_NUM_THREADS"] = env["OPENBLAS_NUM_THREADS"] = str(threads)
    proc = subprocess.Popen([sys.executable, "-m", "mineru_tui", "serve", "--model", str(ckpt),
                             "--port", str(port)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_healthy(url, proc)
    return proc, url


def start_llama(gguf: Path, threads: int, slots: int):
    from mineru_tui.engines.llama_cpp import LlamaServer, find_gguf

    model, proj = find_gguf(str(gguf))
    server = LlamaServer(model, proj, slots=slots, threads=threads, ctx_per_slot=4096)
    server.wait_ready(timeout=900)
    return server


def measure(engine, pages, new_tokens: int) -> dict:
    task = TASKS["text"]
    requests = [Request(p, task.prompt, task.sampling, new_tokens) for p in pages]
    t0 = time.perf_counter()
    done = None
    for ev in engine.stream(requests):
        if isinstance(ev, Done):
            done = ev
    wall = time.perf_counter() - t0
    assert done is not None
    bad = [r.error or r.finish_reason for r in done.results if r.finish_reason not in ("stop", "length")]
    if bad:
        raise RuntimeError(f"failed requests: {bad}")
    tokens = sum(len(r.token_ids) or r.timings.decode_tokens + 1 for r in done.results)  # http: no ids
    ttft = [r.timings.first_token_s for r in done.results]
    per_request = [r.timings.decode_tokens_per_s for r in done.results]
    return {"wall_s": round(wall, 1), "pages_per_min": round(len(pages) / wall * 60, 2),
            "mean_ttft_s": round(sum(ttft) / len(ttft), 1), "tokens": tokens,
            # tokens over the time between the call's first and last token (other requests'
            # vision can stall decoding in between), and each request's own decode rate
            "decode_tok_s": round(done.timings.decode_tokens_per_s, 1),
            "request_decode_tok_s": round(sum(per_request) / len(per_request), 1)}


def run_config(name: str, ckpt: Path, gguf: Path, pages, new_tokens: int) -> dict:
    cores = os.cpu_count() or 2
    if name == "numpy":
        engine = open_engine(EngineOptions(engine="numpy", model=str(ckpt)))
        try:
            return measure(engine, pages, new_tokens)
        finally:
            engine.close()
    procs, servers = [], []
    try:
        if name.startswith("serve"):
            n = int(name[-1])
            for _ in range(n):
                proc, url = start_serve(ckpt, max(1, cores // n) if n > 1 else None)
                procs.append(proc)
                servers.append(url)
        else:
            n = int(name[-1])
            for _ in range(n):
                s = start_llama(gguf, max(1, cores // n), slots=max(1, len(pages) // n))
                procs.append(s)
                servers.append(s.url)
        engine = open_engine(EngineOptions(engine="http", server_urls=tuple(servers),
                                           concurrency=max(1, len(pages) // n)))
        try:
            return measure(engine, pages, new_tokens)
        finally:
            engine.close()
    finally:
        for p in procs:
            if isinstance(p, subprocess.Popen):
                p.terminate()
                p.wait(timeout=30)
            else:
                p.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-bench-ckpt")
    ap.add_argument("--gguf", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-bench-gguf")
    ap.add_argument("--pages", type=int, default=2)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--only", default=",".join(CONFIGS), help=f"comma list of {', '.join(CONFIGS)}")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    only = [c for c in args.only.split(",") if c]
    if not (args.ckpt / "model.safetensors").exists():
        print(f"building the full-size random checkpoint in {args.ckpt} ...", file=sys.stderr)
        write_checkpoint(args.ckpt)
    if any(c.startswith("llama") for c in only) and not list(args.gguf.glob("mmproj*.gguf")):
        from mineru_tui.engines.gguf_export import export

        print(f"converting to GGUF (Q8_0 + f16 projector) in {args.gguf} ...", file=sys.stderr)
        export(args.ckpt, args.gguf, "q8_0")
    pages = [page_image(672, 896) for _ in range(args.pages)]  # 768 image tokens each
    results = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                           "python": platform.python_version()},
               "pages": args.pages, "new_tokens": args.new_tokens, "configs": {}}
    for name in only:
        print(f"{name} ...", file=sys.stderr, flush=True)
        try:
            results["configs"][name] = r = run_config(name, args.ckpt, args.gguf, pages, args.new_tokens)
        except Exception as e:  # noqa: BLE001 - report it and measure the others
            results["configs"][name] = {"error": f"{type(e).__name__}: {e}"}
            print(f"{name:8s} failed: {type(e).__name__}: {e}", flush=True)
            continue
        print(f"{name:8s} {r['wall_s']:7.1f} s  {r['pages_per_min']:6.2f} pages/min  "
              f"TTFT {r['mean_ttft_s']:6.1f} s  decode {r['decode_tok_s']:6.1f} tok/s "
              f"(per request {r['request_decode_tok_s']:.1f})", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
