"""CPU time and peak memory of ``mineru-tui parse`` on the crafted files of issue 32's
binary and OpenDocument items (1-5, 10, 11, 15), each in a fresh process under a 2.5 GB
address-space limit.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/hostile_office.py \\
        [--work DIR] [--timeout S] [--reference CHECKOUT] [--out bench/results/FILE.md]

The files are the ones the tests build (``testkit/crafted.py``), at the sizes the issue
names. Each is parsed by ``python -m mineru_tui parse FILE -o OUT`` (stdout to /dev/null);
the row gives the child's user+system CPU time and peak RSS (``wait4``), its exit code and
the first ``error:`` or ``content cut:`` line. ``--reference CHECKOUT`` runs the same files
with another checkout's package (e.g. a worktree of main) in the same run, side by side,
killed after ``--timeout`` seconds (a hang shows as ``timeout``).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit import crafted  # noqa: E402

LIMIT = 2_500 << 20  # the bound: 2.5 GB a file


def build(work: Path) -> dict[str, Path]:
    """The crafted files, full size, into ``work``."""
    story = "box text\r" * 2000
    letters, styles = crafted.odt_list("2000000000")
    digits, digit_styles = crafted.odt_list("", style_start="9" * 5000)
    files = {  # row name: (file name, file or bytes)
        "1 odt nested repeats 32x1000": ("nest.odt", crafted.odf(
            work / "nest.odt", crafted.nested_repeated_table(32, 1000))),
        "1 odt nested repeats 3x100": ("nest3.odt", crafted.odf(
            work / "nest3.odt", crafted.nested_repeated_table(3, 100))),
        "2 odt letters from 2e9": ("letters.odt", crafted.odf(
            work / "letters.odt", letters, styles=styles)),
        "15 odt start value of 5000 digits": ("digits.odt", crafted.odf(
            work / "digits.odt", digits, styles=digit_styles)),
        "3 ppt 3000 slides, one 1 MB text": ("shared.ppt", crafted.ppt(
            3000, ("word " * 100_000).encode("utf-16-le"))),
        "10 ppt 1000 edits, one 600k directory": ("edits.ppt", crafted.ppt(
            1, b"H\0i\0", edits=1000, directory=600_000)),
        "4 doc 60000 overlapping pieces": ("pieces.doc", crafted.doc(
            "Some words here.\r" * 50, [(i * 850, (i + 1) * 850, 1024) for i in range(60_000)])),
        "5 doc 9999 overlapping text boxes": ("boxes.doc", crafted.doc(
            "body\r" + story, txbx=len(story),
            boxes=[0 if i % 2 == 0 else len(story) for i in range(9_999)] + [len(story)])),
        "11 OLE chain looping, 200 MiB declared": ("loop.ppt", crafted.cfb(
            {"PowerPoint Document": b"\0" * 20_000, "Current User": b"\0" * 30},
            chains={"PowerPoint Document": [0]}, sizes={"PowerPoint Document": 200 << 20})),
        "doc of 6.9 M characters (the limit's cost)": ("long.doc", crafted.doc(
            "A paragraph of words.\r" * 300_000)),
    }
    out = {}
    for name, (file, data) in files.items():
        path = work / file
        if isinstance(data, bytes):
            path.write_bytes(data)
        out[name] = path
    return out


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
    os.setsid()


def run(path: Path, out: Path, pythonpath: str, timeout: float) -> dict:
    """Parse ``path`` in a fresh process; its CPU time, peak RSS, exit code, first line."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "mineru_tui", "parse", str(path), "-o",
                             str(out)], stdout=subprocess.DEVNULL, stderr=err, env=env,
                            cwd=path.parent, preexec_fn=_limit)  # not ROOT: -m puts cwd first
    start = time.monotonic()
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            return {"cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
                    "code": "timeout", "line": f"killed after {timeout:.0f} s"}
        time.sleep(0.05)
    err.seek(0)
    lines = err.read().decode("utf-8", "replace").splitlines()
    said = [line for line in lines if line.startswith("error:") or "content cut:" in line
            or "Error" in line]
    return {"cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024,
            "code": os.waitstatus_to_exitcode(status), "line": (said or lines or [""])[0]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--reference", type=Path, help="another checkout to run side by side")
    ap.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    ap.add_argument("--only", nargs="*", default=[], help="rows whose name holds one of these")
    args = ap.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="hostile-office-"))
    work.mkdir(parents=True, exist_ok=True)
    files = {name: path for name, path in build(work).items()
             if not args.only or any(word in name for word in args.only)}
    checkouts = [("ours", str(ROOT))] + ([("reference", str(args.reference.resolve()))]
                                         if args.reference else [])
    rows = ["| file | size | checkout | CPU s | peak RSS MB | exit | first line |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for name, path in files.items():
        for label, checkout in checkouts:
            r = run(path, work / "out" / label, checkout, args.timeout)
            line = r["line"][:140].replace("|", "\\|")
            rows.append(f"| {name} | {path.stat().st_size:,} B | {label} | "
                        f"{r['cpu']:.2f} | {r['rss']:.0f} | {r['code']} | {line} |")
            print(rows[-1], flush=True)
    head = (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, "
            f"{platform.processor() or platform.machine()}, Python {platform.python_version()}; "
            f"each file in a fresh process under RLIMIT_AS {LIMIT >> 20} MiB, timeout "
            f"{args.timeout:.0f} s")
    text = "\n".join([head, "", *rows, ""])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
