"""ODF styles the reader needs: span looks, heading levels, list numbering.

Styles live in ``styles.xml`` (named and list styles) and in ``content.xml``'s
``office:automatic-styles``; a style may inherit from a parent
(``style:parent-style-name``). Only what changes the Markdown is read: bold, italic,
underline, strike, super/subscript, a paragraph style's outline level and its list style,
a list style's per-level bullet or number format.
"""

from __future__ import annotations

from dataclasses import dataclass

from mineru_tui.office.odf.names import FO, STYLE, TEXT, local, number

MAX_STYLE_CHAIN = 16  # parent links followed (a loop or a silly chain stops here)


@dataclass
class ListLevel:
    """One level of a list style: a bullet, or a number with prefix/suffix and start."""

    bullet: bool = True
    num_format: str = "1"
    prefix: str = ""
    suffix: str = "."
    start: int = 1
    display_levels: int = 1


@dataclass
class _Style:
    parent: str | None
    look: frozenset[str]
    unset: frozenset[str]
    outline: int | None
    list_style: str | None
    display_name: str


class Styles:
    """Every paragraph/text style and list style of the package, by name."""

    def __init__(self) -> None:
        self._styles: dict[tuple[str, str], _Style] = {}
        self.lists: dict[str, dict[int, ListLevel]] = {}
        self._look_cache: dict[tuple[str, str], frozenset[str]] = {}

    def load(self, root) -> None:
        """Read the styles under ``root`` (a ``styles.xml`` or ``content.xml`` root)."""
        if root is None:
            return
        for el in root.iter(STYLE + "style", STYLE + "default-style"):
            name = el.get(STYLE + "name") or ""
            family = el.get(STYLE + "family") or ""
            look, unset = _text_look(el)
            outline = el.get(STYLE + "default-outline-level")
            self._styles[(family, name)] = _Style(
                el.get(STYLE + "parent-style-name"), look, unset,
                number(outline),
                el.get(STYLE + "list-style-name"),
                el.get(STYLE + "display-name") or name)
        for el in root.iter(TEXT + "list-style", TEXT + "outline-style"):
            name = el.get(STYLE + "name") or ""
            levels: dict[int, ListLevel] = {}
            for lv in el:
                tag = local(lv)
                n = number(lv.get(TEXT + "level") or "1")
                if n is None:
                    continue
                if tag == "list-level-style-number" or tag == "outline-level-style":
                    fmt = lv.get(STYLE + "num-format")
                    start = number(lv.get(TEXT + "start-value"))
                    shown = number(lv.get(TEXT + "display-levels"))
                    levels[n] = ListLevel(False, fmt if fmt is not None else "1",
                                          lv.get(STYLE + "num-prefix") or "",
                                          lv.get(STYLE + "num-suffix") or "",
                                          1 if start is None else start,
                                          shown or 1)
                elif tag in ("list-level-style-bullet", "list-level-style-image"):
                    levels[n] = ListLevel(True)
            if local(el) == "outline-style":
                self.lists.setdefault("__outline__", levels)
            else:
                self.lists[name] = levels

    def _chain(self, family: str, name: str | None):
        seen = 0
        while name and seen < MAX_STYLE_CHAIN:
            st = self._styles.get((family, name))
            if st is None:
                return
            yield st
            name = st.parent
            seen += 1

    def look(self, family: str, name: str | None) -> frozenset[str]:
        """The styles (bold, italic...) a text or paragraph style gives its text."""
        if not name:
            return frozenset()
        key = (family, name)
        found = self._look_cache.get(key)
        if found is None:
            look: set[str] = set()
            decided: set[str] = set()
            for st in self._chain(family, name):
                look |= st.look - decided
                decided |= st.look | st.unset
            found = self._look_cache[key] = frozenset(look)
        return found

    def outline_level(self, name: str | None) -> int | None:
        """The outline level a paragraph style makes its paragraphs (a heading style)."""
        for st in self._chain("paragraph", name):
            if st.outline:
                return st.outline
        return None

    def display_name(self, family: str, name: str | None) -> str:
        for st in self._chain(family, name):
            return st.display_name
        return name or ""

    def is_named(self, family: str, name: str | None, *wanted: str) -> bool:
        """Whether the style or one of its parents is called one of ``wanted``."""
        for st in self._chain(family, name):
            if st.display_name in wanted:
                return True
        return False

    def paragraph_list_style(self, name: str | None) -> str | None:
        for st in self._chain("paragraph", name):
            if st.list_style:
                return st.list_style
        return None


def _text_look(el) -> tuple[frozenset[str], frozenset[str]]:
    """(styles set, styles explicitly switched off) by a style's text properties."""
    look: set[str] = set()
    unset: set[str] = set()
    for props in el.iter(STYLE + "text-properties"):
        weight = props.get(FO + "font-weight")
        if weight is not None:
            (look if weight in ("bold", "600", "700", "800", "900") else unset).add("bold")
        italic = props.get(FO + "font-style")
        if italic is not None:
            (look if italic in ("italic", "oblique") else unset).add("italic")
        under = props.get(STYLE + "text-underline-style")
        if under is not None:
            (look if under != "none" else unset).add("underline")
        strike = props.get(STYLE + "text-line-through-style")
        if strike is not None:
            (look if strike != "none" else unset).add("strike")
        display = props.get(TEXT + "display")
        if display is not None:  # hidden text (not a Markdown style: the reader drops it)
            (look if display == "none" else unset).add("hidden")
        pos = (props.get(STYLE + "text-position") or "").split()
        if pos:
            if pos[0] == "super" or (pos[0].endswith("%") and _pct(pos[0]) > 0):
                look.add("superscript")
            elif pos[0] == "sub" or (pos[0].endswith("%") and _pct(pos[0]) < 0):
                look.add("subscript")
            else:
                unset |= {"superscript", "subscript"}
    return frozenset(look), frozenset(unset)


def _pct(text: str) -> float:
    try:
        return float(text.rstrip("%"))
    except ValueError:
        return 0.0
