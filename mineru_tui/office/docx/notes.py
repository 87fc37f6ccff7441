"""footnotes.xml and endnotes.xml: note bodies by id, and labels in reference order.

Footnote and endnote ids are separate number spaces in OOXML, so each reference gets a
fresh label ("1", "2"...) in reading order, shared by both kinds (as pandoc numbers them).
"""

from __future__ import annotations

from mineru_tui.office.docx.wml import w

_SKIP_TYPES = ("separator", "continuationSeparator", "continuationNotice")


class Notes:
    """Both notes parts, and the references the body made to them."""

    def __init__(self):
        self.parts: dict[str, object] = {}  # kind -> PartRef
        self.bodies: dict[str, dict[str, object]] = {"footnote": {}, "endnote": {}}
        self.refs: list[tuple[str, str, str]] = []  # (kind, id, label) in reading order
        self._labels: dict[tuple[str, str], str] = {}

    def load(self, kind: str, part, root) -> None:
        """Index the ``w:footnote`` / ``w:endnote`` elements of one notes part."""
        self.parts[kind] = part
        table = self.bodies[kind]
        for el in root.iter(w(kind)):
            if el.get(w("type")) in _SKIP_TYPES:
                continue
            nid = el.get(w("id"))
            if nid is not None:
                table[nid] = el

    def ref(self, kind: str, nid: str) -> str:
        """The label for a reference to note ``nid`` of ``kind`` (the same note, the same label)."""
        key = (kind, nid)
        label = self._labels.get(key)
        if label is None:
            label = str(len(self._labels) + 1)
            self._labels[key] = label
            self.refs.append((kind, nid, label))
        return label
