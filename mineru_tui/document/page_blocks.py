"""A page of MinerU's middle JSON as the blocks a viewer lists: type, box, text.

One reading of ``_middle.json``'s pages for both sides of the watch app: the live view of an
Office file (``convert`` emits its blocks from the middle JSON it is about to write) and the
restored view after a restart (``tui/restore.py`` reads the written file), so the two show
the same blocks.
"""

from __future__ import annotations


def page_blocks(info: dict) -> list[tuple[str, tuple[float, float, float, float], str]]:
    """``(type, box, text)`` of every block of a middle-JSON page, content then discarded
    (headers, footers); the box is normalised to the page size ((0, 0, 0, 0) without one)."""
    size = info.get("page_size") or (1.0, 1.0)
    blocks = [b for b in (info.get("para_blocks") or []) + (info.get("discarded_blocks") or [])
              if isinstance(b, dict)]
    return [(str(b.get("type", "")), normalised(b.get("bbox"), size) if b.get("bbox") else
             (0.0, 0.0, 0.0, 0.0), block_text(b)) for b in blocks]


def block_events(path: str, one, source: str) -> list:
    """The LayoutDone and BlockDone events of ``one`` (a document of one page), its blocks as
    its middle-JSON page lists them, each marked ``source`` (``office``, ``text_layer``):
    what a viewer shows live and, read back from ``_middle.json``, after a restart."""
    from mineru_tui.document.middle_json import to_middle_json
    from mineru_tui.events import BlockDone, BlockInfo, LayoutDone

    page = one.pages[0].page_idx
    blocks = page_blocks(to_middle_json(one)["pdf_info"][0])
    return [LayoutDone(path, page, tuple(BlockInfo(i, kind, bbox, source=source)
                                         for i, (kind, bbox, _) in enumerate(blocks)))] + \
        [BlockDone(path, page, i, kind, text, source, source)
         for i, (kind, _, text) in enumerate(blocks)]


def normalised(value, size=(1.0, 1.0)) -> tuple[float, float, float, float]:
    """A box in page units as fractions of the page (all zeros when it is not a box)."""
    try:
        w, h = (float(size[0]) or 1.0, float(size[1]) or 1.0)
        x0, y0, x1, y1 = (float(v) for v in value)
        return (x0 / w, y0 / h, x1 / w, y1 / h)
    except (TypeError, ValueError, IndexError):
        return (0.0, 0.0, 0.0, 0.0)


def block_text(block: dict) -> str:
    """The text of a middle-JSON block: its spans' content (a table's HTML), line by line,
    then its inner blocks'."""
    parts: list[str] = []
    for line in block.get("lines") or []:
        parts.append("".join(str(s.get("content") or s.get("html") or "")
                             for s in line.get("spans") or [] if isinstance(s, dict)))
    for inner in block.get("blocks") or []:
        if isinstance(inner, dict):
            parts.append(block_text(inner))
    return "\n".join(p for p in parts if p)
