"""A JSON document written as a stream: one list of it item by item, the rest around it.

A long document's JSON files (``<stem>_middle.json``, the content list, ``_model.json``...)
hold one list that grows with the page count. :func:`json_chunks` gives the text of
``json.dumps(head with its list, indent=...)`` in pieces, each list item encoded when its
turn comes, so the whole text (and the whole list) is never in memory at once. The pieces
join to exactly the text ``json.dumps`` gives (``tests/document/test_json_stream.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

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
        return json.dumps(value, ensure_ascii=False, indent=self.indent)

    def item(self, value) -> str:
        # JSON strings hold no raw newline: every newline of an item is indentation
        piece = (self.before + "[" if self.empty else ",") + self.pad + self._dump(value).replace("\n", self.pad)
        self.empty = False
        return piece

    def end(self) -> str:
        return (self.before + "[]" if self.empty else self.close) + self.after


def json_chunks(items: Iterable, head: dict | None = None, key: str | None = None, *,
                indent: int = 2) -> Iterator[str]:
    """The pieces of :class:`JsonList` for ``items`` (consumed once, lazily)."""
    out = JsonList(head, key, indent=indent)
    for item in items:
        yield out.item(item)
    yield out.end()
