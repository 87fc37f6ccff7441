"""Key-press latency of the watch app while an engine that holds the GIL is decoding.

Core ML's ``predict`` holds the GIL for a whole forward pass. If the app ran conversions in
a thread of its own process, every key press would wait for the pass in flight. The app runs
them in reader processes instead (mineru_tui/watch/lanes.py); this script measures both
designs side by side with the same fake engine:

* ``process``: the real app and watch service; a scripted page reader (testkit/watch_doubles.py)
  runs in the page lane's reader process and holds the GIL for ``--gil-ms`` per token.
* ``thread``: the same app and the same scripted reader, run in a thread of the app's
  process (the design the app does not use), feeding the app through the same callback.
* ``idle``: no reader at all (the floor).

Latency = time from a key press handed to the app (Textual's pilot, headless) to the
key's action running. Keys are pressed every 30-90 ms while tokens stream.

    python bench/watch_latency.py                      # 40 presses, 50 and 200 ms holds
    python bench/watch_latency.py --presses 80 --gil-ms 50 200 400
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.binding import Binding

from mineru_tui.tui.app import WatchApp
from mineru_tui.watch.service import WatchConfig


class TimedApp(WatchApp):
    """The watch app with one extra key whose action records when it ran."""

    BINDINGS = WatchApp.BINDINGS + [Binding("x", "stamp", "stamp", show=False)]

    def __init__(self, *a, **kw) -> None:
        super().__init__(*a, **kw)
        self.stamps: list[float] = []

    def action_stamp(self) -> None:
        self.stamps.append(time.perf_counter())


def fake_pdf(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.7\n% bench\n" + os.urandom(8).hex().encode() + b"\n%%EOF\n")
    return path


async def press_and_time(app: TimedApp, pilot, presses: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    out = []
    for _ in range(presses):
        await asyncio.sleep(rng.uniform(0.03, 0.09))
        before = len(app.stamps)
        t0 = time.perf_counter()
        await pilot.press("x")
        while len(app.stamps) == before:
            await asyncio.sleep(0.001)
        out.append(app.stamps[-1] - t0)
    return out


async def run(mode: str, gil_ms: float, presses: int, tmp: Path) -> tuple[list[float], int, float]:
    os.environ["MINERU_TEST_GIL_MS"] = str(gil_ms)
    os.environ["MINERU_TEST_PAGES"] = "1000"
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    root = tmp / f"{mode}-{gil_ms:g}"
    root.mkdir()
    stop = threading.Event()
    if mode == "process":
        app = TimedApp(WatchConfig(root, converter="testkit.watch_doubles:convert", quiet=0.1,
                                   interval=0.1))
    else:
        app = TimedApp(None)
    async with app.run_test(size=(120, 36)) as pilot:
        if mode == "process":
            fake_pdf(root / "scan.pdf")
        elif mode == "thread":
            from testkit.watch_doubles import convert

            pdf = fake_pdf(root / "scan.pdf")
            worker = threading.Thread(target=lambda: _swallow(convert, pdf, app.feed, stop),
                                      daemon=True)
            worker.start()
        if mode != "idle":
            deadline = time.monotonic() + 60
            while app.board.live.tokens < 3:
                if time.monotonic() > deadline:
                    raise SystemExit(f"{mode}: no tokens within 60 s")
                await asyncio.sleep(0.05)
        tokens0, t0 = app.board.live.tokens, time.perf_counter()
        lat = await press_and_time(app, pilot, presses, seed=1)
        tokens = app.board.live.tokens - tokens0
        seconds = time.perf_counter() - t0
        stop.set()
        if mode == "process":
            await pilot.press("q")
    return lat, tokens, seconds


def _swallow(convert, pdf, feed, stop) -> None:
    try:
        convert(pdf, None, on_event=feed, cancel=stop)
    except Exception:
        pass  # cancelled at the end of the run


def summary(lat: list[float]) -> str:
    ms = sorted(x * 1000 for x in lat)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return (f"median {statistics.median(ms):7.1f} ms   p95 {p95:7.1f} ms   "
            f"max {ms[-1]:7.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--presses", type=int, default=40)
    ap.add_argument("--gil-ms", type=float, nargs="+", default=[50.0, 200.0])
    args = ap.parse_args()
    from testkit.watch_doubles import hold_gil

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.presses} presses "
          f"per run")
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        lat, _, _ = asyncio.run(run("idle", 0, args.presses, tmp))
        print(f"{'idle (no reader)':34} {summary(lat)}")
        for gil in args.gil_ms:
            hold_gil(gil)  # the first call calibrates
            t0 = time.perf_counter()
            hold_gil(gil)
            held = (time.perf_counter() - t0) * 1000
            for mode in ("process", "thread"):
                lat, tokens, seconds = asyncio.run(run(mode, gil, args.presses, tmp))
                label = f"{mode:7} GIL held {held:4.0f} ms/token"
                pace = f"{1000 * seconds / tokens:.0f} ms/token" if tokens else "no tokens"
                print(f"{label:34} {summary(lat)}   ({tokens} tokens in {seconds:.1f} s: "
                      f"{pace})")


if __name__ == "__main__":
    main()
