"""A fixed story of watch and job events, fed straight into the app (no service, no clock).

Used by the navigation tests and the SVG snapshots: the same events always draw the same
screen. The events are the ones the service and the page reader emit (see
mineru_tui/events.py and mineru_tui/watch/events.py).
"""

from __future__ import annotations

from mineru_tui import events as je
from mineru_tui.watch import events as ev

ROOT = "/scans"
OUT = "/scans-mineru"
BOXES = [("title", (0.1, 0.05, 0.9, 0.1), "model"), ("text", (0.1, 0.14, 0.9, 0.45), "model"),
         ("table", (0.1, 0.5, 0.9, 0.8), "model"), ("footer", (0.1, 0.92, 0.9, 0.96), "text_layer")]


def story(stream_tokens: int = 6) -> list[object]:
    """Three finished files and a PDF whose second page is being decoded."""
    pdf = f"{ROOT}/invoices/march.pdf"
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
        ev.FileQueued(pdf, "pages", "new"),
        je.FileStarted(pdf, "pdf"),
    ]
    for page in range(2):
        out += [je.PageStarted(pdf, page, 3),
                je.EngineStage(pdf, page, "vision", 1.25, 1296),
                je.EngineStage(pdf, page, "prefill", 0.31, 1340),
                je.LayoutDone(pdf, page, tuple(je.BlockInfo(i, t, b, source=s)
                                               for i, (t, b, s) in enumerate(BOXES)))]
        texts = [f"Invoice {page + 1}", "Amount due within thirty days of receipt",
                 "<table><tr><td>1</td></tr></table>", "page footer"]
        last = 4 if page == 0 else 2
        for i in range(last):
            out.append(je.BlockStarted(pdf, page, i, 4, BOXES[i][0]))
            words = texts[i].split(" ")
            n = len(words) if (page == 0 or i < last - 1) else min(stream_tokens, len(words))
            for k in range(n):
                out.append(je.BlockTokens(pdf, page, i, (" " if k else "") + words[k], k + 1,
                                          24.0 + k))
            if page == 0 or i < last - 1:
                out.append(je.BlockDone(pdf, page, i, BOXES[i][0], texts[i], BOXES[i][2],
                                        "stop"))
        if page == 0:
            out.append(je.PageDone(pdf, 0, 3, "# Invoice 1\n\nAmount due within thirty days "
                                              "of receipt\n", 6.0))
    return out
