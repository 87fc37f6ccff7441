"""Opening a PDF, choosing pages, and rendering them one at a time with pypdfium2.

Rendering follows MinerU 4.0.12: 200 dpi, the longest edge capped at 3500 pixels, the page's
own /Rotate applied, so the image is the page as a reader sees it ("the display frame").
Layout boxes are normalised to that image; :meth:`PdfPage.to_user` / :meth:`PdfPage.to_display`
convert between the display frame (points, origin top left) and PDF user space.

PDFium is not thread-safe: every call goes through the process's one PDFium lock
(:mod:`.pdfium`), held over each whole chain here (open, load a page, render and free the
bitmap, make a text page, close). Still use a document (and its pages) from one thread at a
time: the lock keeps PDFium whole, not one page object shared by two threads.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from mineru_tui.errors import InputError
from mineru_tui.pdf.page_range import parse_pages
from mineru_tui.pdf.pdfium import load, owned

RENDER_DPI = 200  # MinerU's DEFAULT_PDF_IMAGE_DPI
MAX_RENDER_EDGE = 3500  # MinerU's DEFAULT_MAX_RENDER_EDGE, in pixels
REOPEN_EVERY = 50  # pages walked before the file is opened afresh (PdfDocument.reopen)


class PageError(InputError):
    """One page cannot be read (rendered, or its text taken); the other pages can."""


def render_scale(size_pt: tuple[float, float], dpi: float = RENDER_DPI,
                 max_edge: int = MAX_RENDER_EDGE) -> float:
    """Pixels per point for a page of ``size_pt``: ``dpi``/72, lowered to fit ``max_edge``."""
    scale = dpi / 72
    longest = max(size_pt)
    if longest * scale > max_edge:
        scale = max_edge / longest
    return scale


class PdfPage:
    """One page of an open PDF. PDFium handles are made on first use and freed by
    :meth:`close` (a closed page reopens itself if used again).

    ``index`` is the 0-based page number in the file; ``number`` the 1-based one; ``raw``
    the ``pypdfium2.PdfPage`` when it is already loaded (the page probe's child loads it).
    """

    def __init__(self, doc: PdfDocument, index: int, raw=None):
        self.document = doc
        self.index = index
        self._page = raw
        self._textpage = None
        self._matrix = None  # display frame -> user space, see _display_matrix
        self.chars_cache = None  # the page's characters, kept by chars.page_chars until close

    @property
    def number(self) -> int:
        return self.index + 1

    # -- PDFium handles ------------------------------------------------------------------

    @property
    def raw(self):
        """The ``pypdfium2.PdfPage`` (loaded on demand)."""
        if self._page is None:
            refused = self.document.probe_page(self.index)
            if refused:
                raise PageError(f"page {self.number} cannot be loaded: {refused}")
            try:
                with owned():
                    self._page = self.document.raw[self.index]
            except Exception as err:  # pypdfium2 raises PdfiumError; anything else is damage too
                raise PageError(f"page {self.number} cannot be loaded ({_reason(err)})") from None
        return self._page

    def textpage(self):
        """The page's ``pypdfium2.PdfTextPage`` (made once, freed by :meth:`close`)."""
        if self._textpage is None:
            try:
                page = self.raw
                with owned():
                    self._textpage = page.get_textpage()
            except PageError:
                raise
            except Exception as err:
                raise PageError(f"page {self.number}: its text cannot be read "
                                f"({_reason(err)})") from None
        return self._textpage

    def close(self) -> None:
        """Free the page's PDFium handles and its cached characters."""
        self.chars_cache = None
        self.release()

    def release(self) -> None:
        """Free the PDFium handles (text page first, then the page), keeping the cached
        characters: a page still held by its reader fills its blocks without reading them
        again."""
        with owned():
            self._release()

    def _release(self) -> None:
        if self._textpage is not None:
            self._textpage.close()
            self._textpage = None
        if self._page is not None:
            self._page.close()
            self._page = None

    def __enter__(self) -> PdfPage:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- geometry ------------------------------------------------------------------------

    @property
    def size_pt(self) -> tuple[float, float]:
        """(width, height) in points as displayed, i.e. after the page's /Rotate."""
        page = self.raw
        with owned():
            w, h = page.get_size()
        if not (w > 0 and h > 0):
            raise PageError(f"page {self.number} has an empty page box ({w:g} x {h:g} pt)")
        return (w, h)

    @property
    def rotation(self) -> int:
        """The page's /Rotate: 0, 90, 180 or 270 (clockwise, as PDF defines it)."""
        return self.raw.get_rotation()

    def _display_matrix(self):
        """(origin, ex, ey): user-space point of the display frame's top-left corner and
        the user-space vectors of one display point along x (right) and y (down).

        Taken from PDFium's own device mapping (FPDF_DeviceToPage), so crop-box offsets and
        /Rotate are handled exactly as when rendering.
        """
        if self._matrix is None:
            import ctypes

            import pypdfium2.raw as pdfium_c

            w, h = self.size_pt
            k = 64  # device units per point: integer device coordinates stay precise
            sx, sy = max(1, round(w * k)), max(1, round(h * k))
            pts = []
            for dx, dy in ((0, 0), (sx, 0), (0, sy)):
                px, py = ctypes.c_double(), ctypes.c_double()
                if not pdfium_c.FPDF_DeviceToPage(self.raw, 0, 0, sx, sy, 0, dx, dy, px, py):
                    raise PageError(f"page {self.number}: its coordinates cannot be mapped")
                pts.append((px.value, py.value))
            (x0, y0), (x1, y1), (x2, y2) = pts
            # device [0, sx] spans the display width w exactly (likewise sy and h)
            ex = ((x1 - x0) / w, (y1 - y0) / w)
            ey = ((x2 - x0) / h, (y2 - y0) / h)
            self._matrix = ((x0, y0), ex, ey)
        return self._matrix

    def to_user(self, u: float, v: float) -> tuple[float, float]:
        """A display-frame point (points, origin top left) in PDF user space."""
        (x0, y0), (ax, ay), (bx, by) = self._display_matrix()
        return (x0 + u * ax + v * bx, y0 + u * ay + v * by)

    def to_display(self, x: float, y: float) -> tuple[float, float]:
        """A PDF user-space point in the display frame (points, origin top left)."""
        (x0, y0), (ax, ay), (bx, by) = self._display_matrix()
        det = ax * by - ay * bx
        dx, dy = x - x0, y - y0
        return ((dx * by - dy * bx) / det, (ax * dy - ay * dx) / det)

    def rect_to_display(self, left: float, bottom: float, right: float,
                        top: float) -> tuple[float, float, float, float]:
        """A user-space rectangle as (x0, y0, x1, y1) in the display frame."""
        corners = [self.to_display(x, y) for x in (left, right) for y in (bottom, top)]
        us, vs = [c[0] for c in corners], [c[1] for c in corners]
        return (min(us), min(vs), max(us), max(vs))

    # -- rendering -----------------------------------------------------------------------

    def render_scale(self, dpi: float = RENDER_DPI, max_edge: int = MAX_RENDER_EDGE) -> float:
        """The pixels-per-point :meth:`render` uses with these settings."""
        return render_scale(self.size_pt, dpi, max_edge)

    def render(self, dpi: float = RENDER_DPI, max_edge: int = MAX_RENDER_EDGE):
        """The page as an RGB ``PIL.Image`` at MinerU's settings (200 dpi, ≤ 3500 px edge).

        The PDFium bitmap is freed before returning; only the PIL image stays alive.
        Raises :class:`PageError` when the page cannot be rendered.
        """
        scale = self.render_scale(dpi, max_edge)
        page = self.raw  # loaded (and probed) before PDFium is held
        bitmap = None
        with owned():
            try:
                bitmap = page.render(scale=scale, may_draw_forms=False)
                return bitmap.to_pil().convert("RGB")  # a copy: the bitmap's buffer is freed
            except Exception as err:
                raise PageError(f"page {self.number} cannot be rendered ({_reason(err)})") from None
            finally:
                if bitmap is not None:
                    bitmap.close()


class PdfDocument:
    """An open PDF restricted to the selected pages. Use it as a context manager.

    ``len(doc)`` is the number of selected pages, ``doc.page_count_total`` the file's;
    ``doc.selected`` the 0-based indices; iterating yields :class:`PdfPage` objects in page
    order, releasing each one's PDFium handles when the next is taken, so a long document
    never holds more than one open page (and no bitmap: :meth:`PdfPage.render` returns a PIL
    image). A page kept by the caller reopens itself if used again.
    """

    def __init__(self, path: Path, raw, selected: list[int], password: str | None = None):
        self.path = path
        self.raw = raw  # pypdfium2.PdfDocument
        self.selected = selected
        self.page_count_total = len(raw)
        self.password = password
        self.probing = True  # False in the page probe's own child
        self._probe = None  # the child process that parses pages first (pdf/probe.py)
        self._reader = None  # (module, options): the probe's child reads pages too

    def probe(self):
        """The :class:`~.probe.PageProbe` that parses this document's pages first (its child
        starts with the first question), or None when pages are not probed."""
        if not self.probing:
            return None
        from mineru_tui.pdf import probe

        if not probe.enabled():
            return None
        if self._probe is None:
            reader, reading = self._reader or (probe.MODULE, None)
            self._probe = probe.PageProbe(self.path, self.password, reader=reader, reading=reading)
        return self._probe

    def read_in_probe(self, reader: str, reading: dict) -> None:
        """Let the page probe's child read pages whole (:meth:`.probe.PageProbe.read`): it
        runs ``python -m reader``, which tells it how, and is told ``reading``. Call before
        any page is loaded: one child serves the document."""
        self._reader = (reader, reading)

    def probe_page(self, index: int) -> str | None:
        """Why page ``index`` must not be loaded here (its parse died, or went over the
        memory, object or time limit in a child process), or None; see :mod:`.probe`."""
        probe = self.probe()
        return None if probe is None else probe.check(index)

    def __len__(self) -> int:
        return len(self.selected)

    def __getitem__(self, i: int) -> PdfPage:
        """The ``i``-th selected page (not the page with file index ``i``)."""
        return PdfPage(self, self.selected[i])

    def page(self, index: int) -> PdfPage:
        """The page with 0-based file index ``index`` (selected or not)."""
        if not 0 <= index < self.page_count_total:
            raise IndexError(index)
        return PdfPage(self, index)

    def __iter__(self) -> Iterator[PdfPage]:
        previous = None
        for n, index in enumerate(self.selected):
            if previous is not None:
                previous.release()
            if n and n % REOPEN_EVERY == 0:
                self.reopen()
            previous = PdfPage(self, index)
            yield previous
        if previous is not None:
            previous.release()

    def reopen(self) -> None:
        """Close and open the file again. PDFium keeps every object it parsed until its
        document is closed (fonts, resources: 0.2–0.3 MB a page of a long report), so a
        long walk through the pages opens the file afresh every ``REOPEN_EVERY`` pages and
        its memory stays that of a window of pages, not of the whole file."""
        with owned():
            fresh = load().PdfDocument(str(self.path.resolve()), password=self.password)
            self.raw.close()
            self.raw = fresh

    def close(self) -> None:
        if self._probe is not None:
            self._probe.close()
            self._probe = None
        with owned():
            self.raw.close()

    def __enter__(self) -> PdfDocument:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_pdf(path, pages: str | None = None, password: str | None = None) -> PdfDocument:
    """Open the PDF at ``path`` with the pages ``pages`` selects (``--pages`` syntax,
    1-based, e.g. ``"1-3,7"``; None = all).

    Every way a file can fail to open raises :class:`InputError` with one line: missing,
    not a PDF, damaged, truncated, encrypted (no or wrong password), no pages, bad
    ``pages``.
    """
    pdfium = load()
    pdfium_c = pdfium.raw

    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    pw = None if password is None else (password + "\x00").encode("utf-8")
    with owned():  # the error code belongs to this load: no other call in between
        handle = pdfium_c.FPDF_LoadDocument((str(path.resolve()) + "\x00").encode("utf-8"), pw)
        error = 0 if handle else pdfium_c.FPDF_GetLastError()
    if not handle:
        raise InputError(_open_failure(path, error, password))
    raw = pdfium.PdfDocument(handle)  # owns the handle from here on: close() frees it
    try:
        total = len(raw)
        if total < 1:
            raise InputError(f"{path.name}: the PDF has no pages")
        selected = parse_pages(pages, total)
    except BaseException:
        with owned():
            raw.close()
        raise
    return PdfDocument(path, raw, selected, password)


def _open_failure(path: Path, code: int, password: str | None) -> str:
    import pypdfium2.raw as pdfium_c

    name = path.name
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        if password is None:
            return f"{name}: the PDF is encrypted with a password; save an unprotected copy"
        return f"{name}: the PDF password is wrong"
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return f"{name}: the PDF uses an unsupported security handler"
    if code == pdfium_c.FPDF_ERR_FILE:
        return f"{name}: the file cannot be read"
    with open(path, "rb") as fh:
        head = fh.read(1024)
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 2048))
        tail = fh.read()
    if size == 0:
        return f"{name}: the file is empty"
    if b"%PDF-" not in head:
        return f"{name}: not a PDF (no %PDF header)"
    if b"%%EOF" not in tail:
        return f"{name}: the PDF is truncated (it ends before its %%EOF marker)"
    return f"{name}: the PDF is damaged and cannot be opened"


def _reason(err: Exception) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text.rstrip(".")
