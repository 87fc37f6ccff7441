"""What the Markdown pane says: a page's Markdown under its caption, or, for a file with no
page to show, its whole Markdown or why there is none (failed, model needed, empty...).

Plain text and Rich ``Text``; no Textual. Reasons and names are escaped (control characters
never reach the terminal).
"""

from __future__ import annotations

from rich.text import Text

from mineru_tui.tui.state import EMPTY, READING, FileRow, PageRow
from mineru_tui.tui.widgets.block_view import printable
from mineru_tui.tui.widgets.preview import page_caption
from mineru_tui.units import page_unit
from mineru_tui.watch.status import Status


def page_text(row: FileRow, page: PageRow, restored: str, hint: str) -> tuple[Text, str, tuple]:
    """(caption, Markdown, key) of one page; the key changes when the text must be redrawn."""
    head = page_caption(row, page)
    if page.status == READING:  # the blocks read so far, as they finish
        done = [b for b in page.blocks if b.done and b.text.strip()]
        text = "\n\n".join(b.text for b in done)
        text += ("\n\n" if text else "") + (
            f"_Reading: {page.blocks_done} of {page.blocks_to_read} blocks…_" if page.blocks
            else "_Reading the PDF's own text…_" if row.model_free else "_Reading the layout…_")
    elif not page.markdown_known and restored:
        text = restored
        head = Text.assemble(head, ("  (the whole file: its pages were not kept apart)", "dim"))
    elif not page.markdown_known:  # no Markdown of its own: the texts of its blocks
        text = "\n\n".join(b.text for b in page.blocks if b.text.strip())
    elif page.status == EMPTY:
        text = f"_This page came out empty: {printable(page.why_empty)}_"
    elif page.status != "done":  # failed, cancelled, model needed: the file says why
        text = page.markdown or placeholder(row, hint)
    else:
        text = page.markdown
    return head, text, (row.path, page.index, page.status, page.blocks_done, len(text))


def file_text(row: FileRow, restored: str, hint: str) -> tuple[Text, str, tuple]:
    """(heading, Markdown, key) of a file with no page to show."""
    text = restored if row.status == Status.DONE else ""
    if not text and row.detail in ("pending", "loading"):
        text = "_Loading the pages from the output folder…_"
    return (file_head(row), text or placeholder(row, hint),
            (row.path, None, row.status, row.detail, len(text), row.reason))


def file_head(row: FileRow) -> Text:
    """The file's name, status, pages and first warning."""
    out = Text(printable(row.name).replace("\n", " "), style="bold")
    out.append(f" · {row.label}")
    if row.pages_total:
        out.append(f" · {page_unit(row.kind, row.pages_total)}")
    warn = row.warning_line()
    if warn:
        out.append(f"\n⚠ {printable(warn)}", "yellow")
    return out


def placeholder(row: FileRow, hint: str = "") -> str:
    """The Markdown pane of a file with no page to show. A file that needs the model says
    what to do in the words ``parse`` uses (the row's hint, else ``hint``: the watcher's)."""
    reason = printable(row.reason)
    status = row.status
    if status == Status.NEEDS_MODEL:
        return needs_model_text(row, printable(row.hint or hint))
    if status == Status.FAILED:
        return f"## Failed\n\n{reason}\n\n" + (f"_{printable(row.note)}_" if row.note else
                                                 "_It is read again when it changes, or "
                                                 "press **r**._")
    if status == Status.SKIPPED:
        return f"_Skipped: {reason}_"
    if status == Status.CANCELLED:
        return "_Cancelled. Press **r** to read it again._"
    if status == Status.QUEUED:
        return "_Queued._"
    if status == Status.READING:
        return "_Reading…_"
    warn = printable(row.warning_line())
    return "_Nothing was read from this file (empty document)" + (f": {warn}_" if warn else "._")


def needs_model_text(row: FileRow, hint: str) -> str:
    """One line saying what is missing and the way forward, and the keys that take it."""
    name = printable(row.name.rsplit("/", 1)[-1])
    keys = "Press **r** to read it again once it is there"
    if "--effort low" in hint:
        keys += ", or **l** to read this PDF's own text now (effort low, no model)"
    return f"## Model needed\n\n{name} {printable(row.reason)}: {hint}.\n\n{keys}."
