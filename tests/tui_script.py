"""A fixed story of watch and job events, fed straight into the app (no service, no clock).

Used by the navigation tests and the SVG snapshots: the same events always draw the same
screen. The events are the ones the service and the page reader emit (see
mineru_tui/events.py and mineru_tui/watch/events.py). :func:`page_image` is the fixed page
the app draws under the boxes (drawn here with PIL, no font: the same pixels everywhere).
"""

from __future__ import annotations

from mineru_tui import events as je
from mineru_tui.watch import events as ev

ROOT = "/scans"
OUT = "/scans-mineru"
PDF = f"{ROOT}/invoices/march.pdf"
# an invoice page as MinerU2.5 lays it out: (type, box, where its text comes from, text)
BLOCKS = [
    ("header", (0.08, 0.03, 0.40, 0.06), "text_layer", "ACME Supplies Ltd · 12 Mill Road"),
    ("title", (0.08, 0.09, 0.70, 0.14), "model", "Invoice {n} — March 2026"),
    ("text", (0.08, 0.17, 0.92, 0.30), "model",
     "Amount due within thirty days of receipt. Please quote the invoice number with "
     "your payment."),
    ("table", (0.08, 0.34, 0.92, 0.62), "model",
     "<table><tr><td>Item</td><td>Qty</td><td>Price</td></tr>"
     "<tr><td>Paper A4</td><td>10</td><td>45.00</td></tr></table>"),
    ("equation", (0.30, 0.66, 0.70, 0.72), "model", "\\[ 10 \\times 4.50 = 45.00 \\]"),
    ("text", (0.08, 0.76, 0.92, 0.86), "model", "Thank you for your business."),
    ("footer", (0.08, 0.94, 0.92, 0.97), "text_layer", "page {n}"),
]
MARKDOWN = ("# Invoice {n} — March 2026\n\nAmount due within thirty days of receipt. Please "
            "quote the invoice number with your payment.\n\n<table><tr><td>Item</td><td>Qty"
            "</td><td>Price</td></tr><tr><td>Paper A4</td><td>10</td><td>45.00</td></tr>"
            "</table>\n\n$$\n10 \\times 4.50 = 45.00\n$$\n\nThank you for your business.\n")


def page_image(path: str = PDF, kind: str = "pdf", page: int = 0):
    """A fixed A4-shaped page: ink where the blocks are (bars for text, a grid for the
    table), so the half-block drawing shows a page under the boxes."""
    from PIL import Image, ImageDraw

    w, h = 420, 594
    im = Image.new("RGB", (w, h), (252, 252, 250))
    d = ImageDraw.Draw(im)
    for kind_, (x0, y0, x1, y1), _, _ in BLOCKS:
        box = (x0 * w, y0 * h, x1 * w, y1 * h)
        if kind_ == "table":
            for i in range(5):
                y = box[1] + i * (box[3] - box[1]) / 4
                d.line((box[0], y, box[2], y), fill=(60, 60, 60), width=2)
            for x in (box[0], box[0] + (box[2] - box[0]) * 0.6, box[2]):
                d.line((x, box[1], x, box[3]), fill=(60, 60, 60), width=2)
            continue
        thick = 9 if kind_ == "title" else 4
        y = box[1] + 3
        while y + thick <= box[3] - 2:
            d.rectangle((box[0] + 2, y, box[2] - (30 if y + 2 * thick > box[3] else 4), y + thick),
                        fill=(40, 40, 40) if kind_ == "title" else (110, 110, 110))
            y += thick * 2 + 2
    return im


def blocks(n: int) -> tuple[je.BlockInfo, ...]:
    return tuple(je.BlockInfo(i, t, b, source=s) for i, (t, b, s, _) in enumerate(BLOCKS))


def read_page(path: str, page: int, pages: int, upto: int | None = None,
              stream_tokens: int = 6) -> list[object]:
    """The events of reading one page; ``upto`` stops inside block ``upto`` (being read)."""
    n = page + 1
    out: list[object] = [je.PageStarted(path, page, pages),
                         je.EngineStage(path, page, "vision", 1.25, 1296),
                         je.EngineStage(path, page, "prefill", 0.31, 1340),
                         je.BlockTokens(path, page, -1, "<|box_start|>", 1, 20.0),
                         je.EngineStage(path, page, "decode", 2.0, 48),
                         je.LayoutDone(path, page, blocks(n))]
    last = len(BLOCKS) if upto is None else upto + 1
    for i in range(last):
        kind, _, source, text = BLOCKS[i]
        text = text.format(n=n)
        out.append(je.BlockStarted(path, page, i, len(BLOCKS), kind))
        if source == "model":
            words = text.split(" ")
            count = len(words) if i != upto else min(stream_tokens, len(words))
            for k in range(count):
                out.append(je.BlockTokens(path, page, i, (" " if k else "") + words[k], k + 1,
                                          24.0 + k))
        if i != upto:
            out.append(je.BlockDone(path, page, i, kind, text, source,
                                    "stop" if source == "model" else "text_layer"))
    if upto is None:
        out.append(je.EngineStage(path, page, "decode", 3.0, 66))
        out.append(je.PageDone(path, page, pages, MARKDOWN.format(n=n), 6.0))
    return out


def story(stream_tokens: int = 6) -> list[object]:
    """Three finished files and a 3-page PDF whose second page is being read (block 3)."""
    out: list[object] = [
        ev.Watching(ROOT, OUT, "native", "numpy", "opendatalab/MinerU2.5-Pro-2605-1.2B"),
        ev.FileQueued(f"{ROOT}/report.docx", "office", "new"),
        je.FileStarted(f"{ROOT}/report.docx", "docx"),
        je.PageDone(f"{ROOT}/report.docx", 0, 1,
                    "# Quarterly report\n\nRevenue grew in **every** region.\n\n"
                    "- Europe led\n- Costs stayed flat\n", 0.02),
        je.FileDone(f"{ROOT}/report.docx", "docx", 1, 0.02),
        ev.FileFinished(f"{ROOT}/report.docx", "done", output=f"{OUT}/report", kind="docx",
                        pages=1, seconds=0.02),
        ev.FileQueued(f"{ROOT}/broken.docx", "office", "new"),
        ev.FileFinished(f"{ROOT}/broken.docx", "failed",
                        "corrupt or truncated zip (no central directory)"),
        ev.FileQueued(PDF, "pages", "new"),
        je.FileStarted(PDF, "pdf"),
    ]
    out += read_page(PDF, 0, 3)
    out += read_page(PDF, 1, 3, upto=2, stream_tokens=stream_tokens)
    return out


def finish(path: str = PDF) -> list[object]:
    """The rest of the story's PDF: page 2 ends, page 3 comes out empty, the file is done."""
    out: list[object] = []
    kind, _, _, text = BLOCKS[2]
    out.append(je.BlockDone(path, 1, 2, kind, text, "model", "stop"))
    for i in range(3, len(BLOCKS)):
        k, _, source, t = BLOCKS[i]
        out.append(je.BlockStarted(path, 1, i, len(BLOCKS), k))
        out.append(je.BlockDone(path, 1, i, k, t.format(n=2), source, "stop"))
    out.append(je.PageDone(path, 1, 3, MARKDOWN.format(n=2), 6.5))
    out += [je.PageStarted(path, 2, 3), je.EngineStage(path, 2, "vision", 1.2, 1296),
            je.LayoutDone(path, 2, ()), je.PageDone(path, 2, 3, "", 1.5)]
    warning = "page 3: the layout stage found no blocks (a blank page?)"
    out.append(je.FileDone(path, "pdf", 3, 14.0, (warning,)))
    out.append(ev.FileFinished(path, "done", output=f"{OUT}/march", kind="pdf", pages=3,
                               seconds=14.0))
    return out
