"""Benchmark the Office path: per-file parse time and peak memory, and CLI startup time.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/office.py [FOLDER]
        [--runs N] [--startup-runs N] [--doc docs/office-bench.md]

For every Office file in FOLDER (default: tests/corpus/office/), it times what
``mineru-tui parse`` does in process: detection (zip checks included) plus reading into the
document model ("parse"), and rendering Markdown, content list and middle JSON ("render").
Each is the median of N runs after one warm-up run; "peak" is the tracemalloc peak of one
more, untimed run. Then it times two subprocesses: ``mineru-tui parse --help`` and a
one-file parse to stdout (median of --startup-runs).

A table goes to stdout; with ``--doc`` the results, the machine's facts and the exact
command are written to that Markdown file. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are
removed from the environment for this benchmark only (the script re-runs itself without
them), so that the numbers do not depend on a shell's OpenBLAS tuning.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

if any(v in os.environ for v in UNSET):  # re-run without them (see the docstring)
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

sys.path.insert(0, str(ROOT))

from mineru_tui.detect import OFFICE_KINDS, detect  # noqa: E402
from mineru_tui.document import to_content_list, to_markdown, to_middle_json  # noqa: E402
from mineru_tui.errors import InputError  # noqa: E402


def office_files(folder: Path) -> list[Path]:
    out = []
    for p in sorted(folder.iterdir()):
        if not p.is_file() or p.name.startswith("."):
            continue
        try:
            if detect(p).kind in OFFICE_KINDS:
                out.append(p)
        except InputError:
            pass
    return out


def parse_once(path: Path):
    from mineru_tui.office import read_office
    return read_office(path, detect(path).kind)


def render_once(doc) -> None:
    to_markdown(doc, "images/")
    to_content_list(doc, "images/")
    to_middle_json(doc, "images/")


_RSS_PROBE = """
import sys
sys.path.insert(0, sys.argv[2])
def hwm():  # peak RSS of this process in KiB (VmHWM is reset by exec, ru_maxrss is not)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
from mineru_tui.detect import detect
from mineru_tui.office import read_office
from mineru_tui.document import to_content_list, to_markdown, to_middle_json
base = hwm()
doc = read_office(sys.argv[1], detect(sys.argv[1]).kind)
to_markdown(doc); to_content_list(doc); to_middle_json(doc)
print(hwm(), base)
"""


def peak_rss(path: Path) -> tuple[float, float]:
    """(peak RSS, peak RSS before reading) in MiB of a fresh process that parses ``path``.

    tracemalloc sees only Python's allocator; lxml's libxml2 trees live outside it. The
    part before reading is the interpreter and the CLI's own modules; the reader's
    libraries (lxml...) load during the read and count in the difference.
    """
    r = subprocess.run([sys.executable, "-c", _RSS_PROBE, str(path), str(ROOT)],
                       capture_output=True, text=True, check=True)
    peak, base = (int(x) / 1024 for x in r.stdout.split())
    return peak, base


def median_time(fn, runs: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def bench_file(path: Path, runs: int) -> dict:
    row: dict = {"file": path.name, "kind": detect(path).kind,
                 "kib": path.stat().st_size / 1024}
    try:
        row["parse"] = median_time(lambda: parse_once(path), runs)
        doc = parse_once(path)
        row["render"] = median_time(lambda: render_once(doc), runs)
        row["pages"] = len(doc.pages)
        row["blocks"] = sum(1 for _ in doc.iter_blocks())
        tracemalloc.start()
        render_once(parse_once(path))
        row["peak"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        row["rss"] = peak_rss(path)
    except Exception as e:  # report, don't stop the benchmark
        row["error"] = f"{type(e).__name__}: {e}"[:80]
    return row


def cli_command() -> list[str]:
    """This tree's CLI (``python -m mineru_tui`` with the repo first on the path), not an
    installed ``mineru-tui`` script that may point at another checkout."""
    return [sys.executable, "-m", "mineru_tui"]


def startup(args: list[str], runs: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    times = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        subprocess.run(cli_command() + args, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        if i:  # the first run warms the file cache
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def machine_facts() -> list[str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    versions = []
    for _mod, name in (("lxml", "lxml"), ("typer", "typer")):
        try:
            from importlib.metadata import version
            versions.append(f"{name} {version(name)}")
        except Exception:
            pass
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "?"
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return [
        f"- date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- machine: {cpu}, {os.cpu_count()} cores, {mem} memory, {platform.platform()}",
        f"- Python {platform.python_version()} (the project's venv)",
        f"- {', '.join(versions)}",
        f"- mineru-tui commit {commit}" + (" plus uncommitted changes" if dirty else ""),
        f"- load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
        "(other work shares the machine)",
    ]


def fmt_ms(s: float | None) -> str:
    return "—" if s is None else f"{s * 1000:.1f}"


def table(rows: list[dict]) -> list[str]:
    out = ["| file | kind | KiB | parse ms | render ms | traced peak MiB | peak RSS MiB "
           "(+ during the read) | pages | blocks |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['file']} | {r['kind']} | {r['kib']:.0f} | failed: {r['error']} "
                       "| | | | | |")
            continue
        out.append(f"| {r['file']} | {r['kind']} | {r['kib']:.0f} | {fmt_ms(r['parse'])} | "
                   f"{fmt_ms(r['render'])} | {r['peak']:.1f} | {r['rss'][0]:.0f} "
                   f"(+{r['rss'][0] - r['rss'][1]:.0f}) | {r['pages']} | {r['blocks']} |")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", type=Path, default=ROOT / "tests/corpus/office")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per file (default 7)")
    ap.add_argument("--startup-runs", type=int, default=5)
    ap.add_argument("--doc", type=Path, help="write the results as Markdown to this file")
    ap.add_argument("--note", default="", help="a line to add under Machine in --doc")
    a = ap.parse_args()

    files = office_files(a.folder)
    if not files:
        print(f"no Office files in {a.folder}", file=sys.stderr)
        return 1
    rows = []
    for p in files:
        rows.append(bench_file(p, a.runs))
        print(f"  {p.name}", file=sys.stderr, flush=True)
    ok = [r for r in rows if "error" not in r]
    summary = []
    if ok:
        parse = [r["parse"] for r in ok]
        total = [r["parse"] + r["render"] for r in ok]
        summary += [
            f"- files: {len(rows)} ({len(rows) - len(ok)} failed)",
            f"- parse (detect + read) per file: median {fmt_ms(statistics.median(parse))} ms, "
            f"max {fmt_ms(max(parse))} ms",
            f"- parse + render per file: median {fmt_ms(statistics.median(total))} ms, "
            f"max {fmt_ms(max(total))} ms",
            f"- peak memory: Python objects (tracemalloc) max {max(r['peak'] for r in ok):.1f} MiB; "
            f"whole process (RSS, fresh process per file) max "
            f"{max(r['rss'][0] for r in ok):.0f} MiB, of which at most "
            f"{max(r['rss'][0] - r['rss'][1] for r in ok):.0f} MiB came during the read "
            "(reader libraries included)",
        ]
    else:
        summary.append(f"- files: {len(rows)}, all failed")
    one = (ok[0]["file"] if ok else files[0].name)
    help_s = startup(["parse", "--help"], a.startup_runs)
    one_s = startup(["parse", str(a.folder / one)], a.startup_runs)
    summary += [f"- startup, `mineru-tui parse --help`: median {fmt_ms(help_s)} ms "
                f"(subprocess, {a.startup_runs} runs)",
                f"- one-file parse to stdout, `mineru-tui parse {one}`: median "
                f"{fmt_ms(one_s)} ms (subprocess, {a.startup_runs} runs)"]

    lines = table(rows)
    print("\n".join(lines))
    print()
    print("\n".join(summary))

    if a.doc:
        try:
            shown = Path(a.folder).resolve().relative_to(ROOT)
        except ValueError:
            shown = a.folder
        cmd = ("env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/office.py "
               + shlex.join([str(shown), "--runs", str(a.runs), "--startup-runs",
                             str(a.startup_runs), "--doc", str(a.doc)]))
        doc = ["# Office benchmark", "",
               "Per-file parse time and peak memory of the Office path, and CLI startup. "
               "Written by `bench/office.py`.", "",
               "## Command", "", "```sh", cmd, "```", "",
               "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for this benchmark only "
               "(the script re-runs itself without them); nothing else in the project "
               "touches them.", "",
               "## Machine", "", *machine_facts(), *([f"- {a.note}"] if a.note else []), "",
               "## Summary", "", *summary, "",
               "## Per file", "",
               "parse = detection (zip checks, CRCs) + reading into the document model; "
               "render = Markdown + content list + middle JSON. Medians of "
               f"{a.runs} runs after one warm-up. Traced peak = tracemalloc peak of one run "
               "(Python objects only); peak RSS = the peak resident size of a fresh process that reads "
               "and renders the file (Linux VmHWM), and in brackets how much of it came during the "
               "read: the reader's library (lxml) loads then and count "
               "there.", "",
               *lines, ""]
        a.doc.parent.mkdir(parents=True, exist_ok=True)
        text = "\n".join(doc)
        old = a.doc.read_text(encoding="utf-8") if a.doc.exists() else ""
        start, end = "<!-- bombs:start -->", "<!-- bombs:end -->"
        if start in old and end in old:  # bench/office_bombs.py's section is kept
            text = text.rstrip("\n") + "\n\n" + old[old.index(start):old.index(end) + len(end)] + "\n"
        a.doc.write_text(text, encoding="utf-8")
        print(f"\nwrote {a.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
