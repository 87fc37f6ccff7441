"""Finding text in a file's pages and going to a page number: the app's ``/`` and ``:`` box.

Plain functions over the board's rows (no Textual). Find never moves the page while you
type: it counts the pages that have the whole query; Enter goes to the next one, selects the
first block that has it and shows the match highlighted in the page's caption.
"""

from __future__ import annotations

from rich.text import Text

from mineru_tui.tui.state import FileRow, PageRow

CONTEXT = 36  # characters shown each side of a match


def _texts(page: PageRow) -> list[str]:
    return [page.markdown] + [b.text for b in page.blocks]


def matching_pages(row: FileRow | None, query: str) -> list[int]:
    """The pages (0-based, in order) whose Markdown or blocks contain ``query`` (any case)."""
    if row is None or not query:
        return []
    q = query.casefold()
    return [i for i, p in sorted(row.pages.items()) if any(q in t.casefold() for t in _texts(p))]


def next_match(pages: list[int], after: int | None) -> int | None:
    """The first matching page after ``after`` (wrapping round), None when there is none."""
    if not pages:
        return None
    later = [p for p in pages if after is None or p > after]
    return later[0] if later else pages[0]


def block_with(page: PageRow, query: str) -> int:
    """The index of the first block of ``page`` containing ``query`` (-1: none)."""
    q = query.casefold()
    return next((b.index for b in page.blocks if q in b.text.casefold()), -1)


def snippet(page: PageRow, query: str) -> Text:
    """The first match in context, the match itself highlighted: "…of «receipt». Please…"."""
    q = query.casefold()
    for text in _texts(page):
        flat = " ".join(text.split())
        at = flat.casefold().find(q)
        if at >= 0:
            lo, hi = max(0, at - CONTEXT), min(len(flat), at + len(q) + CONTEXT)
            return Text.assemble("…" if lo else "", flat[lo:at],
                                 (flat[at:at + len(q)], "bold reverse"),
                                 flat[at + len(q):hi], "…" if hi < len(flat) else "")
    return Text("")


def page_number(text: str, row: FileRow | None) -> int | None:
    """A typed page number (1-based) as a page index of ``row``, None when there is none."""
    if row is None or not text.strip().isdigit():
        return None
    index = int(text.strip()) - 1
    return index if index in row.pages else None
