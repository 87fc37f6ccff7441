"""numbering.xml: list definitions, and the counters that turn them into markers.

A paragraph's ``numPr`` names a ``w:num`` (numId) and a level (ilvl). The num points at
an ``w:abstractNum`` whose levels give the format (decimal, lowerLetter, bullet...),
the level text ("%1.%2.") and the start value; the num may override levels or restart
them. Word keeps one set of counters per abstract list, so two nums sharing an abstract
continue each other unless one restarts (``startOverride``).
"""

from __future__ import annotations

from dataclasses import dataclass
import re

from mineru_tui.office.numfmt import roman
from mineru_tui.office.docx.wml import int_val, on_off, val, w

_PLACEHOLDER = re.compile(r"%([1-9])")
_MAX_LEVEL = 9


@dataclass(frozen=True)
class Level:
    """One list level: ``fmt`` is the OOXML numFmt, ``text`` the lvlText template."""

    fmt: str = "decimal"
    text: str = "%1."
    start: int = 1
    legal: bool = False  # isLgl: show every level as decimal

    @property
    def bullet(self) -> bool:
        return self.fmt == "bullet"


_DEFAULT = Level()


def _read_level(el) -> Level:
    fmt = val(el.find(w("numFmt"))) or "decimal"
    text_el = el.find(w("lvlText"))
    text = val(text_el) if text_el is not None else None
    if text is None:
        text = "" if fmt in ("bullet", "none") else "%1."
    start = int_val(el.find(w("start")), 1)
    legal_el = el.find(w("isLgl"))
    return Level(fmt, text, start if start is not None and start >= 0 else 1,
                 legal_el is not None and on_off(legal_el))


@dataclass
class _Num:
    abstract_id: str
    overrides: dict  # ilvl -> (start override or None, Level or None)


class Numbering:
    """The numbering part, read once."""

    def __init__(self, root=None, styles=None):
        self.abstract: dict[str, dict[int, Level]] = {}
        self.style_links: dict[str, str] = {}  # abstractNum id -> numbering style id
        self.nums: dict[str, _Num] = {}
        self._styles = styles
        if root is not None:
            self._read(root)

    def _read(self, root) -> None:
        for an in root.iter(w("abstractNum")):
            aid = an.get(w("abstractNumId"))
            if aid is None:
                continue
            levels = {}
            for lvl in an.iter(w("lvl")):
                ilvl = int_val(lvl, 0, w("ilvl"))
                if ilvl is not None and 0 <= ilvl < _MAX_LEVEL:
                    levels[ilvl] = _read_level(lvl)
            self.abstract[aid] = levels
            link = val(an.find(w("numStyleLink")))
            if link:
                self.style_links[aid] = link
        for num in root.iter(w("num")):
            nid = num.get(w("numId"))
            aid = val(num.find(w("abstractNumId")))
            if nid is None or aid is None:
                continue
            overrides = {}
            for ov in num.iter(w("lvlOverride")):
                ilvl = int_val(ov, 0, w("ilvl"))
                if ilvl is None or not 0 <= ilvl < _MAX_LEVEL:
                    continue
                start = int_val(ov.find(w("startOverride")))
                lvl = ov.find(w("lvl"))
                overrides[ilvl] = (start, _read_level(lvl) if lvl is not None else None)
            self.nums[nid] = _Num(aid, overrides)

    def resolve(self, num_id: str) -> tuple[str, dict[int, Level], dict] | None:
        """``(abstract id, levels, overrides)`` for a numId, following numStyleLink."""
        num = self.nums.get(num_id)
        if num is None:
            return None
        aid = num.abstract_id
        for _ in range(4):  # numStyleLink -> style -> num -> abstract (bounded)
            link = self.style_links.get(aid)
            if not link or self._styles is None:
                break
            target = self._styles.style_for_numbering(link)
            linked = self.nums.get(target[0]) if target else None
            if linked is None or linked.abstract_id == aid:
                break
            aid = linked.abstract_id
        return aid, self.abstract.get(aid, {}), num.overrides


@dataclass(frozen=True)
class ListLabel:
    """What a numbered paragraph shows: its marker and which list it belongs to."""

    marker: str  # "1.", "a)", "1.2.", or "-" for bullets
    list_id: str  # the abstract list, to tell adjacent lists apart
    bullet: bool
    visible: bool  # False for numFmt "none" with no text


class ListCounter:
    """Level counters across the document body, in reading order."""

    def __init__(self, numbering: Numbering):
        self.numbering = numbering
        self.counts: dict[str, dict[int, int]] = {}
        self._started: set[str] = set()

    def next(self, num_id: str, ilvl: int) -> ListLabel:
        """Count one paragraph of list ``num_id`` at level ``ilvl`` and label it."""
        ilvl = max(0, min(ilvl, _MAX_LEVEL - 1))
        resolved = self.numbering.resolve(num_id)
        if resolved is None:  # numbering part missing or broken: still a list
            return ListLabel("-", f"num:{num_id}", True, True)
        aid, levels, overrides = resolved

        def level(i: int) -> Level:
            ov = overrides.get(i)
            if ov and ov[1] is not None:
                return ov[1]
            return levels.get(i) or _DEFAULT

        counts = self.counts.setdefault(aid, {})
        if num_id not in self._started:
            self._started.add(num_id)
            for i, (start, _) in overrides.items():
                if start is not None:
                    counts[i] = start - 1
                    for deeper in [k for k in counts if k > i]:
                        del counts[deeper]
        lvl = level(ilvl)
        counts[ilvl] = counts.get(ilvl, lvl.start - 1) + 1
        for deeper in [k for k in counts if k > ilvl]:
            del counts[deeper]
        if lvl.bullet:
            return ListLabel("-", aid, True, True)

        def number(match: re.Match) -> str:
            i = int(match.group(1)) - 1
            li = level(i)
            n = counts.get(i, li.start)
            return format_number(n, "decimal" if (lvl.legal and i != ilvl) or li.legal else li.fmt)

        marker = _PLACEHOLDER.sub(number, lvl.text).strip()
        if lvl.fmt == "none" or not marker:
            return ListLabel(marker or "-", aid, False, bool(marker))
        return ListLabel(marker, aid, False, True)


def _letters(n: int) -> str:
    # Word repeats the letter: a..z, aa..zz, aaa...
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def format_number(n: int, fmt: str) -> str:
    """A counter value in an OOXML number format (unknown formats fall back to decimal)."""
    if fmt == "lowerLetter":
        return _letters(n)
    if fmt == "upperLetter":
        return _letters(n).upper()
    if fmt == "lowerRoman":
        return roman(n)
    if fmt == "upperRoman":
        return roman(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt in ("none", "bullet"):
        return ""
    return str(n)
