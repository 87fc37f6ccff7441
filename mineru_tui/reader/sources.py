"""Where page images come from: image files (every frame) or PDF pages (rendered one at a time).

:func:`open_source` returns the number of pages to read and an iterator of page inputs. An
item is a :class:`~mineru_tui.reader.pipeline.PageInput`, or a :class:`PageError` for a page
that could not even be rendered or decoded (it fails alone), or at effort ``low`` an
:class:`Unread` PDF page (read whole by :mod:`.whole_page`, in the page probe's child). A PDF
page's bitmap lives only while that page is read, so a 1000-page PDF never holds 1000 bitmaps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mineru_tui.errors import InputError
from mineru_tui.pdf import classify_page, is_blank, open_pdf
from mineru_tui.pdf.page_range import parse_pages  # the one --pages syntax (no pypdfium2)
from mineru_tui.reader import images
from mineru_tui.reader.pipeline import PageInput

WHOLE_PAGE_CHILD = "mineru_tui.reader.whole_page"  # the page probe's child that reads pages


@dataclass
class PageError:
    """A page that could not be prepared: its position and one line saying why."""

    ordinal: int
    number: int
    reason: str
    page_size: tuple[float, float] | None = None


def open_source(path: Path, kind: str, pages: str | None, settings, *, classify: bool,
                kept: dict[int, dict] | None = None, replayed=()):
    """(pages to read, iterator of PageInput | PageError, closer).

    Pages in ``kept`` (ordinal -> record, from the journal) come with their record and are
    neither classified nor, unless the model read them (their pictures are cropped from the
    image) and they are not ``replayed`` (taken back whole from the journal), rendered."""
    if kind == "pdf":  # effort low reads only the text layer: no page needs an image
        return _pdf_source(path, pages, classify, kept or {}, render=settings.effort != "low",
                           replayed=frozenset(replayed))
    return _image_source(path, pages, kept or {})


def _image_source(path: Path, pages: str | None, kept: dict[int, dict]):
    total = images.count_pages(path)
    wanted = parse_pages(pages, total)

    def gen() -> Iterator[PageInput | PageError]:
        it = images.iter_image_pages(path, set(wanted))
        for ordinal, index in enumerate(wanted):
            try:
                page = next(it)
            except InputError as e:
                yield PageError(ordinal, index + 1, str(e))
                continue
            except StopIteration:
                yield PageError(ordinal, index + 1, "frame missing (truncated file)")
                continue
            yield PageInput(ordinal, page.index + 1, page.image, tuple(page.image.size),
                            record=kept.get(ordinal))

    return len(wanted), gen(), lambda: None


def _kept_page(ordinal: int, page, record: dict, replayed: bool = False) -> PageInput:
    """A PDF page an earlier run finished: its record, the page, and its image when the
    model read it (pictures are cropped from it again) and it is not ``replayed``."""
    model_read = (record.get("mode") != "text-layer" and not record.get("blank") and record.get("blocks")
                  and not replayed)
    return PageInput(ordinal, int(page.index) + 1, page.render() if model_read else None,
                     tuple(record["page_size"]), page, record.get("decision"),
                     blank=bool(record.get("blank")), record=record)


@dataclass
class Unread:
    """A PDF page at effort ``low`` not yet loaded: it is read whole in one go, in the page
    probe's child when pages are probed (:mod:`.whole_page`)."""

    ordinal: int
    number: int
    page: object  # the PdfPage, not loaded
    pdf: object  # its PdfDocument
    classify: bool
    ahead: tuple[int, int] | None = None  # (file index, ordinal) of the next page, if read whole too


def prepare_pdf_page(page, ordinal: int, *, classify: bool, render: bool = True,
                     isolated: bool = False) -> PageInput | PageError:
    """A PDF page made ready to read: rendered (``render``), checked for blankness,
    classified (``classify``) and measured; or the reason it cannot be. ``isolated``: this is
    the page probe's child, where a MemoryError is its memory limit, not the page's: it is
    raised (the child ends and the reading process reads the page), not kept as the page's."""
    number = int(page.index) + 1
    try:
        # MinerU's size: 200 dpi, long edge at most 3500 px
        image = page.render() if render else None
        decision = None
        blank = is_blank(page)  # nothing drawn: an empty page, not a scan
        if classify and not blank:
            try:
                d = classify_page(page)
                decision = {"use_text_layer": bool(d.use_text_layer), "reason": str(d.reason)}
            except Exception as e:  # a page we cannot classify is read by the model
                if isolated and isinstance(e, MemoryError):
                    raise
                decision = {"use_text_layer": False, "reason": f"classification failed ({type(e).__name__})"}
        size = tuple(float(v) for v in page.size_pt)  # as displayed (after /Rotate)
    except InputError as e:
        return PageError(ordinal, number, str(e))
    except Exception as e:
        if isolated and isinstance(e, MemoryError):
            raise
        return PageError(ordinal, number, f"cannot render this page ({type(e).__name__}: {' '.join(str(e).split())[:160]})")
    if blank:
        decision = {"use_text_layer": False, "reason": "The page is blank.", "blank": True}
    return PageInput(ordinal, number, image, size, page, decision, blank=blank)


def _pdf_source(path: Path, pages: str | None, classify: bool, kept: dict[int, dict],
                render: bool = True, replayed: frozenset = frozenset()):
    pdf = open_pdf(path, pages)
    if not render:  # effort low: the probe's child reads each page whole
        pdf.read_in_probe(WHOLE_PAGE_CHILD, {"classify": classify})
    n = len(pdf)

    def gen() -> Iterator[PageInput | PageError | Unread]:
        for ordinal, page in enumerate(pdf):
            try:
                if ordinal in kept:
                    yield _kept_page(ordinal, page, kept[ordinal], ordinal in replayed)
                elif not render:
                    after = ordinal + 1  # the next page, read ahead when it is read whole too
                    ahead = (pdf.selected[after], after) if after < n and after not in kept else None
                    yield Unread(ordinal, int(page.index) + 1, page, pdf, classify, ahead)
                else:
                    yield prepare_pdf_page(page, ordinal, classify=classify)
            finally:
                page.close()

    return n, gen(), pdf.close
