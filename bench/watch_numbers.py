"""How true are the watch app's numbers? The time left, pages/min, tok/s and stage times the
app shows while a long PDF is read, against what the run measurably did.

Both paths go through the watcher's own reader process (``mineru_tui.watch.lanes.Lane``
running ``python -m mineru_tui.watch.worker``: ``convert()``, then ``write_outputs()``), and
every job event is stamped with the clock when it arrives in this process, as the app stamps
its batches, and folded in order into the app's board (``mineru_tui.tui.state.Board``):

* ``--path low``: a born-digital PDF of N pages at ``--effort low`` (the real reader, no model);
* ``--path model``: a scan of N pages (one picture a page, no text layer) read by the real page
  reader with a scripted engine (``ScriptedEngine``'s answers: a layout of six blocks, then the
  text of each) given a steady cost: ``--token-ms`` a decoded token (a batch's rows one after
  the other, as on a CPU), ``--vision-ms`` per request for the vision encoder and the prefill,
  each measured on the real clock and reported as the engine's own timings.

A first, shorter file of the same kind is read before (``--first``), as in a watch session, so
the app has measured what follows the last page (the reader's finishing, the output writing).
At 10 %, 25 %, 50 %, 75 % and 90 % of the pages it compares: the time left shown with the time
the rest of the run then took (to the watcher's verdict); pages/min with the pages done over
the wall time since the first page; tok/s (at the file's last token before the checkpoint)
with the tokens that arrived over the 2 s before it divided by the time spent decoding in
that window (gaps between tokens over ``PAUSE`` — the vision and prefill stages and the
host's work between calls — left out); the vision stage seconds shown with their cost.

    python bench/watch_numbers.py --path low --pages 300 --first 30
    python bench/watch_numbers.py --path model --pages 300 --first 30
"""

from __future__ import annotations

import argparse
import os
import platform
import queue
import shutil
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mineru_tui import events as je  # noqa: E402
from mineru_tui.tui.state import Board  # noqa: E402
from mineru_tui.watch import events as ev  # noqa: E402
from mineru_tui.watch.lanes import Lane, Task  # noqa: E402
from mineru_tui.watch.worker import Setup  # noqa: E402

LINE = "Long documents are read page by page; this line is the PDF's own text, no model. {n}"
MARKS = (0.10, 0.25, 0.50, 0.75, 0.90)
WINDOW = 2.0  # seconds: the app's tok/s window (reader/calls.DecodeRate.WINDOW)
PAUSE = 0.02  # a gap between two tokens longer than this is not decoding


def make_pdf(path: Path, pages: int, scan: bool) -> Path:
    from testkit import pdf_fixtures as pf

    if scan:  # one picture a page, no text layer: only the model reads it
        page = pf.Page(items=[pf.Image(36, 36, 540, 720, width=96, height=128)])
        pf.write_pdf(path, [page] * pages)
    else:
        pf.write_pdf(path, [pf.Page(items=[pf.Text(72, 720 - 18 * i, LINE.format(n=p * 40 + i))
                                           for i in range(36)]) for p in range(pages)])
    return path


# -- the model path: a scripted engine with a steady cost, in the reader process ----------------
LAYOUT = "".join(f"<|box_start|>100 {60 + 140 * i} 900 {180 + 140 * i}<|box_end|>"
                 f"<|ref_start|>{kind}<|ref_end|><|rotate_up|>\n"
                 for i, kind in enumerate(("title", "text", "text", "text", "text", "text")))
WORDS = ("The scanned page is read by the model block by block, its words streamed as "
         "tokens while the app counts them, and this sentence is long enough to decode.")


class CostedEngine:
    """``ScriptedEngine`` with a steady cost on the real clock: ``vision_s`` per request
    (vision encoder and prefill), ``token_s`` per token decoded; the timings and token
    times it reports are the measured ones, as a real engine's."""

    def __init__(self, inner, vision_s: float, token_s: float):
        self.inner, self.vision_s, self.token_s = inner, vision_s, token_s
        self.name, self.model_id, self.max_batch = "scripted", inner.model_id, inner.max_batch

    def stream(self, requests, *, cancel=None):
        from mineru_tui.engines.events import StageEvent, TokenEvent

        t0 = time.perf_counter()
        for event in self.inner.stream(requests, cancel=cancel):
            if isinstance(event, StageEvent) and event.done and event.stage == "vision":
                time.sleep(self.vision_s * len(requests) * 0.8)
                event = replace(event, seconds=time.perf_counter() - t0)
                t1 = time.perf_counter()
            elif isinstance(event, StageEvent) and event.done and event.stage == "prefill":
                time.sleep(self.vision_s * len(requests) * 0.2)
                event = replace(event, seconds=time.perf_counter() - t1)
            elif isinstance(event, TokenEvent):
                time.sleep(self.token_s)
                event = replace(event, elapsed=time.perf_counter() - t0)
            yield event

    def close(self) -> None:
        self.inner.close()


def read_scripted(path, options=None, *, detected=None, on_event=None, cancel=None):
    """The watch worker's converter for ``--path model``: the real ``convert`` and page
    reader, the engine scripted with a cost (``MINERU_BENCH_TOKEN_MS``, ``..._VISION_MS``)."""
    from mineru_tui.convert import ConvertOptions, convert
    from testkit.scripted_engine import ScriptedEngine

    engine = CostedEngine(ScriptedEngine({"\nLayout Detection:": [LAYOUT],
                                          "\nText Recognition:": [WORDS]}, max_batch=4,
                                         record=False),  # a recorded request holds its image
                          float(os.environ["MINERU_BENCH_VISION_MS"]) / 1000,
                          float(os.environ["MINERU_BENCH_TOKEN_MS"]) / 1000)
    options = replace(options or ConvertOptions(), engine=engine)
    return convert(path, options, detected=detected, on_event=on_event, cancel=cancel)


# -- one file through the watcher's reader process --------------------------------------------
def read_stamped(lane: Lane, results: queue.Queue, stamped: list, path: Path) -> float:
    """Read ``path`` in the lane; its events (stamped on arrival in ``stamped``), and the
    clock at the verdict."""
    lane.submit(Task(str(path), path.stem, sha="", why="new"))
    _task, result = results.get(timeout=3600)
    end = time.monotonic()
    stamped.append((end, ev.FileFinished(str(path), result.status, result.reason, result.output,
                                         result.kind, result.pages, result.seconds)))
    if result.status != ev.DONE:
        sys.exit(f"{path.name}: {result.status}: {result.reason}")
    return end


def decode_truth(stamped: list, path: str, at: float) -> float:
    """Tokens per second of decoding over the WINDOW before ``at``: tokens that arrived,
    over the gaps between them that were decoding (pauses over PAUSE left out)."""
    times = [t for t, e in stamped if isinstance(e, je.BlockTokens) and e.path == path
             and at - WINDOW <= t <= at]
    busy = sum(b - a for a, b in zip(times, times[1:]) if b - a <= PAUSE)
    return (len(times) - 1) / busy if busy > 0 else 0.0


def checkpoints(stamped: list, path: str, n: int, end: float, board: Board) -> list[dict]:
    """Fold the file's events into ``board``; what it shows against the truth at each mark.
    tok/s and the vision seconds are taken at the middle token of the mark's page (in the
    middle of a batch: at a batch's last token the rows that ended are no longer decoding)."""
    marks = {round(n * f) for f in MARKS}
    first_at = next(t for t, e in stamped if isinstance(e, je.PageStarted) and e.path == path)
    middle = {}  # page -> index in stamped of its middle text token
    for page in {e.page for _, e in stamped if isinstance(e, je.PageDone)}:
        tokens = [i for i, (_, e) in enumerate(stamped)
                  if isinstance(e, je.BlockTokens) and e.page == page and e.block >= 0]
        if tokens:
            middle[tokens[len(tokens) // 2]] = page
    rows, done, rows_in_call, cost, sample = [], 0, 0, 0.0, {}
    vision_s = float(os.environ.get("MINERU_BENCH_VISION_MS", "0")) / 1000 * 0.8
    for i, (at, event) in enumerate(stamped):
        board.apply([event], now=at)
        if isinstance(event, je.BlockStarted):
            rows_in_call += 1  # a fixed batch's rows all start before its call
        elif isinstance(event, je.EngineStage) and event.stage == "vision":
            cost, rows_in_call = vision_s * max(1, rows_in_call), 0
        if i in middle:
            sample[middle[i]] = (board.live.tok_s, decode_truth(stamped, path, at),
                                 board.live.vision_s, cost)
        if isinstance(event, je.PageDone) and event.path == path:
            done += 1
            if done in marks:
                row = board.files[path]
                out = {"page": done, "eta": row.eta(board.live, board.write_per_page),
                       "eta_true": end - at, "per_min": row.pages_per_min(board.live),
                       "per_min_true": 60 * done / (at - first_at)}
                # the same moment under other rates (the writing term as the app's): the
                # whole file's average, and half of it with half of the last 20 pages'
                writing = (board.write_per_page or 0.0) * n
                whole = row.per_page(board.live)
                recent = row.per_page(board.live, recent=True)
                out["eta_whole"] = whole * (n - done) + writing
                out["eta_blend"] = (whole + recent) / 2 * (n - done) + writing
                if event.page in sample:
                    out.update(zip(("tok_s", "tok_s_true", "vision_s", "vision_cost"),
                                   sample[event.page]))
                rows.append(out)
    return rows


def pct(shown: float, true: float) -> float:
    return 100 * (shown - true) / true if true else 0.0


def report(rows: list[dict], path: str, args) -> None:
    within = sum(1 for r in rows if abs(pct(r["eta"], r["eta_true"])) <= 10)
    model = path == "model"
    print("| pages done | time left shown | true | error | pages/min shown | true |"
          + (" tok/s shown | true | error | vision s shown (cost) |" if model else ""))
    print("| ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: | ---: | ---: |" if model else ""))
    for r in rows:
        line = (f"| {r['page']} | {r['eta']:.1f} s | {r['eta_true']:.1f} s | "
                f"{pct(r['eta'], r['eta_true']):+.1f} % | {r['per_min']:.1f} | {r['per_min_true']:.1f} |")
        if model and "tok_s" in r:
            line += (f" {r['tok_s']:.0f} | {r['tok_s_true']:.0f} | "
                     f"{pct(r['tok_s'], r['tok_s_true']):+.1f} % | {r['vision_s']:.3f} "
                     f"({r['vision_cost']:.3f}) |")
        print(line)
    print(f"time left within 10 %: {within} of {len(rows)} checkpoints")
    for key, what in (("eta_whole", "the whole file's rate"),
                      ("eta_blend", "half whole file, half last 20 pages")):
        errors = ", ".join(f"{pct(r[key], r['eta_true']):+.1f} %" for r in rows)
        hits = sum(1 for r in rows if abs(pct(r[key], r["eta_true"])) <= 10)
        print(f"the same checkpoints with {what}: {errors} ({hits} of {len(rows)} within 10 %)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--path", choices=("low", "model"), default="low")
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--first", type=int, default=30, help="pages of the file read before")
    ap.add_argument("--token-ms", type=float, default=3.0, help="model path: cost of a token")
    ap.add_argument("--vision-ms", type=float, default=60.0,
                    help="model path: cost of a request's vision encoder and prefill")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mineru-watch-numbers"))
    args = ap.parse_args()
    work = args.work / args.path
    shutil.rmtree(work, ignore_errors=True)  # no output set or journal of an earlier run
    work.mkdir(parents=True)
    model = args.path == "model"
    os.environ["MINERU_BENCH_TOKEN_MS"] = str(args.token_ms)
    os.environ["MINERU_BENCH_VISION_MS"] = str(args.vision_ms)
    setup = Setup(converter="bench.watch_numbers:read_scripted" if model else
                  "mineru_tui.convert:convert", reading=None if model else {"effort": "low"})
    stamped: list = []
    lock = threading.Lock()
    results: queue.Queue = queue.Queue()

    def on_event(e) -> None:
        with lock:
            stamped.append((time.monotonic(), e))

    gate = threading.Event()
    gate.set()
    lane = Lane("pages", setup, str(work / "out"), gate, on_event,
                lambda task, result: results.put((task, result)))
    lane.start()
    board = Board()
    board.apply([ev.Watching("/", str(work / "out"), "native", "scripted" if model else "auto",
                             "", effort="" if model else "low")])
    try:
        for name, n in (("first", args.first), ("long", args.pages)):
            pdf = make_pdf(work / f"{name}.pdf", n, scan=model)
            stamped.clear()
            end = read_stamped(lane, results, stamped, pdf)
            rows = checkpoints(list(stamped), str(pdf), n, end, board)
            row = board.files[str(pdf)]
            print(f"{name}: {n} pages, read {row.read_seconds:.1f} s + output "
                  f"{row.seconds - row.read_seconds:.1f} s = {row.seconds:.1f} s (after the "
                  f"last page {board.write_per_page or 0:.3f} s a page)")
            if name == "long":
                report(rows, args.path, args)
    finally:
        lane.stop()
    load = os.getloadavg()
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, load average {load[0]:.1f} {load[1]:.1f}")


if __name__ == "__main__":
    main()
