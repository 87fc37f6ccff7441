"""Make docs/watch.svg: the watch app reading a real folder (for the README).

A temporary folder named ``Scans`` is watched by the real app and service; the sample Word
file (examples/sample.docx), a corrupt .docx and a PDF (no model here: "model needed") are
dropped in (with HF_HUB_OFFLINE=1 and no model in the cache, the PDF shows "model needed"),
and the screen is saved once all three are settled.

    python examples/watch_screenshot.py            # writes docs/watch.svg
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mineru_tui.tui.app import WatchApp
from mineru_tui.watch.service import WatchConfig


async def main(out: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"  # never download the model for a screenshot
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOME"] = tmp  # the header shows ~/Scans (and the HF cache is empty)
        scans = Path(tmp) / "Scans"
        scans.mkdir()
        app = WatchApp(WatchConfig(scans, quiet=0.2, interval=0.1))
        async with app.run_test(size=(130, 36)) as pilot:
            await pilot.pause(0.5)
            shutil.copyfile(ROOT / "examples" / "sample.docx", scans / "sample.docx")
            (scans / "broken.docx").write_bytes(b"PK\x03\x04 truncated download")
            from PIL import Image, ImageDraw  # a real one-page PDF; no model here
            page = Image.new("RGB", (300, 420), "white")
            ImageDraw.Draw(page).text((30, 30), "Invoice 42", fill="black")
            page.save(scans / "scan.pdf")
            deadline = time.monotonic() + 60
            while (len(app.board.files) < 3 or any(
                    r.status in ("queued", "reading") for r in app.board.files.values())):
                if time.monotonic() > deadline:
                    raise SystemExit("the files did not settle within 60 s")
                await pilot.pause(0.1)
            sample = str(scans / "sample.docx")
            files = app.query_one("#files")
            files.move_cursor(row=files.get_row_index(sample))
            await pilot.pause(1.0)
            app.save_screenshot(str(out.name), str(out.parent))
            await pilot.press("q")
    print(f"wrote {out}")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Save the watch app's screen as an SVG.")
    ap.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "watch.svg",
                    help="where to write it (default: docs/watch.svg)")
    asyncio.run(main(ap.parse_args().out))
