"""Time the web-format corpus through each tool, every tool in its own single process.

Ours: every file through ``mineru_tui.convert.convert`` (detection by bytes included) and
``to_markdown`` in one process, after one warm-up file; peers: ``bench/office_peers.py``
(one process per tool, its model/converter loaded once, then file by file). Prints the
total and the median per file by kind, for the files every tool read.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE flock /tmp/mineru-bench.lock \\
        .venv/bin/python bench/web_speed.py --corpus DIR --peer-python docling-rs=PY ...
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUFFIXES = (".html", ".htm", ".xhtml", ".mht", ".mhtml", ".epub", ".csv", ".tsv")


def run_ours(files: list[Path]) -> dict[str, float]:
    sys.path.insert(0, str(HERE.parent))
    from mineru_tui.convert import convert
    from mineru_tui.document import to_markdown

    to_markdown(convert(files[0]), "")  # imports and first-use costs out of the timings
    out = {}
    for f in files:
        t = time.perf_counter()
        try:
            to_markdown(convert(f), "")
            out[f.name] = time.perf_counter() - t
        except Exception:  # noqa: BLE001 — a failure is not timed
            pass
    return out


def run_peer(tool: str, python: str, files: list[Path], work: Path) -> dict[str, float]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    subprocess.run([python, str(HERE / "office_peers.py"), "--tool", tool, "--out", str(work),
                    "--force", *map(str, files)], env=env, check=False, capture_output=True)
    res = {}
    for line in (work / tool / "results.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec["ok"]:
            res[rec["file"]] = rec["seconds"]
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--peer-python", action="append", default=[], metavar="TOOL=PATH")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-web-speed")
    args = ap.parse_args()
    files = sorted(p for p in args.corpus.iterdir()
                   if p.suffix.lower() in SUFFIXES and p.name != "SOURCES.tsv")
    times = {"ours": run_ours(files)}
    for item in args.peer_python:
        tool, _, python = item.partition("=")
        times[tool] = run_peer(tool, python, files, args.work)
    common = [f for f in files if all(f.name in t for t in times.values())]
    kinds = {".htm": "html", ".xhtml": "html", ".mht": "mhtml", ".tsv": "csv"}
    kind = {f.name: kinds.get(f.suffix.lower(), f.suffix.lower().lstrip(".")) for f in files}
    present = sorted({kind[f.name] for f in common})
    print(f"{len(common)} of {len(files)} files read by every tool\n")
    print("| tool | total s | " + " | ".join(f"{k} median ms" for k in present) + " |")
    print("|---|---|" + "---|" * len(present))
    for tool, t in times.items():
        per = [statistics.median([t[f.name] for f in common if kind[f.name] == k]) * 1000
               for k in present]
        print(f"| {tool} | {sum(t[f.name] for f in common):.3f} | "
              + " | ".join(f"{v:.1f}" for v in per) + " |")


if __name__ == "__main__":
    main()
