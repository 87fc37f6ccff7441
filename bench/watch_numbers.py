"""How true are the app's numbers? The time left and pages/min the watch app shows while a
long PDF is read at ``--effort low``, against what the run then took.

A born-digital PDF of N pages is read by the real page reader (``convert``, effort low) and
its output set written (``write_outputs``), as the watcher's reader process does; every job
event is stamped with the clock when it is emitted and folded, in order, into the app's board
(``mineru_tui.tui.state.Board``) at that time. At 10 %, 25 %, 50 %, 75 % and 90 % of the pages
the time left the app shows is compared with the time the rest of the run (the remaining
pages and the output writing) really took. A first, shorter file of the same kind is read
before, as in a watch session, so the app has measured the output writing's rate.

    python bench/watch_numbers.py --pages 300 --first 30
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mineru_tui import events as je  # noqa: E402
from mineru_tui.convert import ConvertOptions, convert  # noqa: E402
from mineru_tui.output import write_outputs  # noqa: E402
from mineru_tui.tui.state import Board  # noqa: E402
from mineru_tui.watch import events as ev  # noqa: E402

LINE = "Long documents are read page by page; this line is the PDF's own text, no model. {n}"


def make_pdf(path: Path, pages: int) -> Path:
    from testkit import pdf_fixtures as pf

    pf.write_pdf(path, [pf.Page(items=[pf.Text(72, 720 - 18 * i, LINE.format(n=p * 40 + i))
                                       for i in range(36)]) for p in range(pages)])
    return path


def read_stamped(path: Path, out: Path) -> tuple[list[tuple[float, object]], float]:
    """The file's events with their times, as the watcher's reader process emits them."""
    stamped: list[tuple[float, object]] = []
    t0 = time.monotonic()
    doc = convert(path, ConvertOptions(effort="low", page_markdown=True),
                  on_event=lambda e: stamped.append((time.monotonic(), e)))
    stamped.append((time.monotonic(), je.OutputWriting(str(path), len(doc.pages))))
    folder = write_outputs(doc, out, path.stem).path
    end = time.monotonic()
    stamped.append((end, ev.FileFinished(str(path), ev.DONE, output=str(folder), kind="pdf",
                                         pages=len(doc.pages), seconds=end - t0)))
    return stamped, end


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--first", type=int, default=30, help="pages of the file read before")
    ap.add_argument("--work", type=Path, default=Path("/tmp/mineru-watch-numbers"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    board = Board()
    board.apply([ev.Watching("/", str(args.work / "out"), "native", "auto", "", effort="low")])
    for name, n in (("first", args.first), ("long", args.pages)):
        pdf = make_pdf(args.work / f"{name}.pdf", n)
        stamped, end = read_stamped(pdf, args.work / "out")
        marks = {round(n * f) for f in (0.10, 0.25, 0.50, 0.75, 0.90)}
        done = 0
        for at, event in stamped:
            board.apply([event], now=at)
            if isinstance(event, je.PageDone):
                done += 1
                if name == "long" and done in marks:
                    row = board.files[str(pdf)]
                    shown = row.eta(board.live, board.write_per_page)
                    truth = end - at
                    per_min = row.pages_per_min(board.live)
                    first_at = next(t for t, e in stamped if isinstance(e, je.PageStarted))
                    true_min = 60 * done / (at - first_at)
                    print(f"page {done:>4}/{n}: time left shown {shown:7.1f} s, true "
                          f"{truth:7.1f} s ({100 * (shown - truth) / truth:+5.1f} %); "
                          f"pages/min shown {per_min:6.1f}, true {true_min:6.1f}")
        row = board.files[str(pdf)]
        last = max(t for t, e in stamped if isinstance(e, je.PageDone))
        done_at = next(t for t, e in stamped if isinstance(e, je.FileDone))
        write_at = next(t for t, e in stamped if isinstance(e, je.OutputWriting))
        print(f"{name}: after the last page: the reader's finishing {done_at - last:.1f} s, "
              f"output writing {end - write_at:.1f} s")
        print(f"{name}: {n} pages, read {row.read_seconds:.1f} s + output "
              f"{row.seconds - row.read_seconds:.1f} s = {row.seconds:.1f} s "
              f"(after the last page {board.write_per_page or 0:.3f} s/page measured so far)")
    print(f"machine: {platform.machine()} {platform.processor() or ''}, Python "
          f"{platform.python_version()}")


if __name__ == "__main__":
    main()
