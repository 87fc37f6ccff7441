"""A document's pages kept on disk, one loaded when it is needed.

A page read from a 1,000-page PDF is finished long before the file is; keeping every page's
blocks in memory made the page reader grow with the page count. :class:`PageStore` is the
sequence ``Document.pages`` is for the page reader: each page is written to a file as it is
added (:func:`dump_page`, the one serialised form of a page, also the one the per-file
journal keeps) and read back (:func:`load_page`) when asked for; only the last few pages
asked for stay in memory. A page taken from the store is a copy: change it and put it back
(``store[i] = page``) for the change to stay.

The form is Python's pickle. The store's own file (in a private folder this process made) is
read back as it was written; anything else (the journal, in the output folder) is read with an
unpickler that makes nothing but the document model's own classes and plain containers, so a
file someone else wrote cannot run code.
"""

from __future__ import annotations

import dataclasses
import io
import os
import pickle
import tempfile
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from mineru_tui.document import model

CACHED = 4  # pages kept in memory (the writers go through the pages side by side)
_MODEL_CLASSES = {name: getattr(model, name) for name in ("Page", "Block", "Line", "Span", "Table", "Cell")}
_BUILTINS = {"frozenset": frozenset, "set": set, "tuple": tuple, "list": list, "dict": dict}


class _ModelUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module == model.__name__ and name in _MODEL_CLASSES:
            return _MODEL_CLASSES[name]
        if module == "builtins" and name in _BUILTINS:
            return _BUILTINS[name]
        raise pickle.UnpicklingError(f"not a page: {module}.{name}")


def dump_page(page: model.Page) -> bytes:
    """A page as bytes (:func:`load_page` gives an equal page back; its block lists as
    plain lists)."""
    if type(page.para_blocks) is not list or type(page.discarded_blocks) is not list:
        page = dataclasses.replace(page, para_blocks=list(page.para_blocks),
                                   discarded_blocks=list(page.discarded_blocks))
    return pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)


def load_plain(data: bytes):
    """What ``pickle`` made ``data`` from, when it is plain data: containers, text, numbers
    and the document model's classes (raises ``pickle.UnpicklingError`` on anything else, so
    bytes someone else made cannot run code)."""
    return _ModelUnpickler(io.BytesIO(data)).load()


def load_page(data: bytes, *, ours: bool = False) -> model.Page:
    """The page :func:`dump_page` gave ``data`` for (raises ``pickle.UnpicklingError`` on
    anything that is not a page of the document model). ``ours``: the bytes come from a
    file only this process wrote (any value a page holds comes back)."""
    page = pickle.loads(data) if ours else load_plain(data)
    if not isinstance(page, model.Page):
        raise pickle.UnpicklingError("not a page")
    return page


class PageStore(Sequence):
    """``Document.pages`` on disk: append pages (or their :func:`dump_page` bytes), index
    and iterate them as a list. The file is in ``folder`` (a private temporary folder when
    None) and goes when the store is closed or collected."""

    def __init__(self, folder: str | Path | None = None):
        fd, name = tempfile.mkstemp(prefix="pages-", dir=folder)
        self._file = os.fdopen(fd, "w+b")
        self._where: list[tuple[int, int]] = []  # (offset, length) of each page's bytes
        self._heads: list[tuple[int, dict]] = []  # (page_idx, extra) of each page: small
        self._theirs: set[int] = set()  # pages whose bytes another process made
        self._amends: dict[int, list] = {}  # blocks given back to a page when it is read
        self._redos: dict[int, Callable] = {}  # a change made again to a page when it is read
        self._cache: OrderedDict[int, model.Page] = OrderedDict()
        self._cleanup = weakref.finalize(self, _remove, self._file, name)

    def append(self, page: model.Page, data: bytes | None = None) -> None:
        """Add ``page`` (``data``: its :func:`dump_page` bytes, when already made)."""
        self._where.append(self._write(dump_page(page) if data is None else data))
        self._heads.append((page.page_idx, page.extra))

    def append_form(self, data: bytes, page_idx: int, extra: dict) -> None:
        """Add a page by its :func:`dump_page` bytes alone, as another process made them
        (the page probe's child), with its ``page_idx`` and ``extra``: it is not unpickled
        now, and when it is, only the document model comes back (:func:`load_page`)."""
        self._theirs.add(len(self._where))
        self._where.append(self._write(data))
        self._heads.append((page_idx, extra))

    def __setitem__(self, index: int, page: model.Page) -> None:
        index = range(len(self._where))[index]
        self._where[index] = self._write(dump_page(page))
        self._heads[index] = (page.page_idx, page.extra)
        self._theirs.discard(index)
        self._redos.pop(index, None)  # the page written holds the change
        self._cache.pop(index, None)

    def heads(self) -> list[tuple[int, dict]]:
        """(page_idx, extra) of every page, without reading any page."""
        return list(self._heads)

    def amend(self, index: int, blocks: list[tuple[int, model.Block]]) -> None:
        """Give page ``index`` these para blocks (position, block) whenever it is read (a
        pass over every page changed them after the page went to disk: heading levels)."""
        self._amends[index] = list(blocks)
        self._cache.pop(index, None)

    def redo(self, index: int, change: Callable[[model.Page], object]) -> None:
        """Make ``change`` (a function of the page, the same each time) to page ``index``
        whenever it is read, before its :meth:`amend` blocks, instead of writing the changed
        page again (a pass over every page moved its running furniture: writing the page
        back cost more than moving it again). Putting the page back (``store[i] = page``)
        ends it: that page holds the change."""
        self._redos[index] = change
        self._cache.pop(index, None)

    def _write(self, data: bytes) -> tuple[int, int]:
        f = self._file
        offset = f.seek(0, os.SEEK_END)
        f.write(data)
        return offset, len(data)

    def __len__(self) -> int:
        return len(self._where)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(len(self._where))[index]]
        index = range(len(self._where))[index]
        page = self._cache.get(index)
        if page is not None:
            self._cache.move_to_end(index)
            return page
        offset, length = self._where[index]
        self._file.seek(offset)
        page = load_page(self._file.read(length), ours=index not in self._theirs)
        change = self._redos.get(index)
        if change is not None:
            change(page)
        for position, block in self._amends.get(index, ()):
            page.para_blocks[position] = block
        self._cache[index] = page
        if len(self._cache) > CACHED:
            self._cache.popitem(last=False)
        return page

    def __iter__(self) -> Iterator[model.Page]:
        for i in range(len(self._where)):
            yield self[i]

    def close(self) -> None:
        """Remove the file now."""
        self._cache.clear()
        self._cleanup()


def _remove(f, name: str) -> None:
    f.close()
    try:
        os.unlink(name)
    except OSError:
        pass
