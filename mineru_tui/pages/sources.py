"""Where page images come from: image files (every frame) or PDF pages (rendered one at a time).

:func:`open_source` returns the number of pages to read and an iterator of page inputs. An
item is a :class:`~mineru_tui.pages.pipeline.PageInput`, or a :class:`PageError` for a page
that could not even be rendered or decoded (it fails alone). A PDF page's bitmap lives only
while that page is read, so a 1000-page PDF never holds 1000 bitmaps.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mineru_tui.errors import InputError
from mineru_tui.pages.pipeline import PageInput


@dataclass
class PageError:
    """A page that could not be prepared: its position and one line saying why."""

    ordinal: int
    number: int
    reason: str
    page_size: tuple[float, float] | None = None


def parse_page_ranges(spec: str | None, total: int) -> list[int]:
    """``"1-3,7"`` (1-based, inclusive; ``"all"`` or empty for every page) → 0-based indices,
    sorted and without duplicates; pages past the end are dropped. InputError for bad syntax."""
    if spec is None or not spec.strip() or spec.strip().lower() == "all":
        return list(range(total))
    out: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo) if lo.strip() else 1
            b = (int(hi) if hi.strip() else total) if sep else a
        except ValueError:
            raise InputError(f"bad page range {part!r} (use e.g. 1-3,7)") from None
        if a < 1 or b < a:
            raise InputError(f"bad page range {part!r} (pages count from 1; write low-high)")
        out.update(range(a - 1, min(b, total)))
    return sorted(out)


def open_source(path: Path, kind: str, pages: str | None, settings, *, classify: bool):
    """(pages to read, iterator of PageInput | PageError, closer)."""
    if kind == "pdf":
        return _pdf_source(path, pages, classify)
    return _image_source(path, pages)


def _image_source(path: Path, pages: str | None):
    from mineru_tui.pages import images

    total = images.count_pages(path)
    wanted = parse_page_ranges(pages, total)
    if not wanted:
        raise InputError(f"--pages {pages} selects no page (the file has {total})")

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
            yield PageInput(ordinal, page.index + 1, page.image, tuple(page.image.size))

    return len(wanted), gen(), lambda: None


def _pdf_source(path: Path, pages: str | None, classify: bool):
    from mineru_tui.pages import pdf_glue

    if not pdf_glue.available():
        raise InputError("PDF reading is not available in this installation (mineru_tui.pdf is missing)")
    pdf = pdf_glue.open_pdf(path, pages)
    n = len(pdf)

    def gen() -> Iterator[PageInput | PageError]:
        for ordinal, page in enumerate(pdf):
            number = int(page.index) + 1
            try:
                image = pdf_glue.render(page)
                decision = None
                if classify:
                    try:
                        decision = pdf_glue.classify(page)
                    except Exception as e:  # a page we cannot classify is read by the model
                        decision = {"use_text_layer": False, "reason": f"classification failed ({type(e).__name__})"}
                size = _displayed_size(page.size_pt, image.size)
            except InputError as e:
                yield PageError(ordinal, number, str(e))
                page.close()
                continue
            except Exception as e:
                yield PageError(ordinal, number, f"cannot render this page ({type(e).__name__}: {' '.join(str(e).split())[:160]})")
                page.close()
                continue
            try:
                yield PageInput(ordinal, number, image, size, page, decision)
            finally:
                page.close()

    return n, gen(), pdf.close


def _displayed_size(size_pt, image_size) -> tuple[float, float]:
    """The page size in points in the frame the bitmap shows (swapped for /Rotate 90 or 270
    when the size was given unrotated)."""
    w, h = (float(v) for v in size_pt)
    iw, ih = image_size
    if (w > h) != (iw > ih) and abs(w - h) > 1e-6 and iw != ih:
        w, h = h, w
    return (w, h)
