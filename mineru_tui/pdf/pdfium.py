"""The one owner of PDFium in a process: every pypdfium2 call goes through one lock.

PDFium is not thread-safe: two calls into it at the same moment from two threads — even on
two different documents — corrupt its heap (the app died with SIGSEGV/SIGTRAP inside
``libpdfium.so`` while one thread rendered a page preview and another read a page). So:

* :func:`load` returns ``pypdfium2`` with every function of ``pypdfium2.raw`` wrapped to run
  under :data:`LOCK` — the modules that call PDFium directly (characters, fonts, rules,
  links, classification) and pypdfium2's own helpers (rendering, text pages, the finalizers
  that close handles when the garbage collector runs in any thread) all look those
  functions up on that module, so no call escapes the lock;
* :func:`owned` holds the same (re-entrant) lock over a whole call chain — open, render and
  free a bitmap, make a text page, close — so no other thread's call falls between them.

The lock is held only while PDFium works, never while the model reads a page. Processes
own their PDFium: the page probe's child (:mod:`.probe`) has its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator

LOCK = threading.RLock()
_installed = False


def _locked(function):
    def call(*args):
        with LOCK:
            return function(*args)

    call.__name__ = getattr(function, "__name__", "pdfium_call")
    call.__wrapped__ = function
    return call


def load():
    """``pypdfium2``, with every raw PDFium function called under :data:`LOCK`."""
    global _installed
    import pypdfium2
    import pypdfium2.raw as raw

    if not _installed:
        with LOCK:
            if not _installed:
                for name, value in list(vars(raw).items()):
                    if isinstance(value, ctypes._CFuncPtr):  # a C function of libpdfium
                        setattr(raw, name, _locked(value))
                _installed = True
    return pypdfium2


@contextlib.contextmanager
def owned() -> Iterator[None]:
    """Hold PDFium for a whole call chain (re-entrant: nested chains are fine)."""
    with LOCK:
        yield


def unlocked(*functions):
    """The bare PDFium functions behind :func:`load`'s locked wrappers (the same function
    when it is not wrapped), for a loop that holds :data:`LOCK` itself: a page's thousands
    of calls then pay for the lock once."""
    return tuple(getattr(f, "__wrapped__", f) for f in functions)


def page_objects(page, max_depth: int = 15, levels: list[int] | None = None) -> list[tuple[int, object]]:
    """``(type, FPDF_PAGEOBJECT)`` of every object ``page`` (a ``pypdfium2.PdfPage``) paints,
    in paint order, form XObjects entered depth first down to ``max_depth`` levels: the
    objects and order of pypdfium2's ``PdfPage.get_objects(max_depth=...)``, without a
    Python wrapper per object and with PDFium held once for the whole walk (a page of a
    long report has a few hundred objects, each asked its type). ``levels``, when given,
    gets each object's level (0: on the page, 1: in a form on it, ...). Raises pypdfium2's
    ``PdfiumError`` where ``get_objects`` does, with its words."""
    import pypdfium2.raw as raw
    from pypdfium2 import PdfiumError

    page_count, page_get, form_count, form_get, get_type = unlocked(
        raw.FPDFPage_CountObjects, raw.FPDFPage_GetObject, raw.FPDFFormObj_CountObjects,
        raw.FPDFFormObj_GetObject, raw.FPDFPageObj_GetType)
    out: list[tuple[int, object]] = []
    with LOCK:
        _walk(page.raw, page_count, page_get, 0, max_depth, out,
              (form_count, form_get, get_type, raw.FPDF_PAGEOBJ_FORM, PdfiumError, levels))
    return out


def _walk(parent, count, get, level: int, max_depth: int, out: list, using: tuple) -> None:
    """:func:`page_objects`' walk (a module function, not a closure: a nested function that
    calls itself is a reference cycle, which kept each page's whole list of objects for
    the garbage collector)."""
    form_count, form_get, get_type, form_kind, error, levels = using
    n = count(parent)
    if n < 0:
        raise error("Failed to get number of pageobjects.")
    for i in range(n):
        obj = get(parent, i)
        if not obj:
            raise error("Failed to get pageobject.")
        kind = get_type(obj)
        out.append((kind, obj))
        if levels is not None:
            levels.append(level)
        if kind == form_kind and level < max_depth - 1:
            _walk(obj, form_count, form_get, level + 1, max_depth, out, using)


def kept_page_objects(page, max_depth: int) -> list[tuple[int, object]]:
    """:func:`page_objects` of ``page.raw`` for a reader page (:class:`.reader.PdfPage`),
    walked once per load of the page: the deepest walk asked for so far is kept on it (the
    OCR-layer check walks into forms, the ruling lines take the page's own objects), and a
    shallower one is read from it (the objects above that depth, in the same order)."""
    raw = page.raw
    kept = getattr(page, "objects_cache", None)
    if kept is None or kept[0] is not raw or kept[1] < max_depth:
        levels: list[int] = []
        kept = (raw, max_depth, page_objects(raw, max_depth, levels), levels)
        try:
            page.objects_cache = kept  # with the page it was walked on: a reload walks anew
        except AttributeError:  # a page object that takes no attributes: nothing kept
            pass
    _, depth, objects, levels = kept
    if depth == max_depth:
        return objects
    return [o for o, level in zip(objects, levels) if level < max_depth]


def object_bounds(obj) -> tuple[float, float, float, float]:
    """Left, bottom, right, top of a page object (an ``FPDF_PAGEOBJECT`` from
    :func:`page_objects`) in PDF page coordinates, as pypdfium2's ``PdfObject.get_bounds``."""
    import pypdfium2.raw as raw
    from pypdfium2 import PdfiumError

    left, bottom, right, top = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    if not raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
        raise PdfiumError("Failed to locate pageobject.")
    return left.value, bottom.value, right.value, top.value
