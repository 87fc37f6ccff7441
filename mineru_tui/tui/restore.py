"""A finished file's pages, blocks and per-page Markdown, rebuilt from its output set.

After a restart the watcher knows a file is done (the manifest) but the app saw none of its
events. The output folder has what the app needs:

* ``<stem>_model.json`` (the page reader's raw answers): every page with its layout blocks in
  reading order (type, normalised box, text, where the text came from, why decoding
  stopped), its warnings or error and its time; the document is rebuilt from it without the
  model (:func:`mineru_tui.reader.rebuild`) for each page's own Markdown;
* ``<stem>_middle.json`` (MinerU's middle JSON, every reader writes it): pages and blocks
  with boxes in page units, when there is no ``_model.json`` (Office files, older sets); each
  page's Markdown rendered from its blocks as live rendered it (``tui/middle_pages.py``);
* ``<stem>.md``: the whole Markdown, shown when pages have none of their own;
* ``.<stem>.journal`` beside the set (the pages a run finished, ``reader/journal.py``): a
  file cut off mid-way shows the pages it has.

Nothing is rendered here: a record written by the app's reader carries its page's Markdown
(``markdown``); an older record is rebuilt from the answers without the source file (its
pictures and text-layer pages are then not re-read). Page images are rendered only when the
Page tab shows one (:class:`mineru_tui.pdf.previews.Previews`).

Runs in a worker thread of the app (it reads files); knows nothing of Textual.
"""

from __future__ import annotations

import json
from copy import copy
from pathlib import Path

from mineru_tui.document.page_blocks import normalised
from mineru_tui.tui.state import EMPTY, BlockRow, DetailLoaded, PageRow

MD_LIMIT = 2_000_000  # bytes of a .md read back for display
JSON_LIMIT = 200_000_000  # a larger JSON file is not parsed for display


def load_detail(path: str, output: str) -> DetailLoaded:
    """The detail of ``path`` from its output folder ``output`` (empty when unreadable)."""
    folder = Path(output)
    stem = folder.name
    markdown = _read_text(folder / f"{stem}.md", MD_LIMIT)
    pages: list[PageRow] = []
    warnings: list[str] = []
    model = _read_json(folder / f"{stem}_model.json")
    if not (isinstance(model, dict) and isinstance(model.get("pages"), list)):
        model = _read_journal(folder.parent / f".{stem}.journal")
    if isinstance(model, dict) and isinstance(model.get("pages"), list):
        pages = _from_model_json(model, path)
        warnings = [w for p in pages for w in p.warnings]
        _text_layer_blocks(pages, model["pages"], folder / f"{stem}_middle.json")
    else:
        middle = _read_json(folder / f"{stem}_middle.json")
        if isinstance(middle, dict) and isinstance(middle.get("pdf_info"), list):
            pages = _from_middle_json(middle)
    if pages and not markdown.strip():
        for p in pages:
            if p.status == "done" and not p.markdown:
                p.status = EMPTY
    return DetailLoaded(path, tuple(pages), markdown, tuple(dict.fromkeys(warnings)))


def _read_text(path: Path, limit: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(limit)
    except OSError:
        return ""


def _read_journal(path: Path) -> dict | None:
    """The pages a journal holds, in order, as ``_model.json``'s ``pages`` (None without one)."""
    try:
        if not path.is_file() or path.stat().st_size > JSON_LIMIT:
            return None
        from mineru_tui.reader.journal import read_records

        records = read_records(path)
    except (OSError, ValueError):
        return None
    return {"pages": [records[k] for k in sorted(records)]} if records else None


def _read_json(path: Path):
    try:
        if path.stat().st_size > JSON_LIMIT:
            return None
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return None


def _text_layer_blocks(pages: list[PageRow], records: list, middle_path: Path) -> None:
    """Text-layer pages have no model blocks in their records: their blocks are
    ``_middle.json``'s (as the reader's live events showed them, source ``text_layer``)."""
    wanted = {p.index for p, r in zip(pages, records) if isinstance(r, dict) and not p.blocks
              and (r.get("mode") == "text-layer" or r.get("fallback") == "text_layer")}
    if not wanted:
        return
    middle = _read_json(middle_path)
    if not (isinstance(middle, dict) and isinstance(middle.get("pdf_info"), list)):
        return
    from mineru_tui.document.page_blocks import page_blocks

    by_index = {p.index: p for p in pages}
    for n, info in enumerate(middle["pdf_info"]):
        if isinstance(info, dict) and int(info.get("page_idx", n)) in wanted:
            page = by_index[int(info.get("page_idx", n))]
            page.blocks = [BlockRow(i, kind, bbox, "text_layer", text, True, "text_layer")
                           for i, (kind, bbox, text) in enumerate(page_blocks(info))]


def _from_model_json(model: dict, source: str) -> list[PageRow]:
    pages: list[PageRow] = []
    for n, record in enumerate(model["pages"]):
        if not isinstance(record, dict):
            continue
        page = PageRow(int(record.get("page_idx", n)), status="done", layout=True,
                       seconds=float(record.get("seconds") or 0.0))
        page.warnings = [str(w) for w in record.get("warnings") or []]
        if record.get("error"):
            page.status = "failed"
            page.warnings.insert(0, str(record["error"]))
        elif record.get("blank"):
            page.warnings.insert(0, "the page is blank (nothing is drawn on it)")
        for i, b in enumerate(record.get("blocks") or []):
            if isinstance(b, dict):
                page.blocks.append(BlockRow(i, str(b.get("type", "")), normalised(b.get("bbox")),
                                            str(b.get("_source", "model")),
                                            str(b.get("content") or ""), True,
                                            str(b.get("_finish", ""))))
        pages.append(page)
    for page, md in zip(pages, _page_markdown(model, len(pages), source)):
        if md is None:
            page.markdown_known = False
            continue
        page.markdown = md
        if page.status == "done" and not md.strip():
            page.status = EMPTY
    return pages


def _page_markdown(model: dict, n: int, source: str) -> list[str | None]:
    """Each page's Markdown, as the reader's PageDone carried it (None when not known):
    from the records when they carry it, else rebuilt from the answers without rendering."""
    pages = model["pages"]
    if all(isinstance(r, dict) and isinstance(r.get("markdown"), str) for r in pages):
        return [r["markdown"] for r in pages]
    try:
        from mineru_tui.document import to_markdown
        from mineru_tui.reader import rebuild

        doc = rebuild(model, None)
        out: list[str | None] = []
        for page, record in zip(doc.pages, pages):
            if record.get("mode") == "text-layer" or record.get("fallback") == "text_layer":
                out.append(None)  # its text is in the PDF, not in the record: not known here
                continue
            one = copy(doc)
            one.pages = [page]
            out.append(to_markdown(one))
        return out if len(out) == n else [None] * n
    except Exception:  # a set from another version: boxes and texts are still shown
        return [None] * n


def _from_middle_json(middle: dict) -> list[PageRow]:
    """Pages from ``_middle.json`` (an Office set, or one without ``_model.json``): each
    page's blocks as the live events listed them, and its Markdown rendered from its blocks
    as ``convert`` rendered it live (:mod:`mineru_tui.tui.middle_pages`)."""
    from mineru_tui.document.page_blocks import page_blocks
    from mineru_tui.tui.middle_pages import page_markdown

    backend = str(middle.get("_backend") or "office")
    office = backend == "office"  # as convert's live events say
    pages: list[PageRow] = []
    for n, info in enumerate(middle["pdf_info"]):
        if not isinstance(info, dict):
            continue
        page = PageRow(int(info.get("page_idx", n)), status="done", layout=True)
        for i, (kind, bbox, text) in enumerate(page_blocks(info)):
            page.blocks.append(BlockRow(i, kind, bbox, "office" if office else "model",
                                        text, True, "office" if office else ""))
        try:
            page.finish(page_markdown(info, backend), 0.0)
        except Exception:  # a set from another version: its blocks are still shown
            page.markdown_known = False
            if not any(b.text.strip() for b in page.blocks):
                page.status = EMPTY
        pages.append(page)
    return pages
