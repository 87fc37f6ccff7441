"""CPU cost of ``--effort low -o`` on a long born-digital PDF, beside docling-rs writing
MinerU 4's output set for the same file (issue 30).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/effort_low.py \\
        --peer-python PEER/bin/python [--pages 300] [--rounds 2] [--json out.json] \\
        [--baseline OTHER_CHECKOUT] [--without-probe]

The PDF is made at run time: the repository's public PDFs (``tests/corpus/pdf``) joined
with pypdfium2, over and over in name order, until it has ``--pages`` pages. Each tool runs
in its own child process, taking turns round after round so that outside load hits them
alike:

* **ours**: ``mineru-tui parse FILE --effort low -o DIR`` (the command a user runs; the
  console script's Python is this checkout's ``.venv``);
* **docling-rs**: ``docling_rs.mineru.parse(FILE, tier="flash").save(writer)`` in
  ``--peer-python`` (a venv with ``docling-rs==2.52.7``: MinerU 4's output set from the
  text layer, no model).

* **baseline** (with ``--baseline``): the same command from another checkout's ``.venv``
  (e.g. ``main`` beside a branch), to give a change's before and after in one run.

* **ours, no page probe** (with ``--without-probe``): ours with ``MINERU_TUI_PAGE_PROBE=0``, a
  diagnosis row: what the guard against content-stream bombs (``pdf/probe.py``: each page parsed
  first in a child process) costs, which docling-rs does not do.

Per run: CPU seconds (user + system of the child, from ``wait4``), wall seconds and the
child's peak RSS. The best of ``--rounds`` is reported, and every run in ``--json``.
Without ``--peer-python`` only ours runs.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from testkit.pdf_fixtures import joined_pdf  # noqa: E402  (the corpus PDFs joined to N pages)

PEER = """
import sys
from docling_rs.mineru import FileBasedDataWriter, parse
parse(sys.argv[1], tier="flash").save(FileBasedDataWriter(sys.argv[2]))
"""


def run(cmd: list[str], env=None) -> dict:
    """Run ``cmd``; its CPU seconds (user + system), wall seconds and peak RSS (MiB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode("utf-8", "replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # 1: some page failed (a warning), the set is still written
        raise SystemExit(f"{cmd[0]} failed ({code}):\n{err[-2000:]}")
    return {"cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "wall_s": round(wall, 2),
            "peak_mib": round(usage.ru_maxrss / 1024, 1), "exit": code}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--peer-python", help="a Python with docling-rs 2.52.7 installed")
    ap.add_argument("--json", type=Path, help="write every run here")
    ap.add_argument("--baseline", type=Path, help="another checkout (with its .venv) to run beside this one")
    ap.add_argument("--without-probe", action="store_true",
                    help="also run ours with MINERU_TUI_PAGE_PROBE=0 (what the page probe costs)")
    args = ap.parse_args(argv)

    ours = str(Path(sys.executable).with_name("mineru-tui"))
    with tempfile.TemporaryDirectory(prefix="effort-low-") as tmp:
        pdf = joined_pdf(Path(tmp) / "joined.pdf", args.pages)
        tools = {"ours": lambda out: [ours, "parse", str(pdf), "--effort", "low", "-q", "-o", out]}
        if args.baseline:
            other = str(args.baseline.resolve() / ".venv" / "bin" / "mineru-tui")
            tools["baseline"] = lambda out: [other, "parse", str(pdf), "--effort", "low", "-q", "-o", out]
        if args.peer_python:
            tools["docling-rs"] = lambda out: [args.peer_python, "-c", PEER, str(pdf), out]
        envs = {}
        if args.without_probe:
            tools["ours, no page probe"] = tools["ours"]
            envs["ours, no page probe"] = {**os.environ, "MINERU_TUI_PAGE_PROBE": "0"}
        runs: dict[str, list[dict]] = {name: [] for name in tools}
        for r in range(args.rounds):
            for n, (name, cmd) in enumerate(tools.items()):
                out = Path(tmp) / f"run{n}-{r}"
                out.mkdir()
                runs[name].append(run(cmd(str(out)), env=envs.get(name)))
                print(f"round {r + 1} {name}: {runs[name][-1]}", file=sys.stderr)
    print(f"{args.pages}-page PDF (tests/corpus/pdf joined), --effort low -o; best of {args.rounds}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| tool | CPU s | wall s | peak RSS MiB |")
    print("| --- | --- | --- | --- |")
    best = {}
    for name, rs in runs.items():
        b = min(rs, key=lambda x: x["cpu_s"])
        best[name] = b
        print(f"| {name} | {b['cpu_s']:.1f} | {b['wall_s']:.1f} | {max(x['peak_mib'] for x in rs):.0f} |")
    if "docling-rs" in best:
        print(f"ours / docling-rs CPU: {best['ours']['cpu_s'] / best['docling-rs']['cpu_s']:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"pages": args.pages, "machine": platform.processor() or
                                         platform.machine(), "python": platform.python_version(),
                                         "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
