"""pdfium.page_objects walks a page's objects as pypdfium2's PdfPage.get_objects does (same
objects, same order, forms entered to the same depth), and object_bounds is get_bounds."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from mineru_tui.pdf import open_pdf
from mineru_tui.pdf.pdfium import object_bounds, owned, page_objects

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
PDFS = sorted((CORPUS / "pdf").glob("*.pdf")) + sorted((CORPUS / "pdf_lines").glob("*.pdf"))


def _address(handle) -> int:
    return ctypes.cast(handle, ctypes.c_void_p).value or 0


@pytest.mark.parametrize("depth", [1, 4, 15])
def test_the_walk_is_get_objects(depth):
    walked = 0
    for path in PDFS:
        with open_pdf(path) as pdf:
            for page in pdf:
                with owned():
                    raw = page.raw
                    theirs = [(o.type, _address(o.raw)) for o in raw.get_objects(max_depth=depth)]
                    ours = page_objects(raw, max_depth=depth)
                    assert [(k, _address(o)) for k, o in ours] == theirs, f"{path.name} page {page.number}"
                    for (kind, obj), theirs_obj in zip(ours, raw.get_objects(max_depth=depth)):
                        if kind in (1, 3):  # text and image objects: their bounds
                            assert object_bounds(obj) == theirs_obj.get_bounds()
                    walked += len(ours)
    assert walked > 1000


def test_the_walk_and_the_text_checks_leave_no_pointers_to_the_garbage_collector():
    """A page's object list goes when its last reference does: no reference cycle holds it
    (a self-calling closure did, and ctypes.cast ties its source into one), so reading a
    long PDF leaves the collector no pages' worth of pointers to find. (ctypes makes an
    array type per buffer length, a cycle of its own: those are not the walk's.)"""
    import gc

    from mineru_tui.pdf.chars import page_chars
    from mineru_tui.pdf.classify import _images_in_paint_order

    path = CORPUS / "pdf" / "redp5110_pages_5_18.pdf"
    with open_pdf(path) as pdf:
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds stays in gc.garbage
        try:
            walked = 0
            for page in pdf:
                walked += len(page_objects(page.raw, max_depth=15))
                _images_in_paint_order(page)
                page_chars(page)
            gc.collect()
            left = [o for o in gc.garbage if isinstance(o, (ctypes._Pointer, list))]
            assert walked > 100 and not left
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()


def test_a_kept_walk_is_the_walk_at_every_depth_and_goes_with_the_page_load():
    """kept_page_objects walks a page once per load and gives each depth what page_objects
    gives it, whichever depth was asked for first; a page loaded again is walked again."""
    from mineru_tui.pdf.pdfium import kept_page_objects

    compared = 0
    for path in PDFS:
        with open_pdf(path) as pdf:
            for page in pdf:
                for order in ((4, 1, 15), (1, 4, 2)):
                    page.close()  # a fresh load, nothing kept
                    for depth in order:
                        kept = kept_page_objects(page, depth)
                        with owned():
                            walked = page_objects(page.raw, max_depth=depth)
                        assert [(k, _address(o)) for k, o in kept] == \
                            [(k, _address(o)) for k, o in walked], f"{path.name} {page.number}"
                        compared += len(walked)
                before = page.objects_cache
                assert kept_page_objects(page, 1) is not None and page.objects_cache is before
                page.release()
                kept_page_objects(page, 1)  # reloads the page: its own walk
                assert page.objects_cache is not before and page.objects_cache[0] is page.raw
    assert compared > 1000
