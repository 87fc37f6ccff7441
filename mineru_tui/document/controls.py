"""The document as the Markdown and the content list see it: no control characters.

PDF text layers and model answers can carry what Office XML cannot: ESC, BEL, BS, DEL,
C1 controls (U+009B is CSI to many terminals), bidi overrides and isolates. Before the
Markdown or the content list is written, every text field of the document (span text
and LaTeX, ready table HTML, list markers, note labels, types and names) loses them by
:func:`mineru_tui.console.document_text`, the same character rule the terminal output
uses. Dropping them before escaping (not after) matters: a control between two backticks
removed after a code fence was chosen would join them into a longer run. The middle
JSON keeps the text as the document has it; its writer escapes these characters.
"""

from __future__ import annotations

import dataclasses
import operator
from enum import Enum

from mineru_tui.console import document_text
from mineru_tui.document.model import Block, Cell, Document, Line, Page, Span, Table
from mineru_tui.document.recent import Recent
from mineru_tui.document.stackless import Walk, drive

_MODEL = (Span, Line, Block, Cell, Table, Page)


_FIELDS: dict[type, tuple[str, ...]] = {c: tuple(f.name for f in dataclasses.fields(c))
                                         for c in _MODEL}  # each model class's fields
_PLAIN = {int, float, bool, type(None), frozenset}  # nothing to clean (styles are names)
_SIZED = (list, dict, str)


_DEEP = 100  # past this many nested calls the walk moves to its own stack


def _reader(kind: type, names: tuple[str, ...]):
    """(field names, a function giving all of an object's field values at once): one C call
    (operator.attrgetter) instead of a getattr per field; kept per class in _READERS."""
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        read = _READERS[kind] = (names, lambda value: (one(value),))
    else:
        read = _READERS[kind] = (names, operator.attrgetter(*names))
    return read


_READERS: dict[type, tuple] = {}
for _kind, _names in _FIELDS.items():
    _reader(_kind, _names)


def _all_plain(values: list) -> bool:
    """Whether a list holds plain values only (a bbox's numbers): nothing to walk."""
    return all(map(_PLAIN.__contains__, map(type, values)))


def _clean(value, depth: int = 0):
    """``value`` without control characters; the very object when it holds none (a big
    sheet's ten thousand cells are walked, not copied). Plain recursion (fast) down to
    ``_DEEP`` levels, below that on an explicit stack (:mod:`.stackless`): a table nested
    64 levels deep is ~1,000 objects deep."""
    kind = type(value)
    if kind is str:
        return document_text(value)
    if kind in _PLAIN:
        return value
    if depth > _DEEP:
        return drive(_cleaned(value))
    read = _READERS.get(kind)
    if read is None and isinstance(value, _MODEL):  # a subclass of a model class
        read = _reader(kind, tuple(f.name for f in dataclasses.fields(value)))
    if read is not None:
        names, fields = read
        changes = {}
        for name, old in zip(names, fields(value)):
            kind = type(old)
            if kind is str:  # the most common field: cleaned here, not through a call
                if old:
                    new = document_text(old)
                    if new != old:
                        changes[name] = new
                continue
            if kind in _PLAIN or (kind in _SIZED and not old) or (kind is list and _all_plain(old)):
                continue
            new = _clean(old, depth + 1)
            # a walked object comes back as itself when unchanged; only strings are compared
            # (comparing dataclasses would recurse through the whole subtree)
            if new is not old and (type(new) is not str or new != old):
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, Enum):  # a block type: fixed names
        _PLAIN.add(kind)
        return value
    if isinstance(value, str):
        return document_text(value)
    if isinstance(value, list):
        if _all_plain(value):
            return value
        out = [_clean(v, depth + 1) for v in value]
        return value if all(a is b for a, b in zip(out, value)) else out
    if isinstance(value, dict):  # a block's or page's extra keys (a code block's language)
        out_d = {k: _clean(v, depth + 1) for k, v in value.items()}
        return value if all(out_d[k] is v for k, v in value.items()) else out_d
    return value


def _cleaned(value) -> Walk:
    """The walk of :func:`_clean` for one value on the explicit stack: strings and plain
    values inline, every model object, list and dict as a sub-walk (``yield``)."""
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None and isinstance(value, _MODEL):  # a subclass of a model class
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        changes = {}
        for name in names:
            old = getattr(value, name)
            if type(old) in _PLAIN or (type(old) in _SIZED and not old):
                continue
            new = document_text(old) if type(old) is str else (yield _cleaned(old))
            # a walked object comes back as itself when unchanged; only strings are compared
            # (comparing dataclasses would recurse through the whole subtree)
            if new is not old and (type(new) is not str or new != old):
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if kind in _PLAIN:
        return value
    if isinstance(value, Enum):  # a block type: fixed names
        _PLAIN.add(kind)
        return value
    if isinstance(value, str):
        return document_text(value)
    if isinstance(value, list):
        out = []
        for v in value:
            kv = type(v)
            out.append(document_text(v) if kv is str else v if kv in _PLAIN else (yield _cleaned(v)))
        return value if all(a is b for a, b in zip(out, value)) else out
    if isinstance(value, dict):  # a block's or page's extra keys (a code block's language)
        out_d = {}
        for k, v in value.items():
            out_d[k] = document_text(v) if type(v) is str else (yield _cleaned(v))
        return value if all(out_d[k] is v for k, v in value.items()) else out_d
    return value


_SCALARS = (int, float, bool)  # (None is never pushed: filter(None, ...) drops it)
_MODEL_CLASSES = frozenset(_MODEL)


def _may_hold_controls(page) -> bool:
    """False when no string anywhere in ``page`` holds a character :func:`_clean` drops:
    then the page is its own clean copy. One pass over its objects that collects their
    strings, and one search of them all; a type it does not know (a subclass, another
    object) says True (``_clean`` decides). A third of ``_clean``'s cost on a page of text,
    which almost never holds a control."""
    strings: list[str] = []
    keep = strings.append
    stack = [page]
    pop, push = stack.pop, stack.extend
    while stack:
        value = pop()
        kind = type(value)
        if kind is list:
            push(filter(None, value))  # None, 0, "" and empty containers hold no text
        elif kind is str:
            keep(value)
        elif kind in _SCALARS:
            pass
        elif kind in _MODEL_CLASSES:  # a model class itself, not a subclass
            push(filter(None, value.__dict__.values()))
        elif kind is dict:
            push(filter(None, value.values()))
        elif kind is tuple or kind is frozenset:
            push(value)
        else:
            return True
    text = " ".join(strings)
    return document_text(text) != text


def _clean_page(page):
    """:func:`_clean` of a page, the page itself at once when it holds no control."""
    return _clean(page) if _may_hold_controls(page) else page


def without_controls(doc: Document) -> Document:
    """``doc`` as its text holds no control, DEL, C1 or bidi-override character: a copy
    where something was dropped, the parts that hold none shared (readers only read it)."""
    return dataclasses.replace(doc, pages=[_clean_page(p) for p in doc.pages])


def page_without_controls(page: Page) -> Page:
    """One page as :func:`without_controls` gives it (a writer going page by page)."""
    return _clean_page(page)


class SharedCleaning:
    """:func:`page_without_controls` for writers that go through the same pages side by side
    (``output._side_by_side``): a page object asked for again is cleaned once, not once per
    writer (the Markdown, the content list and MinerU 4's middle JSON each need it). Pages
    are known by identity, the last ``keep`` remembered (:class:`.recent.Recent`; side by
    side, the writers are at most a page apart, so two would do); make one per write, over
    pages nothing changes while it lasts."""

    def __init__(self, keep: int = 2):
        self._cleaned = Recent(keep)

    def __call__(self, page: Page) -> Page:
        return self._cleaned.get(page, _clean_page)
