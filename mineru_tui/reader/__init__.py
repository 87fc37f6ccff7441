"""The page reader: images and PDFs read with MinerU2.5 into the document model (``_backend: "vlm"``).

    from mineru_tui.reader import read_pages
    doc = read_pages(path, detected, ConvertOptions(engine=engine), emit=print, cancel=flag)

Pages are read one at a time (:mod:`.sources`) by the loop in :mod:`.read`. Each page has one
of five outcomes (:mod:`.outcomes`: blank, text layer, model, unusable layout, failed), all of
the shape ``(item, doc, reading) -> (Page, record)``; the model's goes through
:func:`.pipeline.read_page` (layout, crops, recognition batched through the engine,
``mineru-vl-utils`` post-processing) and is mapped into a document page (:mod:`.mapping`).
Continuing paragraphs and tables are then joined across pages (:mod:`.merge`). A page that
fails is kept as an empty page with its reason (and a warning); the file fails only when no
page could be read, or when the engine itself cannot run. Cancelling raises
:class:`PagesInterrupted`, which carries the pages finished so far.

With ``-o``, two more files are written next to MinerU's output set: ``<stem>_model.json``
(each page's record: the raw model answers, from which :func:`rebuild` makes the same document
without the model, through the same outcomes, :mod:`.replay`) and ``<stem>_layout.pdf`` (the
boxes drawn over each page).
"""

from __future__ import annotations

from mineru_tui.reader.read import PagesInterrupted, read_pages

__all__ = ["PagesInterrupted", "read_pages", "rebuild"]


def rebuild(model_json, source=None):
    """The document ``read_pages`` made, rebuilt from its ``<stem>_model.json`` without the
    model, through the same page outcomes (:func:`.replay.rebuild`; loaded when called, so
    that opening a broken file loads no document model)."""
    from mineru_tui.reader.replay import rebuild as replay

    return replay(model_json, source)
