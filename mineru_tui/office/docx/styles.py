"""styles.xml: paragraph and character styles as plain data, with inheritance resolved.

The body reader asks three things of a style: its heading level (outline level, or a
"heading N" / "Title" name anywhere up its ``basedOn`` chain), the run formatting it
implies (bold, italic...), and the list numbering it carries (``pPr/numPr``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mineru_tui.office.docx.wml import W_VAL, int_val, on_off, val, w

_HEADING_NAME = re.compile(r"^heading\s*(\d)$")
_MAX_CHAIN = 24  # basedOn chains are short; this bounds cycles in hostile files


@dataclass(frozen=True)
class Style:
    """One ``w:style`` as read, before inheritance."""

    id: str
    name: str = ""
    type: str = "paragraph"
    based_on: str | None = None
    outline_level: int | None = None  # 0-based; 9 means "body text"
    run: dict = field(default_factory=dict)  # property -> bool, only those this style sets
    num_id: str | None = None
    ilvl: int | None = None


def parse_rpr(rpr) -> dict:
    """Run properties that map to span styles: ``{"bold": True, "italic": False, ...}``."""
    props: dict = {}
    if rpr is None:
        return props
    for child in rpr:
        tag = child.tag
        if tag == _B:
            props["bold"] = on_off(child)
        elif tag == _I:
            props["italic"] = on_off(child)
        elif tag == _U:
            props["underline"] = (child.get(W_VAL) or "single").lower() != "none"
        elif tag == _STRIKE or tag == _DSTRIKE:
            props["strike"] = on_off(child)
        elif tag == _VERT:
            v = (child.get(W_VAL) or "").lower()
            props["superscript"] = v == "superscript"
            props["subscript"] = v == "subscript"
    return props


_B, _I, _U, _STRIKE, _DSTRIKE, _VERT = (w(t) for t in ("b", "i", "u", "strike", "dstrike", "vertAlign"))


class Styles:
    """The styles part, looked up by style id; every resolution is cached."""

    def __init__(self, root=None):
        self.by_id: dict[str, Style] = {}
        self.default_paragraph: str | None = None
        self._level: dict = {}
        self._run: dict = {}
        self._num: dict = {}
        self._flags: dict = {}
        if root is not None:
            self._read(root)

    def _read(self, root) -> None:
        for el in root.iter(w("style")):
            sid = el.get(w("styleId"))
            if not sid:
                continue
            stype = el.get(w("type")) or "paragraph"
            ppr = el.find(w("pPr"))
            outline = num_id = ilvl = None
            if ppr is not None:
                outline = int_val(ppr.find(w("outlineLvl")))
                numpr = ppr.find(w("numPr"))
                if numpr is not None:
                    num_id = val(numpr.find(w("numId")))
                    ilvl = int_val(numpr.find(w("ilvl")))
            style = Style(sid, (val(el.find(w("name"))) or "").strip().lower(), stype,
                          val(el.find(w("basedOn"))), outline, parse_rpr(el.find(w("rPr"))),
                          num_id, ilvl)
            self.by_id[sid] = style
            if stype == "paragraph" and on_off_attr(el.get(w("default"))):
                self.default_paragraph = sid

    def chain(self, style_id: str | None) -> list[Style]:
        """The style and its ancestors, nearest first."""
        out: list[Style] = []
        seen = set()
        while style_id and style_id not in seen and len(out) < _MAX_CHAIN:
            seen.add(style_id)
            style = self.by_id.get(style_id)
            if style is None:
                break
            out.append(style)
            style_id = style.based_on
        return out

    def name(self, style_id: str | None) -> str:
        style = self.by_id.get(style_id) if style_id else None
        return style.name if style else ""

    def heading_level(self, style_id: str | None) -> int | None:
        """1-based heading level a paragraph style implies, or None for body text."""
        if style_id in self._level:
            return self._level[style_id]
        level = None
        chain = self.chain(style_id)
        if not chain and style_id:  # styles part missing or broken: trust the id
            m = _HEADING_NAME.match(style_id.lower())
            level = int(m.group(1)) or 1 if m else (1 if style_id.lower() == "title" else None)
        for style in chain:
            if style.outline_level is not None:
                level = style.outline_level + 1 if 0 <= style.outline_level < 9 else None
                break
            m = _HEADING_NAME.match(style.name)
            if m:
                level = int(m.group(1)) or 1
                break
            if style.name == "title":
                level = 1
                break
        self._level[style_id] = level
        return level

    def run_props(self, style_id: str | None) -> dict:
        """Run formatting a (paragraph or character) style implies, inheritance applied."""
        if style_id in self._run:
            return self._run[style_id]
        props: dict = {}
        for style in reversed(self.chain(style_id)):
            props.update(style.run)
        self._run[style_id] = props
        return props

    def numbering(self, style_id: str | None) -> tuple[str, int] | None:
        """``(numId, ilvl)`` a paragraph style carries, if any."""
        if style_id in self._num:
            return self._num[style_id]
        found = None
        ilvl = None
        for style in self.chain(style_id):
            if ilvl is None and style.ilvl is not None:
                ilvl = style.ilvl
            if style.num_id is not None:
                found = (style.num_id, ilvl if ilvl is not None else (style.ilvl or 0))
                break
        self._num[style_id] = found
        return found

    def is_caption(self, style_id: str | None) -> bool:
        """True for "Caption" and styles based on it ("Image Caption", "Table Caption"...)."""
        key = ("caption", style_id)
        if key not in self._flags:
            chain = self.chain(style_id)
            self._flags[key] = (any(s.name.endswith("caption") for s in chain) if chain
                                else bool(style_id) and style_id.lower().endswith("caption"))
        return self._flags[key]

    def is_code(self, style_id: str | None) -> bool:
        """True for code styles: "Source Code", "HTML Preformatted", "Verbatim Char", "HTML Code"."""
        key = ("code", style_id)
        if key not in self._flags:
            self._flags[key] = any(
                ("code" in s.name and "barcode" not in s.name) or "verbatim" in s.name
                or s.name in ("html preformatted", "plain text code", "macro text")
                for s in self.chain(style_id))
        return self._flags[key]

    def is_title(self, style_id: str | None) -> bool:
        """True when the style (or one it is based on) is Word's "Title"."""
        return any(s.name == "title" for s in self.chain(style_id))

    def style_for_numbering(self, style_id: str) -> tuple[str, int] | None:
        """For ``w:numStyleLink``: the numbering a numbering style points at."""
        style = self.by_id.get(style_id)
        if style is None or style.num_id is None:
            return None
        return style.num_id, style.ilvl or 0


def on_off_attr(v: str | None) -> bool:
    return v is not None and v.strip().lower() in ("1", "true", "on")
