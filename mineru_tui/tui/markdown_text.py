"""What the Markdown pane says: a page's Markdown under its caption, or, for a file with no
page to show, its whole Markdown or why there is none (failed, model needed, empty...).

Plain text and Rich ``Text``; no Textual. Reasons and names are escaped (control characters
never reach the terminal).
"""

from __future__ import annotations

from rich.text import Text

from mineru_tui.engines.defaults import DEFAULT_MODEL
from mineru_tui.tui.state import EMPTY, READING, FileRow, PageRow
from mineru_tui.tui.widgets.block_view import printable
from mineru_tui.tui.widgets.preview import page_caption
from mineru_tui.units import page_unit
from mineru_tui.watch import events as ev
from mineru_tui.watch.service import SERVER_HINT


def page_text(row: FileRow, page: PageRow, restored: str, hint: str) -> tuple[Text, str, tuple]:
    """(caption, Markdown, key) of one page; the key changes when the text must be redrawn."""
    head = page_caption(row, page)
    if page.status == READING:  # the blocks read so far, as they finish
        done = [b for b in page.blocks if b.done and b.text.strip()]
        text = "\n\n".join(b.text for b in done)
        text += ("\n\n" if text else "") + (
            f"_Reading: {page.blocks_done} of {len(page.blocks)} blocks…_" if page.blocks
            else "_Reading the layout…_")
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
    text = restored if row.status == ev.DONE else ""
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


def placeholder(row: FileRow, hint: str) -> str:
    """The Markdown pane of a file with no page to show; ``hint`` is the watcher's advice
    for a file that needs the model (:func:`~mineru_tui.watch.service.hint_for`)."""
    reason = printable(row.reason.removesuffix("; " + hint))  # the pane says it at length
    row = FileRow(row.path, row.name, row.status, row.kind, reason=printable(row.reason),
                  note=row.note, warnings=[printable(w) for w in row.warnings],
                  pages=row.pages)
    if row.status == ev.NEEDS_MODEL and hint == SERVER_HINT:
        return (f"## Server needed\n\n{reason}\n\nStart the server (or point `--server-url` "
                f"at one that runs), then press **r** on this file.")
    if row.status == ev.NEEDS_MODEL:
        return (f"## Model needed\n\n{reason}\n\nGet the model:\n\n"
                f"```sh\nhf download {DEFAULT_MODEL}\n```\n\n"
                f"then restart with `--model DIR` if it is not in the Hugging Face cache, and "
                f"press **r** on this file.")
    if row.status == ev.FAILED:
        return f"## Failed\n\n{row.reason}\n\n" + (f"_{row.note}_" if row.note else
                                                   "_It is read again when it changes, or "
                                                   "press **r**._")
    if row.status == ev.SKIPPED:
        return f"_Skipped: {row.reason}_"
    if row.status == ev.CANCELLED:
        return "_Cancelled. Press **r** to read it again._"
    if row.status == "queued":
        return "_Queued._"
    if row.status == "reading":
        return "_Reading…_"
    warn = row.warning_line()
    return "_Nothing was read from this file (empty document)" + (f": {warn}_" if warn else "._")
