"""Which characters are bold or italic: the font of the text object that draws them.

PDFium gives each character's font name, flags and weight. Weight is often 0 or a guess
(Type 1 and TrueType fonts rarely declare it), so the font's name counts as much: a
``…-Bold``, ``…Black``, ``…Semibold`` or TeX's ``CMBX``/``SFBX`` (bold extended) names a
bold face. Looked up once per text object, so a page costs a few dozen PDFium calls.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from mineru_tui.pdf.chars import Char, object_fonts

_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demibold|demi\b|extrabold|ultrabold"
                        r"|^(?:cm|sf|lm|ec)bx|\bbx\d|-bd\b|,bold", re.IGNORECASE)
_ITALIC_NAME = re.compile(r"italic|oblique|^(?:cm|sf|lm|ec)(?:ti|sl|bxti)|-it\b|,italic", re.IGNORECASE)
_MONO_NAME = re.compile(r"mono|courier|consol|^(?:cm|sf|lm|ec)tt|menlo|inconsolata", re.IGNORECASE)
_FORCE_BOLD = 1 << 18  # PDF font descriptor flags (bit 19)
_ITALIC_FLAG = 1 << 6  # bit 7


@dataclass(frozen=True, slots=True)
class FontStyle:
    """The face a character is drawn in."""

    name: str = ""
    bold: bool = False
    italic: bool = False
    mono: bool = False


PLAIN = FontStyle()


def font_styles(page, chars: list[Char]) -> dict[int, FontStyle]:
    """``{text object address: FontStyle}`` for the text objects drawing ``chars``."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    cache = getattr(page, "font_styles_cache", None)
    if cache is None:
        cache = {}
        try:
            page.font_styles_cache = cache
        except AttributeError:  # a page object without attributes: no cache, still correct
            pass
    # each text object not yet known, by the first of its non-space characters (the dict
    # made from the last character back keeps the first)
    todo = {c.text_object: c.index for c in reversed(chars) if not c.text.isspace()}
    for key in cache.keys() & todo.keys():
        del todo[key]
    # what each object's font says was read with the characters (page_chars): no PDFium
    # call is needed for those (the same name, weight and flags a character's font gives)
    said = object_fonts(page)
    for key in [key for key in todo if key in said]:
        cache[key] = _style(*said[key])
        del todo[key]
    if not todo:
        return cache
    from mineru_tui.pdf.pdfium import owned, unlocked

    tp = page.textpage().raw
    buf = ctypes.create_string_buffer(256)
    size, flags = len(buf), ctypes.c_int()
    flags_ref = ctypes.byref(flags)
    # PDFium held once for the page's text objects, its functions called bare
    font_info, font_weight = unlocked(pdfium_c.FPDFText_GetFontInfo, pdfium_c.FPDFText_GetFontWeight)
    with owned():
        for key, index in todo.items():
            n = font_info(tp, index, buf, size, flags_ref)
            cache[key] = _style(buf.value if n else b"", font_weight(tp, index), flags.value)
    return cache


@functools.lru_cache(maxsize=1024)  # a page's hundreds of text objects share a few fonts
def _style(raw_name: bytes, weight: int, flags: int) -> FontStyle:
    name = raw_name.decode("utf-8", "replace").split("+", 1)[-1]  # a subset's six-letter tag
    bold = bool(_BOLD_NAME.search(name)) or weight >= 600 or bool(flags & _FORCE_BOLD)
    italic = bool(_ITALIC_NAME.search(name)) or bool(flags & _ITALIC_FLAG)
    return FontStyle(name, bold, italic, bool(_MONO_NAME.search(name)))


_STYLE_WORDS = re.compile(r"[-,]?(?:bold|black|heavy|semi|demi|extra|ultra|light|thin|medium|regular|book|"
                          r"roman|italic|oblique|condensed|narrow|mt|ps)+$", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)  # asked once per character: a page has few fonts
def family(name: str) -> str:
    """A font name without its style words: ``TimesNewRomanPS-BoldMT`` -> ``timesnewroman``."""
    base = re.split(r"[-,]", name, maxsplit=1)[0]
    base = _STYLE_WORDS.sub("", base) or base
    return base.casefold()


def main_family(chars: list[Char], styles: dict[int, FontStyle]) -> str:
    """The family most of the non-space ``chars`` are drawn in ("" when unknown)."""
    counts: dict[str, int] = {}
    for c in chars:
        if not c.text.isspace():
            f = family(styles.get(c.text_object, PLAIN).name)
            counts[f] = counts.get(f, 0) + 1
    return max(counts, key=counts.get) if counts else ""


def share(chars: list[Char], styles: dict[int, FontStyle], attr: str) -> float:
    """The share of the non-space ``chars`` whose face has ``attr`` (bold, italic, mono)."""
    solid = [c for c in chars if not c.text.isspace()]
    if not solid:
        return 0.0
    return sum(getattr(styles.get(c.text_object, PLAIN), attr) for c in solid) / len(solid)
