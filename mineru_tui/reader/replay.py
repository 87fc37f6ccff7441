"""The document ``read_pages`` made, made again from its ``<stem>_model.json`` without the model.

Each page's record goes through the same outcomes as when it was read (:mod:`.outcomes`),
which take the answers from the record instead of the engine. The source file, when given,
gives the pictures their crops and the text layer its characters.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from mineru_tui.document import Document
from mineru_tui.pdf import open_pdf
from mineru_tui.reader import merge, outcomes, pipeline
from mineru_tui.reader.assemble import drop_text_layer_furniture
from mineru_tui.reader.images import iter_image_pages

PICTURES = ("image", "chart", "table")  # blocks cropped from the page image (reader/mapping.py)


def rebuild(model_json: dict | str | Path, source: str | Path | None = None):
    """The document ``read_pages`` made, rebuilt from its ``<stem>_model.json`` without the model.

    ``source`` (the original file) is needed only for the pictures of image blocks and the
    text of pages read from the text layer.
    """
    if not isinstance(model_json, dict):
        model_json = json.loads(Path(model_json).read_text(encoding="utf-8"))
    kind = model_json.get("kind")
    reading = outcomes.Reading(pipeline.Settings(mode=model_json.get("mode", "two-stage")))
    doc = Document(backend="vlm")
    with contextlib.ExitStack() as stack:
        # a PDF is opened once for all its pages (and its page probe started once)
        pdf = stack.enter_context(open_pdf(Path(source))) if source is not None and kind == "pdf" else None
        for record in model_json["pages"]:
            with _source_page(source, pdf, record) as (image, pdf_page):
                item = pipeline.PageInput(record["page_idx"], record["page_no"], image,
                                          tuple(record.get("page_size") or (0, 0)), pdf_page,
                                          record=dict(record))
                outcome = outcomes.pick(item, reading)
                try:
                    page, _ = outcome(item, doc, reading)
                except pipeline.PageFailed:  # the text layer no longer reads: the page as recorded
                    item.pdf_page = None
                    page, _ = outcome(item, doc, reading)
            doc.pages.append(page)
    drop_text_layer_furniture(doc, model_json["pages"])
    merge.merge_across_pages(doc)
    return doc


@contextlib.contextmanager
def _source_page(source, pdf, record: dict):
    """(image, PDF page) of the record's page in ``source`` (``pdf`` when it is an open PDF)
    as the reader saw it, when they are needed: the image for pictures (rendered only for a
    page with a picture), the PDF page for text read from the text layer."""
    if source is None or record.get("error") or record.get("blank"):
        yield None, None
        return
    number = record["page_no"]
    if pdf is None:
        image = next(iter(iter_image_pages(Path(source), {number - 1})), None)
        yield (image.image if image is not None else None), None
        return
    text_layer = record.get("mode") == "text-layer" or record.get("fallback") == "text_layer"
    pictures = any(b.get("type") in PICTURES for b in record.get("blocks") or ())
    page = pdf.page(number - 1)
    try:
        yield (page.render() if pictures else None), (page if text_layer else None)
    finally:
        page.close()
