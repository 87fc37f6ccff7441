"""Right-to-left text drawn on a page, put back into logical (reading) order.

A PDF draws glyphs where they go on the page: an Arabic or Hebrew line is, left to right,
its last word first. Reading it back needs the Unicode Bidirectional Algorithm (UAX #9) run
backwards: the levels it gives a line's characters do not change when the line is reordered
(its reordering rule L2 undoes itself for the levels 0-2 that text without explicit
embeddings has), so applying the algorithm to the visual order gives the logical order —
read from the right end of a right-to-left line, so that the rules that look back from a
number to the letter before it see the letters that come before it in reading.

This is the algorithm's implicit part for one line (rules W1-W7, N1-N2, I1-I2, L1-L2 and
mirrored brackets), over ``unicodedata.bidirectional``. Explicit embeddings, overrides and
isolates do not occur in glyphs on a page. python-bidi (LGPL-3.0) implements the whole
algorithm but only turns a string into a string; the line reader needs the permutation
itself, to carry each glyph's box, script (``<sup>``) and spacing along with it.
"""

from __future__ import annotations

import unicodedata

_STRONG = {"L", "R", "AL"}
_NEUTRAL = {"B", "S", "WS", "ON", "BN", "LRI", "RLI", "FSI", "PDI", "LRE", "RLE", "LRO",
            "RLO", "PDF", "ES", "ET", "CS"}
# Bidi_Mirroring_Glyph for the pairs that occur in running text.
MIRROR = dict(zip("()[]{}<>\u00ab\u00bb\u2039\u203a\u2018\u2019\u201c\u201d",
                  ")(][}{><\u00bb\u00ab\u203a\u2039\u2018\u2019\u201c\u201d"))
for _a, _b in (("\u2018", "\u2019"), ("\u201c", "\u201d")):  # quotes are not mirrored
    MIRROR.pop(_a), MIRROR.pop(_b)


def bidi_class(ch: str) -> str:
    return unicodedata.bidirectional(ch[:1]) or "L" if ch else "ON"


def is_rtl_char(ch: str) -> bool:
    """A strong right-to-left character (Hebrew, Arabic, Syriac, Thaana, N'Ko...)."""
    return bidi_class(ch) in ("R", "AL")


def rtl_base(texts: list[str]) -> bool:
    """Whether a line of these characters reads right to left: more strong right-to-left
    characters than left-to-right ones (a page gives no first-character rule to go by)."""
    r = l_ = 0
    for t in texts:
        c = bidi_class(t)
        if c in ("R", "AL"):
            r += 1
        elif c == "L":
            l_ += 1
    return r > 0 and r >= l_


def logical_order(texts: list[str], rtl: bool | None = None) -> tuple[list[int], list[bool]]:
    """The reading order of a line given left to right on the page.

    ``texts`` holds one token per glyph (its first character decides its class; a space is
    ``" "``). Returns the token indices in logical order and, per token, whether it ends at
    an odd (right-to-left) level, where a bracket must be mirrored. ``rtl`` is the line's
    base direction (default: :func:`rtl_base`).
    """
    n = len(texts)
    if rtl is None:
        rtl = rtl_base(texts)
    base = 1 if rtl else 0
    types = [bidi_class(t) for t in texts]
    if base == 0 and not any(t in ("R", "AL", "AN") for t in types):
        return list(range(n)), [False] * n
    if base:
        # The levels are resolved over the line read from its right end: that is its
        # reading order but for the left-to-right runs inside, whose levels do not depend
        # on which way they are read. The weak rules look back from a number to the strong
        # letter before it (W2: after Arabic letters digits are Arabic numbers, which a
        # hyphen does not join), and in reading order that letter is on the number's
        # right: "2-5 استاندارد" is drawn "استاندارد 2-5", and read from the left its
        # digits would follow Arabic letters and come out "5-2".
        levels = _levels(types[::-1], texts[::-1], base)[::-1]
    else:
        levels = _levels(types, texts, base)
    order = list(range(n))
    top = max(levels, default=0)
    lowest_odd = min((lv for lv in levels if lv % 2), default=top + 1)
    for level in range(top, lowest_odd - 1, -1):  # L2
        i = 0
        while i < n:
            if levels[order[i]] >= level:
                j = i
                while j < n and levels[order[j]] >= level:
                    j += 1
                order[i:j] = order[i:j][::-1]
                i = j
            else:
                i += 1
    return order, [lv % 2 == 1 for lv in levels]


def _levels(types: list[str], texts: list[str], base: int) -> list[int]:
    """The embedding level of each character of a line in (about) reading order: rules
    W1-W7, N1-N2, I1-I2 and L1 of UAX #9, for a line without explicit embeddings."""
    n = len(types)
    sos = "R" if base else "L"
    prev = sos
    for i, t in enumerate(types):  # W1: a mark takes its base's type
        if t == "NSM":
            types[i] = prev
        else:
            prev = t
    last = sos
    for i, t in enumerate(types):  # W2: European digits after Arabic letters are Arabic
        if t in _STRONG:
            last = t
        elif t == "EN" and last == "AL":
            types[i] = "AN"
    types = ["R" if t == "AL" else t for t in types]  # W3
    for i in range(1, n - 1):  # W4: one separator between two numbers
        a, t, b = types[i - 1], types[i], types[i + 1]
        if t == "ES" and a == b == "EN" or t == "CS" and a == b and a in ("EN", "AN"):
            types[i] = a
    i = 0
    while i < n:  # W5: terminators next to European numbers
        if types[i] == "ET":
            j = i
            while j < n and types[j] == "ET":
                j += 1
            if (i > 0 and types[i - 1] == "EN") or (j < n and types[j] == "EN"):
                types[i:j] = ["EN"] * (j - i)
            i = j
        else:
            i += 1
    types = ["ON" if t in ("ES", "ET", "CS") else t for t in types]  # W6
    last = sos
    for i, t in enumerate(types):  # W7: European numbers in left-to-right text
        if t in ("L", "R"):
            last = t
        elif t == "EN" and last == "L":
            types[i] = "L"
    i = 0
    while i < n:  # N1/N2: neutrals between two of one direction take it, else the base
        if types[i] in _NEUTRAL:
            j = i
            while j < n and types[j] in _NEUTRAL:
                j += 1
            before = sos if i == 0 else ("R" if types[i - 1] in ("R", "EN", "AN") else "L")
            after = sos if j == n else ("R" if types[j] in ("R", "EN", "AN") else "L")
            fill = before if before == after else ("R" if base else "L")
            types[i:j] = [fill] * (j - i)
            i = j
        else:
            i += 1
    levels = []
    for t in types:  # I1/I2
        if base == 0:
            levels.append(1 if t == "R" else 2 if t in ("AN", "EN") else 0)
        else:
            levels.append(2 if t in ("L", "EN", "AN") else 1)
    for i in range(n - 1, -1, -1):  # L1: trailing white space at the base level
        if unicodedata.bidirectional(texts[i][:1] or " ") in ("WS", "S", "B", "BN"):
            levels[i] = base
        else:
            break
    return levels


def mirrored(text: str) -> str:
    """A bracket turned the other way (a right-to-left run draws "(" as ")")."""
    return MIRROR.get(text, text)
