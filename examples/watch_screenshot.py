"""Make docs/watch.svg: the watch app after reading a real folder (for the README).

A temporary folder named ``Scans`` is watched by the real app and service; the sample Word
file (examples/sample.docx), a corrupt .docx and a two-page PDF are dropped in. The PDF is
read by the real page reader in the real reader process, with the model's answers scripted
(testkit/watch_doubles.py ``read_with_script``: no model is needed to make the picture), and
the screen is saved on the PDF's first page in the Page tab, its table block selected.

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

from mineru_tui.tui.app import WatchApp  # noqa: E402
from mineru_tui.watch.service import WatchConfig  # noqa: E402


def invoice_pdf(path: Path) -> None:
    from testkit import pdf_fixtures as pf

    # where the scripted layout puts its title, text and table (0-1000 of the page)
    items = (list(pf.text_lines(["Invoice 42 - March"], x=70, top=740, size=26))
             + list(pf.text_lines(["Amount due within thirty days of receipt.",
                                   "Please quote the invoice number with your payment.",
                                   "Thank you for your business."], x=70, top=680, size=15))
             + list(pf.text_lines(["Item            Qty     Price",
                                   "Paper A4         10     45.00",
                                   "Toner             2    120.00"], x=70, top=400, size=18)))
    pf.write_pdf(path, [pf.Page(items=items) for _ in (1, 2)])


async def main(out: Path) -> None:
    os.environ["PYTHONPATH"] = str(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOME"] = tmp  # the header shows ~/Scans
        os.environ["XDG_CONFIG_HOME"] = tmp
        scans = Path(tmp) / "Scans"
        scans.mkdir()
        app = WatchApp(WatchConfig(scans, quiet=0.2, interval=0.1,
                                   converter="testkit.watch_doubles:read_with_script"))
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause(0.5)
            shutil.copyfile(ROOT / "examples" / "sample.docx", scans / "sample.docx")
            (scans / "broken.docx").write_bytes(b"PK\x03\x04 truncated download")
            invoice_pdf(Path(tmp) / "invoice.pdf")
            shutil.copyfile(Path(tmp) / "invoice.pdf", scans / "invoice.pdf")
            deadline = time.monotonic() + 60
            while (len(app.board.files) < 3 or any(
                    r.status in ("queued", "reading") for r in app.board.files.values())):
                if time.monotonic() > deadline:
                    raise SystemExit("the files did not settle within 60 s")
                await pilot.pause(0.1)
            app.query_one("#files").focus()
            app.select_file(str(scans / "invoice.pdf"))
            await pilot.press("2", "left_square_bracket", "j", "j", "j")
            await pilot.pause(1.5)  # the page image is rendered in a worker
            app.clear_notifications()
            app.save_screenshot(str(out.name), str(out.parent))
            await pilot.press("q")
    print(f"wrote {out}")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Save the watch app's screen as an SVG.")
    ap.add_argument("out", nargs="?", type=Path, default=ROOT / "docs" / "watch.svg",
                    help="where to write it (default: docs/watch.svg)")
    asyncio.run(main(ap.parse_args().out))
