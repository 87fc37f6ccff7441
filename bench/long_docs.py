"""Long documents: time and peak memory against the page count, and kill-and-resume.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/long_docs.py \\
        --text-pages 100,300,1000 --scan-pages 50,100,200 --tiny-pages 1,50,100,200 --kills 10 \\
        --json bench/results/long_docs.json

Test files are built at run time from the repo's public PDFs (``tests/corpus/pdf``):

* a born-digital PDF of N pages, the corpus pages joined over and over, read with
  ``mineru-tui parse FILE -o OUT --effort low`` (no model);
* a scan of N pages: the same pages rendered at 100 dpi and saved as an image-only PDF,
  read at the default effort by the scripted page reader (``testkit/scripted_engine.py``: the
  real page pipeline — render, layout image, crops, post-processing, mapping, outputs — with
  answers replayed instead of a model; it is told not to keep the requests it saw), through
  ``convert`` and ``write_outputs`` as ``parse -o`` does;
* the same scan read by the real model path with the tiny checkpoint (``tests/fixtures/tiny``,
  random weights: every answer is cut at ``--tiny-tokens`` tokens and every page comes out
  empty, but each page is rendered, encoded by the vision tower and decoded by the numpy
  engine): ``mineru-tui parse FILE -o OUT --engine numpy --model tests/fixtures/tiny
  --max-new-tokens N``. Its 1-page run is the engine's own peak.

Each run is its own process; wall time, CPU time (user + system) and peak RSS come from
``os.wait4`` on it (the page probe's child process is separate and small). The test PDFs are
made in a child process too: Linux counts the memory of the process that starts a run in the
run's peak (``ru_maxrss`` keeps the spawning process's high-water mark across ``exec``), so
this script itself stays small (the Python interpreter, ~10 MB, is the floor of every figure).

The kill test reads the scan with a journal and SIGKILLs the reader at ``--kills`` random
moments (uniform over the uninterrupted run's wall time, so also while a page or the output
set is being written), resuming after each; the final set must equal an uninterrupted run's
(timings and the layout PDF's creation date and ID aside) and the engine requests over all
runs are counted (each kill may lose the page it was reading, never a finished one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "pdf"
sys.path.insert(0, str(ROOT))
from testkit.output_sets import output_set  # noqa: E402
from testkit.pdf_fixtures import joined_pdf  # noqa: E402  (the corpus PDFs joined to N pages)

SCRIPTED = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.output import journal_path, write_outputs
from testkit.scripted_engine import ScriptedEngine, layout_line

pdf, out, counter = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
LAYOUT = (layout_line(100, 40, 900, 80, "title") + layout_line(100, 100, 900, 500, "text")
          + layout_line(100, 550, 900, 800, "table") + layout_line(100, 820, 500, 950, "image"))
log = open(counter, "a")

def answer(request):
    if "Layout" in request.prompt:
        log.write("layout\\n")
        log.flush()
        return LAYOUT
    return "<fcel>a<fcel>b<nl>" if "Table" in request.prompt else "Some words read from the page."

engine = ScriptedEngine(answer, record=False)  # a recorded request holds its page image
options = ConvertOptions(engine=engine, journal=journal_path(out, pdf.stem))
doc = convert(pdf, options)
write_outputs(doc, out, pdf.stem, source=pdf)
"""


CANCELLED = """
import sys, threading
from pathlib import Path
sys.path.insert(0, {root!r})
from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.events import PageDone
from mineru_tui.output import journal_path
from mineru_tui.reader import PagesInterrupted

pdf, out, after = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
cancel = threading.Event()

def on_event(e):
    if isinstance(e, PageDone) and e.page + 1 == after:
        cancel.set()

try:
    convert(pdf, ConvertOptions(effort="low", journal=journal_path(out, pdf.stem)), on_event=on_event, cancel=cancel)
except PagesInterrupted:
    pass
"""


def scan_pdf(path: Path, pages: int) -> Path:
    """``pages`` corpus pages rendered at 100 dpi, saved as an image-only PDF (a scan)."""
    import pypdfium2 as pdfium

    images = []
    for p in sorted(CORPUS.glob("*.pdf")):
        doc = pdfium.PdfDocument(str(p))
        for i in range(len(doc)):
            images.append(doc[i].render(scale=100 / 72).to_pil().convert("RGB"))
    pick = [images[k % len(images)] for k in range(pages)]
    pick[0].save(path, "PDF", save_all=True, append_images=pick[1:], resolution=100)
    return path


def measure(cmd: list[str], kill_after: float | None = None) -> dict:
    """Run ``cmd``; wall, CPU and peak RSS of its process (killed after ``kill_after`` s)."""
    t0 = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = None if kill_after is None else t0 + kill_after
    while True:  # reaped here (not by Popen) so that its own rusage is ours to read
        pid, status, usage = os.wait4(child.pid, os.WNOHANG if deadline else 0)
        if pid:
            break
        if time.perf_counter() >= deadline:
            os.kill(child.pid, signal.SIGKILL)
            deadline = None
        else:
            time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(status)
    err = child.stderr.read().decode("utf-8", "replace")
    child.stderr.close()
    return {"wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "exit": child.returncode,
            "load_1min": round(os.getloadavg()[0], 1),
            "stderr": err.strip().splitlines()[-1:] if err.strip() else []}


def made(kind: str, path: Path, pages: int) -> Path:
    """``path``: the test PDF of ``kind`` ("text" or "scan"), made in a child process."""
    if not path.exists():
        subprocess.run([sys.executable, __file__, "--make", kind, str(pages), str(path)], check=True)
    return path


def text_runs(work: Path, counts: list[int], rows: list | None = None, save=lambda: None) -> list[dict]:
    rows = [] if rows is None else rows
    for n in counts:
        pdf = made("text", work / f"text{n}.pdf", n)
        r = measure([sys.executable, "-m", "mineru_tui", "parse", str(pdf), "-o", str(work / "out"),
                     "--effort", "low"])
        rows.append({"case": "born-digital, --effort low", "pages": n, **r})
        print(rows[-1], flush=True)
        save()
    return rows


def resume_runs(work: Path, pages: int) -> list[dict]:
    """``parse -o --effort low`` of a born-digital PDF fresh, then cancelled at half its
    pages (its journal kept) and resumed: the resumed run's CPU against the fresh one's."""
    pdf = made("text", work / f"text{pages}.pdf", pages)
    cmd = [sys.executable, "-m", "mineru_tui", "parse", str(pdf), "-o", str(work / "resume"), "--effort", "low"]
    fresh = measure(cmd)
    shutil.rmtree(work / "resume")
    subprocess.run([sys.executable, "-c", CANCELLED.format(root=str(ROOT)), str(pdf), str(work / "resume"),
                    str(pages // 2)], check=True)
    kept = len((work / "resume" / f".{pdf.stem}.journal").read_text().splitlines()) - 1
    resumed = measure(cmd)
    rows = [{"case": "born-digital, --effort low, fresh", "pages": pages, **fresh},
            {"case": f"born-digital, --effort low, resumed ({kept} pages kept)", "pages": pages, **resumed}]
    for row in rows:
        print(row, flush=True)
    return rows


def scripted(pdf: Path, out: Path, counter: Path, kill_after: float | None = None) -> dict:
    code = SCRIPTED.format(root=str(ROOT))
    return measure([sys.executable, "-c", code, str(pdf), str(out), str(counter)], kill_after)


def scan_runs(work: Path, counts: list[int], rows: list | None = None, save=lambda: None) -> list[dict]:
    rows = [] if rows is None else rows
    for n in counts:
        pdf = made("scan", work / f"scan{n}.pdf", n)
        r = scripted(pdf, work / "out", work / f"count{n}")
        rows.append({"case": "scan, default effort, scripted page reader", "pages": n, **r})
        print(rows[-1], flush=True)
        save()
    return rows


def tiny_runs(work: Path, counts: list[int], tokens: int, rows: list | None = None, save=lambda: None) -> list[dict]:
    rows = [] if rows is None else rows
    for n in counts:
        pdf = made("scan", work / f"scan{n}.pdf", n)
        r = measure([sys.executable, "-m", "mineru_tui", "parse", str(pdf), "-o", str(work / "out"),
                     "--engine", "numpy", "--model", str(ROOT / "tests" / "fixtures" / "tiny"),
                     "--max-new-tokens", str(tokens), "-q"])
        rows.append({"case": f"scan, default effort, tiny checkpoint (numpy, {tokens} tokens an answer)",
                     "pages": n, **r})
        print(rows[-1], flush=True)
        save()
    return rows


def kill_runs(work: Path, pages: int, kills: int, seed: int) -> dict:
    pdf = made("scan", work / f"killscan{pages}.pdf", pages)
    whole = scripted(pdf, work / "whole", work / "count-whole")
    rng = random.Random(seed)
    out, counter = work / "killed", work / "count-killed"
    runs = []
    for _ in range(kills):
        r = scripted(pdf, out, counter, kill_after=rng.uniform(0.5, whole["wall_s"]))
        runs.append("finished" if r["exit"] == 0 else r["exit"])
        finished = (out / pdf.stem).is_dir() and not (out / f".{pdf.stem}.journal").exists()
        if finished:  # the set was whole before the kill (journal removed): start from nothing
            shutil.rmtree(out)
            counter.unlink()
    final = scripted(pdf, out, counter)
    same = output_set(work / "whole" / pdf.stem) == output_set(out / pdf.stem)
    requests = len(counter.read_text().splitlines())
    result = {"pages": pages, "kills": kills, "seed": seed, "exits": runs, "final_exit": final["exit"],
              "outputs_equal": same, "layout_requests_uninterrupted": len((work / "count-whole").read_text().splitlines()),
              "layout_requests_over_all_runs": requests}
    print(result, flush=True)
    return result


def main() -> None:
    if sys.argv[1:2] == ["--make"]:  # the child making a test PDF: --make KIND PAGES PATH
        kind, pages, path = sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
        (joined_pdf if kind == "text" else scan_pdf)(path, pages)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--text-pages", default="100,300,1000")
    ap.add_argument("--scan-pages", default="50,100,200")
    ap.add_argument("--tiny-pages", default="1,50,100,200")
    ap.add_argument("--tiny-tokens", type=int, default=16)
    ap.add_argument("--resume-pages", type=int, default=0,
                    help="fresh against resumed (cancelled at half) --effort low runs of this many pages")
    ap.add_argument("--kill-pages", type=int, default=60)
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    counts = lambda s: [int(v) for v in s.split(",") if v.strip()]  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="long-docs-") as tmp:
        work = Path(tmp)
        result = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": _cpu()}

        def save() -> None:  # after each part: a long run stopped early keeps what it measured
            if args.json:
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps(result, indent=1) + "\n")

        text_runs(work, counts(args.text_pages), result.setdefault("text", []), save)
        scan_runs(work, counts(args.scan_pages), result.setdefault("scan", []), save)
        tiny_runs(work, counts(args.tiny_pages), args.tiny_tokens, result.setdefault("tiny", []), save)
        if args.resume_pages:
            result["resume"] = resume_runs(work, args.resume_pages)
            save()
        if args.kills:
            result["kill"] = kill_runs(work, args.kill_pages, args.kills, args.seed)
            save()


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} vCPU"
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs"


if __name__ == "__main__":
    main()
