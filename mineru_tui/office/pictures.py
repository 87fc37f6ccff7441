"""One intake for a document's pictures: each stored once, by what it is, within the caps.

A document names its pictures in many spellings — ``p.png``, ``./p.png``, ``a/../p.png``
in an EPUB, ``Pictures/A.png`` and ``pictures/a.png`` in an ODF package, ``cid:pic`` and
``cid:<pic>`` in a web archive — and a reader that caches by spelling reads and stores one
16 MiB picture once per spelling (2.8 GB from one small file). So a reader first resolves
a reference to its *identity* (the package member, the part, the file, or the ``data:``
URI itself) and hands that to :meth:`Pictures.take`, which reads each identity at most
once, caps each picture (:data:`~mineru_tui.office.limits.MAX_PICTURE_BYTES`) and the
document's pictures together (:data:`~mineru_tui.office.limits.MAX_PICTURES_BYTES`), and
says so with a ``content cut:`` warning (shown without ``-v``) whenever a picture is left
out for its size or the total.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable

from mineru_tui.detect import DEFAULT_LIMITS, image_ext
from mineru_tui.document import Document
from mineru_tui.errors import cut_warning
from mineru_tui.office.limits import MAX_PICTURE_BYTES, MAX_PICTURES_BYTES


# A package's pictures together: what its zip may declare in all (1 GiB), so the cap is
# the zip limit's; web pages, archives and books have MAX_PICTURES_BYTES.
MAX_PACKAGE_PICTURES = DEFAULT_LIMITS.max_total


class PictureDropped(Exception):
    """A picture left out for a reason the user should see (its size); the message says
    which and why, in a few words."""


def data_identity(src: str) -> tuple[str, bytes]:
    """The identity of a ``data:`` URI: its digest (the same URI twice is one picture)."""
    return ("data", hashlib.sha1(src.encode("utf-8", "surrogatepass")).digest())


def too_large(label: str, size: int, limit: int = MAX_PICTURE_BYTES) -> PictureDropped:
    return PictureDropped(f"the picture {label} is larger than {limit >> 20} MiB "
                          f"({size / (1 << 20):.1f} MiB)")


class Pictures:
    """A document's picture intake (one per document, shared by all its parts)."""

    def __init__(self, doc: Document, total: int = MAX_PICTURES_BYTES,
                 each: int = MAX_PICTURE_BYTES):
        self.doc = doc
        self.total = total
        self.each = each
        self.spent = 0
        self.names: dict[Hashable, str | None] = {}
        self._full = False

    def take(self, identity: Hashable, read: Callable[[], tuple[bytes, str | None] | None],
             label: str, size: int | None = None) -> str | None:
        """The name under which the picture ``identity`` is stored in the document, read by
        ``read()`` (its bytes and extension, the extension sniffed when None) the first time
        only; None when it cannot be had. ``size``, when known before reading, is checked
        against the caps first. ``read`` may raise :class:`PictureDropped`."""
        if identity in self.names:
            return self.names[identity]
        name = self.names[identity] = self._take(read, label, size)
        return name

    def take_member(self, pkg, name: str, ext: str, label: str) -> str | None:
        """:meth:`take` for a package member: its identity is the member's stored name,
        its declared size is checked before it is read. A member that cannot be read
        raises :class:`~mineru_tui.office.package.PartError` (the caller says so)."""
        stored = pkg.member(name)
        if stored is None:
            return None
        return self.take(("member", stored), lambda: (pkg.blob(name), ext), label,
                         size=pkg.size(name))

    def take_data(self, data: bytes, ext: str | None, label: str) -> str | None:
        """:meth:`take` for a picture already in hand (a binary format's record): its
        identity is its digest, so the same picture placed twice is stored once."""
        return self.take(("data", hashlib.sha1(data).digest()), lambda: (data, ext), label)

    def _take(self, read, label: str, size: int | None) -> str | None:
        try:
            if size is not None and size > self.each:
                raise too_large(label, size, self.each)
            if self._over(size or 0):
                return None
            found = read()
            if not found or not found[0]:
                return None
            data, ext = found
            if len(data) > self.each:
                raise too_large(label, len(data), self.each)
        except PictureDropped as why:
            self.doc.warnings.append(cut_warning(f"{why}; it is left out"))
            return None
        ext = ext or image_ext(data)
        if ext is None or self._over(len(data)):
            return None
        self.spent += len(data)
        return self.doc.add_image(data, ext) or None

    def _over(self, size: int) -> bool:
        """Whether ``size`` more bytes would pass the document's total (warned once)."""
        if self.spent + size <= self.total:
            return False
        if not self._full:
            self._full = True
            self.doc.warnings.append(cut_warning(
                f"the document's pictures add up to more than {self.total >> 20} MiB; "
                "the rest are left out"))
        return True
