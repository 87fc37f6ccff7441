"""Page images for a viewer: rendered on request in one thread, the latest request first.

Holding a key that pages through a 300-page PDF asks for dozens of pages a second; each
render takes 0.05–0.5 s. :class:`Previews` keeps the document open in its own thread (one
open and one page probe for the whole file, not one per key), renders only the newest
request — requests that were not started when a newer one came are dropped, and their
callbacks never run — and keeps the last few images (``keep``) so paging back and forth
between neighbours costs nothing.

    previews = Previews(path, on_image=lambda index, image: ...)   # called in its thread
    previews.request(17)     # returns at once
    previews.close()
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from mineru_tui.pdf.reader import open_pdf


class Previews:
    """Renders pages of the PDF at ``path`` on request (see the module docstring).

    ``on_image(index, image)`` gets each rendered page (a PIL image, or None when the page
    cannot be rendered) in the previews' thread; ``max_edge`` is the image's longest side.
    """

    def __init__(self, path, on_image: Callable[[int, object], None], *, max_edge: int = 900,
                 keep: int = 5, dpi: float = 72):
        self.path = path
        self.on_image = on_image
        self.max_edge = max_edge
        self.dpi = dpi
        self.keep = keep
        self._cache: OrderedDict[int, object] = OrderedDict()
        self._wanted: int | None = None
        self._closed = False
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="page-previews", daemon=True)
        self._thread.start()

    def request(self, index: int) -> None:
        """Ask for page ``index`` (0-based); replaces any request not started yet."""
        with self._wake:
            self._wanted = index
            self._wake.notify()

    def close(self) -> None:
        """Stop the thread (after the render in progress, if any) and close the file."""
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._thread.join()

    def _next(self) -> int | None:
        with self._wake:
            while self._wanted is None and not self._closed:
                self._wake.wait()
            if self._closed:
                return None
            index, self._wanted = self._wanted, None
            return index

    def _run(self) -> None:
        doc = None
        try:
            while (index := self._next()) is not None:
                image = self._cache.get(index)
                if image is None:
                    if doc is None:
                        doc = self._open()
                    image = self._render(doc, index)
                    self._cache[index] = image
                    while len(self._cache) > self.keep:
                        self._cache.popitem(last=False)
                self._cache.move_to_end(index)
                self.on_image(index, image)
        except Exception:  # the file went away or cannot be opened: no images, no crash
            pass
        finally:
            if doc is not None:
                doc.close()

    def _open(self):
        """The document pages are rendered from (a subclass may read other sources)."""
        return open_pdf(self.path)

    def _render(self, doc, index: int):
        try:
            page = doc.page(index)
            try:
                return page.render(dpi=self.dpi, max_edge=self.max_edge)
            finally:
                page.close()
        except Exception:  # a page that will not render shows as paper
            return None
