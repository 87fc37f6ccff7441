"""A JSON document written as a stream: one list of it item by item, the rest around it.

A long document's JSON files (``<stem>_middle.json``, the content list, ``_model.json``...)
hold one list that grows with the page count. :func:`json_chunks` gives the text of
``json.dumps(head with its list, indent=...)`` in pieces, each list item encoded when its
turn comes, so the whole text (and the whole list) is never in memory at once. The pieces
join to exactly the text ``json.dumps`` gives (``tests/document/test_json_stream.py``).

:func:`dumps` is ``json.dumps(value, ensure_ascii=False, indent=indent)``, the same text
made about three times faster: with an indent, Python's ``json`` encodes in Python through
a chain of generators (its C encoder has no indent before Python 3.13), and writing the
output set of a long PDF at ``--effort low`` spent a tenth of its time there (issue 30).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring  # json's own string encoder (C where built)

_MARK = "\x00mineru-tui items\x00"  # never in a document's own keys or text: JSON escapes NUL


class JsonList:
    """The text of ``json.dumps(doc, ensure_ascii=False, indent=indent)`` in pieces, where
    ``doc`` is ``head`` with ``head[key]`` a list (``head`` keeps the key's place), or the
    list itself when ``head`` is None: :meth:`item` gives the piece of each item in turn,
    :meth:`end` the closing piece (with everything after the list)."""

    def __init__(self, head: dict | None = None, key: str | None = None, *, indent: int = 2):
        self.indent = indent
        if head is None:
            self.before, self.after, depth = "", "", 0
        else:
            whole = self._dump({**head, key: _MARK})  # the key keeps its place in head's order
            self.before, self.after = whole.split(self._dump(_MARK))
            depth = 1
        self.pad = "\n" + " " * (indent * (depth + 1))
        self.close = "\n" + " " * (indent * depth) + "]"
        self.empty = True

    def _dump(self, value) -> str:
        return dumps(value, self.indent)

    def item(self, value) -> str:
        # encoded at the item's own indent: what dumps(value) gives with each newline
        # (all indentation: JSON strings hold none) followed by the list's indent
        out = [self.before + "[" + self.pad if self.empty else "," + self.pad]
        _encode(value, out, self.pad, " " * self.indent)
        self.empty = False
        return "".join(out)

    def end(self) -> str:
        return (self.before + "[]" if self.empty else self.close) + self.after


def json_chunks(items: Iterable, head: dict | None = None, key: str | None = None, *,
                indent: int = 2) -> Iterator[str]:
    """The pieces of :class:`JsonList` for ``items`` (consumed once, lazily)."""
    out = JsonList(head, key, indent=indent)
    for item in items:
        yield out.item(item)
    yield out.end()


def dumps(value, indent: int) -> str:
    """The text of ``json.dumps(value, ensure_ascii=False, indent=indent)`` (the same
    types, checks and errors, but no check for a list that holds itself)."""
    out: list[str] = []
    _encode(value, out, "\n", " " * indent)
    return "".join(out)


_INFINITY = float("inf")


def _float(f: float) -> str:
    if f != f:
        return "NaN"
    if f == _INFINITY:
        return "Infinity"
    if f == -_INFINITY:
        return "-Infinity"
    return float.__repr__(f)


_FLOAT_TEXTS: dict[float, str] = {}  # a document's boxes repeat few numbers: 77k floats, 4.6k values
_FLOAT_TEXTS_KEPT = 1 << 16


def _float_text(f: float) -> str:
    """The text of a float (an exact ``float``), remembered for the next time it comes: a
    dict lookup is a quarter of ``float.__repr__``. Zeros are not remembered (0.0 and -0.0
    are one key but two texts), nor NaN and the infinities (:func:`_float` writes them)."""
    text = _FLOAT_TEXTS.get(f)
    if text is None:
        if f - f != 0.0:  # NaN or an infinity
            return _float(f)
        text = float.__repr__(f)
        if f:
            if len(_FLOAT_TEXTS) >= _FLOAT_TEXTS_KEPT:
                _FLOAT_TEXTS.clear()
            _FLOAT_TEXTS[f] = text
    return text


def _scalar(o) -> str | None:
    """The text of a value that is not a list or dict (None for those), in the order of
    ``json``'s own checks: a ``str`` or ``int`` subclass is written as its base type."""
    if isinstance(o, str):
        return encode_basestring(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        return _float(o)
    if isinstance(o, (list, tuple, dict)):
        return None
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _key(k) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, float):
        return _float(k)
    if k is True:
        return "true"
    if k is False:
        return "false"
    if k is None:
        return "null"
    if isinstance(k, int):
        return int.__repr__(k)
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


def _encode(o, out: list[str], pad: str, step: str) -> None:
    """Append the text of ``o`` to ``out``; ``pad`` is a newline and the indent of its line.
    A list's or dict's members are told apart by their exact type first (a page's JSON is
    mostly strings, floats and ints: a bbox is four floats), each written with the text
    before it in one piece; anything else goes through :func:`_scalar`'s checks."""
    kind = type(o)
    if kind is str:  # the common types first, without the isinstance chain
        out.append(encode_basestring(o))
        return
    if kind is float:
        out.append(_float_text(o))
        return
    if kind is int:
        out.append(int.__repr__(o))
        return
    if kind is list or kind is tuple or (kind is not dict and isinstance(o, (list, tuple))):
        if not o:
            out.append("[]")
            return
        inner = pad + step
        before, comma = "[" + inner, "," + inner
        for v in o:
            _member(v, before, out, inner, step)
            before = comma
        out.append(pad + "]")
        return
    if kind is dict or isinstance(o, dict):
        if not o:
            out.append("{}")
            return
        inner = pad + step
        before, comma = "{" + inner, "," + inner
        for k, v in o.items():
            _member(v, before + encode_basestring(k if type(k) is str else _key(k)) + ": ",
                    out, inner, step)
            before = comma
        out.append(pad + "}")
        return
    out.append(_scalar(o))


def _member(v, before: str, out: list[str], pad: str, step: str) -> None:
    """Append ``before`` and the text of ``v``, a member of a list or dict at ``pad``."""
    kind = type(v)
    if kind is str:
        out.append(before + encode_basestring(v))
    elif kind is float:
        out.append(before + (_FLOAT_TEXTS.get(v) or _float_text(v)))
    elif kind is int:
        out.append(before + int.__repr__(v))
    elif kind is dict or kind is list:
        out.append(before)
        _encode(v, out, pad, step)
    else:
        text = _scalar(v)
        if text is None:
            out.append(before)
            _encode(v, out, pad, step)
        else:
            out.append(before + text)
