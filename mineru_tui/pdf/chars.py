"""The characters of a page's text layer, with their boxes in the display frame.

PDFium's text page gives each character's code point, tight and loose boxes (user space),
angle, font size and flags. Here they become :class:`Char` records in the display frame
(points, origin top left, after /Rotate) with the reading direction each character runs in,
so the layout blocks (found on the rendered image) and the characters share one frame.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_NATIVE_CHARS = 65_535  # MinerU sends a page's text to OCR above this many characters
STANDARD_TOLERANCE = 0.1  # degrees: a character at 0/90/180/270 within this is "standard"
MAX_TILT = 30.0  # degrees: tilted characters (faux italics) kept only up to this

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


@dataclass(slots=True)
class Char:
    """One character of the text layer.

    ``box`` is the tight glyph box (the loose box when the tight one is empty),
    ``loose`` the font-height box and ``origin`` the point on the baseline where the glyph
    starts, all in the display frame. ``direction`` is the reading
    direction in the display frame, counter-clockwise degrees snapped to 0/90/180/270, and
    ``tilt`` how far the character's real angle is from it. ``visible`` is False for text
    drawn in an invisible render mode (OCR layers). ``hyphen`` marks PDFium's soft line-end
    hyphen (U+0002 in the text). ``size`` is the font size in points as drawn (the text
    object's size times its matrix), ``bold`` whether the font is bold (its weight, flags or
    name, or text painted with fill and stroke), ``italic`` whether it is italic or oblique.
    """

    text: str
    box: Box
    loose: Box
    origin: tuple[float, float]
    direction: int
    tilt: float
    size: float
    index: int
    generated: bool = False
    hyphen: bool = False
    map_error: bool = False
    visible: bool = True
    text_object: int = 0  # address of the PDFium text object that draws it (0: none)
    bold: bool = False
    italic: bool = False

    @property
    def cx(self) -> float:
        return (self.box[0] + self.box[2]) / 2

    @property
    def cy(self) -> float:
        return (self.box[1] + self.box[3]) / 2


def page_chars(page, limit: int = MAX_NATIVE_CHARS) -> list[Char] | None:
    """Every character of ``page`` (a :class:`~mineru_tui.pdf.reader.PdfPage`), or None when
    the page has more than ``limit`` of them (MinerU gives such pages to OCR).

    PDFium's generated line breaks are dropped; its generated spaces are kept (they mark
    word gaps in files that draw words separately). The result is kept on the page until
    it is closed, so classifying a page and filling its blocks read the characters once.
    """
    cached = getattr(page, "chars_cache", None)
    if cached is not None and cached[0] == limit:
        return cached[1]
    chars = _read_chars(page, limit)
    page.chars_cache = (limit, chars)
    return chars


def _read_chars(page, limit: int) -> list[Char] | None:
    from mineru_tui.pdf.pdfium import owned

    with owned():  # PDFium is held over the whole page: the loop calls its bare functions
        return _read_chars_owned(page, limit)


def _bare(function):
    """A PDFium function without the per-call lock :mod:`.pdfium` wraps it in (the caller
    holds the lock)."""
    return getattr(function, "__wrapped__", function)


def _read_chars_owned(page, limit: int) -> list[Char] | None:
    import ctypes

    import pypdfium2.raw as pdfium_c

    textpage = page.textpage()
    n = textpage.count_chars()
    if n > limit:
        return None
    tp = textpage.raw  # the bare handle: pypdfium2's wrapper converts itself on every call
    (x0, y0), (ax, ay), (bx, by) = page._display_matrix()
    det = ax * by - ay * bx
    # user -> display, inlined (this loop runs once per character): the page's display
    # matrix is a quarter turn and/or flip, so two opposite corners give a box exactly
    ua, ub, va, vb = by / det, -bx / det, -ay / det, ax / det

    # this loop is the text path's hottest: PDFium's functions are bound to locals, the
    # code points come in one call, and the angle's trigonometry is done once per angle
    get_unicode, is_generated = _bare(pdfium_c.FPDFText_GetUnicode), _bare(pdfium_c.FPDFText_IsGenerated)
    get_box, get_loose = _bare(pdfium_c.FPDFText_GetCharBox), _bare(pdfium_c.FPDFText_GetLooseCharBox)
    get_origin, get_angle = _bare(pdfium_c.FPDFText_GetCharOrigin), _bare(pdfium_c.FPDFText_GetCharAngle)
    is_hyphen = _bare(pdfium_c.FPDFText_IsHyphen)
    # the text object as a plain address (an int), without a ctypes pointer to cast each time
    get_object = ctypes.CFUNCTYPE(ctypes.c_void_p, pdfium_c.FPDF_TEXTPAGE, ctypes.c_int)(
        ctypes.cast(_bare(pdfium_c.FPDFText_GetTextObject), ctypes.c_void_p).value)
    map_error_at = _bare(pdfium_c.FPDFText_HasUnicodeMapError)
    font_size_at = _bare(pdfium_c.FPDFText_GetFontSize)
    codes = _code_points(tp, n, pdfium_c, ctypes)
    objects: dict[int, tuple[bool, float, bool, bool]] = {}  # text object -> its facts
    turns: dict[float, tuple[int, float]] = {}  # PDFium's angle -> (direction, tilt)
    left, bottom, right, top = (ctypes.c_double() for _ in range(4))
    lrect = pdfium_c.FS_RECTF()
    out: list[Char] = []
    low_half = False  # the previous character was the first half of a surrogate pair
    for i in range(n):
        code = codes[i] if codes is not None else get_unicode(tp, i)
        if low_half:  # already joined to the character before
            low_half = False
            continue
        generated = bool(is_generated(tp, i))
        if generated and code in (0x0D, 0x0A):
            continue
        if 0xD800 <= code <= 0xDBFF and i + 1 < n:
            # PDFium gives a character beyond the BMP (mathematical letters, emoji) as
            # UTF-16: two "characters", the second with the same box
            low = codes[i + 1] if codes is not None else get_unicode(tp, i + 1)
            if 0xDC00 <= low <= 0xDFFF:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                low_half = True
        text = chr(code) if 0 < code < 0x110000 and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        get_box(tp, i, left, right, bottom, top)
        lx, rx, by_, ty = left.value - x0, right.value - x0, bottom.value - y0, top.value - y0
        u1, v1, u2, v2 = ua * lx + ub * by_, va * lx + vb * by_, ua * rx + ub * ty, va * rx + vb * ty
        tight = (u1 if u1 < u2 else u2, v1 if v1 < v2 else v2, u2 if u1 < u2 else u1,
                 v2 if v1 < v2 else v1)
        get_loose(tp, i, lrect)
        lx, rx, by_, ty = lrect.left - x0, lrect.right - x0, lrect.bottom - y0, lrect.top - y0
        u1, v1, u2, v2 = ua * lx + ub * by_, va * lx + vb * by_, ua * rx + ub * ty, va * rx + vb * ty
        loose = (u1 if u1 < u2 else u2, v1 if v1 < v2 else v2, u2 if u1 < u2 else u1,
                 v2 if v1 < v2 else v1)
        if (tight[2] - tight[0] <= 0 or tight[3] - tight[1] <= 0) and not text.isspace():
            tight = loose
        get_origin(tp, i, left, bottom)
        ox, oy = left.value - x0, bottom.value - y0
        origin = (ua * ox + ub * oy, va * ox + vb * oy)
        raw_angle = get_angle(tp, i)
        turn = turns.get(raw_angle)
        if turn is None:
            turn = turns[raw_angle] = _turn(raw_angle, ua, ub, va, vb)
        visible, key, size, bold, italic = True, 0, 0.0, False, False
        key = get_object(tp, i) or 0
        if key:
            known = objects.get(key)
            if known is None:
                obj = ctypes.cast(key, pdfium_c.FPDF_PAGEOBJECT)
                known = objects[key] = _object_facts(obj, pdfium_c, ctypes)
            visible, size, bold, italic = known
        if size <= 0:
            size = font_size_at(tp, i)
        # PDFium marks only dashes and its own U+0002 as line-end hyphens
        hyphen = code == 0x02 or (not text.isalnum() and bool(is_hyphen(tp, i)))
        out.append(Char(
            text, tight, loose, origin, turn[0], turn[1], size, i, generated, hyphen,
            map_error_at(tp, i) == 1, visible, key, bold, italic))
    return out


def _code_points(tp, n: int, pdfium_c, ctypes):
    """The page's UTF-16 code units, one per character index, in one call (None when PDFium's
    text does not line up with its characters: then they are asked one by one). PDFium's
    text writes its line-end hyphen U+0002 as U+FFFE: those few are asked again."""
    if n <= 0:
        return None
    buf = (ctypes.c_ushort * (n + 1))()
    if pdfium_c.FPDFText_GetText(tp, 0, n, buf) != n + 1:
        return None
    codes = buf[:n]
    for i, code in enumerate(codes):
        if code == 0xFFFE:
            codes[i] = pdfium_c.FPDFText_GetUnicode(tp, i)
    return codes


def _turn(raw_angle: float, ua: float, ub: float, va: float, vb: float) -> tuple[int, float]:
    """(direction, tilt) of a character whose PDFium angle is ``raw_angle``."""
    # PDFium's angle runs clockwise in user space; turn it into the display frame
    a = -raw_angle
    dx, dy = math.cos(a), math.sin(a)
    du, dv = ua * dx + ub * dy, va * dx + vb * dy  # v points down
    angle = math.degrees(math.atan2(-dv, du)) % 360
    direction = round(angle / 90) % 4 * 90
    return direction, abs((angle - direction + 180) % 360 - 180)


_BOLD_NAME = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
_ITALIC_NAME = re.compile(r"italic|oblique", re.IGNORECASE)
FORCE_BOLD = 1 << 18  # the font descriptor's ForceBold flag
ITALIC = 1 << 6  # ... and its Italic flag


def _object_facts(obj, pdfium_c, ctypes) -> tuple[bool, float, bool, bool]:
    """(visible, font size as drawn, bold, italic) of one text object, read once per object."""
    mode = pdfium_c.FPDFTextObj_GetTextRenderMode(obj)
    visible = mode not in (pdfium_c.FPDF_TEXTRENDERMODE_INVISIBLE,
                           pdfium_c.FPDF_TEXTRENDERMODE_CLIP)
    size = ctypes.c_float()
    matrix = pdfium_c.FS_MATRIX()
    font_size = 0.0
    if pdfium_c.FPDFTextObj_GetFontSize(obj, size) and pdfium_c.FPDFPageObj_GetMatrix(obj, matrix):
        # the size along the glyphs' vertical axis (the matrix may scale, skew or turn)
        font_size = size.value * math.hypot(matrix.c, matrix.d)
    bold = mode == pdfium_c.FPDF_TEXTRENDERMODE_FILL_STROKE  # faux bold
    italic = False
    font = pdfium_c.FPDFTextObj_GetFont(obj)
    if font:
        weight = pdfium_c.FPDFFont_GetWeight(font)
        flags = pdfium_c.FPDFFont_GetFlags(font)
        buf = ctypes.create_string_buffer(256)
        n = pdfium_c.FPDFFont_GetBaseFontName(font, buf, len(buf))
        name = buf.value.decode("latin-1", "replace").split("+", 1)[-1] if n else ""
        bold = (bold or weight >= 600 or (flags > 0 and bool(flags & FORCE_BOLD))
                or bool(_BOLD_NAME.search(name)))
        italic = (flags > 0 and bool(flags & ITALIC)) or bool(_ITALIC_NAME.search(name))
    return visible, font_size, bold, italic
