"""``w:sym``: characters drawn from symbol fonts, mapped to Unicode where we know them.

Word stores a symbol as a font and a code, often in the private-use range F020-F0FF
(the font's own 8-bit code plus 0xF000). Symbol-font Greek and math map to Unicode;
Wingdings ticks and boxes to their Unicode look-alikes; anything else in the private
use area is dropped rather than shown as a wrong letter.
"""

from __future__ import annotations

_SYMBOL = {
    0x22: "∀", 0x24: "∃", 0x27: "∋", 0x2A: "∗", 0x2D: "−", 0x40: "≅",
    0x5C: "∴", 0x5E: "⊥", 0x60: "‾", 0x7E: "∼",
    0xA2: "′", 0xA3: "≤", 0xA5: "∞", 0xA7: "♣", 0xA8: "♦", 0xA9: "♥", 0xAA: "♠",
    0xAB: "↔", 0xAC: "←", 0xAD: "↑", 0xAE: "→", 0xAF: "↓", 0xB0: "°", 0xB1: "±",
    0xB2: "″", 0xB3: "≥", 0xB4: "×", 0xB5: "∝", 0xB6: "∂", 0xB7: "•", 0xB8: "÷",
    0xB9: "≠", 0xBA: "≡", 0xBB: "≈", 0xBC: "…", 0xC4: "⊗", 0xC5: "⊕", 0xC6: "∅",
    0xC7: "∩", 0xC8: "∪", 0xC9: "⊃", 0xCA: "⊇", 0xCB: "⊄", 0xCC: "⊂", 0xCD: "⊆",
    0xCE: "∈", 0xCF: "∉", 0xD0: "∠", 0xD1: "∇", 0xD5: "∏", 0xD6: "√", 0xD7: "⋅",
    0xD8: "¬", 0xD9: "∧", 0xDA: "∨", 0xDB: "⇔", 0xDC: "⇐", 0xDD: "⇑", 0xDE: "⇒",
    0xDF: "⇓", 0xE0: "◊", 0xE1: "〈", 0xE5: "∑", 0xF1: "〉", 0xF2: "∫",
}
_GREEK = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ"
for _i, _ch in enumerate(_GREEK):
    _SYMBOL[0x41 + _i] = _ch
    _SYMBOL[0x61 + _i] = _ch.lower() if _ch not in "ϑς" else {"ϑ": "ϕ", "ς": "ϖ"}[_ch]
_SYMBOL[0x6A] = "ϕ"
_SYMBOL[0x76] = "ϖ"

_WINGDINGS = {0x6C: "●", 0x6E: "■", 0x6F: "□", 0x71: "❑", 0x76: "❖", 0x9F: "•",
              0xA7: "▪", 0xA8: "◻", 0xD8: "➢", 0xE0: "➢", 0xE8: "➔", 0xF0: "⇨",
              0xFB: "✗", 0xFC: "✓", 0xFD: "☒", 0xFE: "☑", 0x4A: "☺", 0x4C: "☹"}


def symbol_char(font: str | None, code: str | None) -> str:
    """The Unicode text for a ``w:sym`` (empty when unknown)."""
    if not code:
        return ""
    try:
        n = int(code, 16)
    except ValueError:
        return ""
    low = n - 0xF000 if 0xF000 <= n <= 0xF0FF else n
    name = (font or "").lower()
    if name == "symbol":
        if low in _SYMBOL:
            return _SYMBOL[low]
    elif name.startswith("wingdings"):
        return _WINGDINGS.get(low, "")
    if 0xE000 <= n <= 0xF8FF:
        return chr(low) if 0x20 <= low < 0x7F else ""
    return chr(n) if n >= 0x20 else ""
