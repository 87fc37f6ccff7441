"""The characters of a page's text layer, with their boxes in the display frame.

PDFium's text page gives each character's code point, tight and loose boxes (user space),
angle, font size and flags. Here they become :class:`Char` records in the display frame
(points, origin top left, after /Rotate) with the reading direction each character runs in,
so the layout blocks (found on the rendered image) and the characters share one frame.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

from mineru_tui.pdf.pdfium import unlocked

MAX_NATIVE_CHARS = 65_535  # MinerU sends a page's text to OCR above this many characters
STANDARD_TOLERANCE = 0.1  # degrees: a character at 0/90/180/270 within this is "standard"
MAX_TILT = 30.0  # degrees: tilted characters (faux italics) kept only up to this

Box = tuple[float, float, float, float]  # x0, y0, x1, y1
# what a font says of itself, as PDFium gives it: (base font name, weight, descriptor flags)
FontFacts = tuple[bytes, int, int]


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
    fonts: dict[int, FontFacts] = {}
    chars = _read_chars(page, limit, fonts)
    page.chars_cache = (limit, chars, fonts)
    return chars


def object_fonts(page) -> dict[int, FontFacts]:
    """``{text object address: FontFacts}`` of the text objects whose characters
    :func:`page_chars` read on ``page`` (empty when none are kept): what each one's font
    says, read while the page was loaded, so no PDFium call is needed for it later."""
    cached = getattr(page, "chars_cache", None)
    return cached[2] if cached is not None and len(cached) > 2 else {}


def _read_chars(page, limit: int, fonts: dict | None = None) -> list[Char] | None:
    from mineru_tui.pdf.gc_pause import collector_paused
    from mineru_tui.pdf.pdfium import owned

    with owned(), collector_paused():  # PDFium is held over the whole page: the loop calls its bare functions
        return _read_chars_owned(page, limit, fonts=fonts)



def _read_chars_owned(page, limit: int, compiled: bool | None = None,
                      fonts: dict | None = None) -> list[Char] | None:
    """The characters of ``page`` (the caller holds PDFium). ``compiled`` picks the loop:
    the C one (:mod:`._charloop`, built by ``pip install``) or this module's own; by
    default the C one when it was built and ``MINERU_TUI_PURE_CHARS`` is not ``1``. Both
    give equal characters (``tests/pdf/test_char_loop.py``), and fill ``fonts`` alike
    with each text object's :data:`FontFacts`."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    textpage = page.textpage()
    n = textpage.count_chars()
    if n > limit:
        return None
    # the text page as an address, read in place (ctypes.cast ties its source into a cycle)
    tp = ctypes.c_void_p.from_buffer(textpage.raw).value
    (x0, y0), (ax, ay), (bx, by) = page._display_matrix()
    det = ax * by - ay * bx
    # user -> display, inlined (this loop runs once per character): the page's display
    # matrix is a quarter turn and/or flip, so two opposite corners give a box exactly
    ua, ub, va, vb = by / det, -bx / det, -ay / det, ax / det
    codes = _code_points(textpage.raw, n, pdfium_c, ctypes)
    loop = compiled_loop() if compiled is None else (_compiled() if compiled else None)
    fonts = {} if fonts is None else fonts
    if loop is not None:
        # the C loop works out each text object's facts as _object_facts does; a font met
        # the first time on the page comes back here once (_font_face reads its name)
        bare = _bare_functions(pdfium_c)
        return loop.read_chars(
            tp, n, codes, _address_typed().addresses, (x0, y0, ua, ub, va, vb),
            lambda raw_angle: _turn(raw_angle, ua, ub, va, vb),
            lambda font: _font_face(ctypes.cast(font, pdfium_c.FPDF_FONT), bare, ctypes),
            math.hypot, Char, fonts)
    return _python_loop(tp, n, codes, (x0, y0, ua, ub, va, vb), pdfium_c, ctypes, fonts)


def compiled_loop():
    """The C character loop (:mod:`._charloop`), or None when it was not built or
    ``MINERU_TUI_PURE_CHARS=1`` asks for this module's own loop."""
    import os

    if os.environ.get("MINERU_TUI_PURE_CHARS") == "1":
        return None
    return _compiled()


def _compiled():
    import importlib

    try:
        return importlib.import_module("mineru_tui.pdf._charloop")
    except ImportError:  # built where a C compiler was found (setup.py): optional
        return None


def _python_loop(tp: int, n: int, codes, matrix, pdfium_c, ctypes, fonts: dict) -> list[Char]:
    """The character loop in Python (the C loop in ``_charloop.c`` does the same)."""
    x0, y0, ua, ub, va, vb = matrix
    # this loop is the text path's hottest: PDFium's functions take plain addresses
    # (_address_typed), the code points come in one call, and the angle's trigonometry is
    # done once per angle
    f = _address_typed()
    get_unicode, is_generated = f.FPDFText_GetUnicode, f.FPDFText_IsGenerated
    get_box, get_loose = f.FPDFText_GetCharBox, f.FPDFText_GetLooseCharBox
    get_origin, get_angle = f.FPDFText_GetCharOrigin, f.FPDFText_GetCharAngle
    is_hyphen, get_object = f.FPDFText_IsHyphen, f.FPDFText_GetTextObject
    map_error_at, font_size_at = f.FPDFText_HasUnicodeMapError, f.FPDFText_GetFontSize
    objects: dict[int, tuple[bool, float, bool, bool]] = {}  # text object -> its facts
    turns: dict[float, tuple[int, float]] = {}  # PDFium's angle -> (direction, tilt)
    angles: dict[int, float] = {}  # text object -> PDFium's angle of its characters
    tight_out = (ctypes.c_double * 6)()  # left, right, bottom, top; then the origin's x, y
    loose_out = (ctypes.c_float * 4)()  # an FS_RECTF: left, top, right, bottom
    at = ctypes.addressof(tight_out)
    a_left, a_right, a_bottom, a_top, a_ox, a_oy = (at + 8 * k for k in range(6))
    a_loose = ctypes.addressof(loose_out)
    # struct reads the outputs far faster than indexing the ctypes arrays
    read_tight, read_loose = _SIX_DOUBLES.unpack_from, _FOUR_FLOATS.unpack_from
    out: list[Char] = []
    low_half = False  # the previous character was the first half of a surrogate pair
    for i in range(n):
        code = codes[i] if codes is not None else get_unicode(tp, i)
        if low_half:  # already joined to the character before
            low_half = False
            continue
        # PDFium generates only spaces and line breaks (CPDF_TextPage::GenerateCharInfo)
        generated = code in _GENERATED and bool(is_generated(tp, i))
        if generated and code != 0x20:
            continue
        if 0xD800 <= code <= 0xDBFF and i + 1 < n:
            # PDFium gives a character beyond the BMP (mathematical letters, emoji) as
            # UTF-16: two "characters", the second with the same box
            low = codes[i + 1] if codes is not None else get_unicode(tp, i + 1)
            if 0xDC00 <= low <= 0xDFFF:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                low_half = True
        text = chr(code) if 0 < code < 0x110000 and not 0xD800 <= code <= 0xDFFF else "\ufffd"
        get_box(tp, i, a_left, a_right, a_bottom, a_top)
        get_origin(tp, i, a_ox, a_oy)
        left, right, bottom, top, ox, oy = read_tight(tight_out)
        lx, rx, by_, ty = left - x0, right - x0, bottom - y0, top - y0
        u1, v1, u2, v2 = ua * lx + ub * by_, va * lx + vb * by_, ua * rx + ub * ty, va * rx + vb * ty
        tight = (u1 if u1 < u2 else u2, v1 if v1 < v2 else v2, u2 if u1 < u2 else u1,
                 v2 if v1 < v2 else v1)
        get_loose(tp, i, a_loose)
        left, top, right, bottom = read_loose(loose_out)
        lx, rx, by_, ty = left - x0, right - x0, bottom - y0, top - y0
        u1, v1, u2, v2 = ua * lx + ub * by_, va * lx + vb * by_, ua * rx + ub * ty, va * rx + vb * ty
        loose = (u1 if u1 < u2 else u2, v1 if v1 < v2 else v2, u2 if u1 < u2 else u1,
                 v2 if v1 < v2 else v1)
        if (tight[2] - tight[0] <= 0 or tight[3] - tight[1] <= 0) and not text.isspace():
            tight = loose
        ox, oy = ox - x0, oy - y0
        origin = (ua * ox + ub * oy, va * ox + vb * oy)
        visible, size, bold, italic = True, 0.0, False, False
        key = get_object(tp, i) or 0
        if key and not generated:
            # a drawn character's angle is its text object's matrix (with its form's):
            # one per object (a generated space has its form's matrix only)
            raw_angle = angles.get(key)
            if raw_angle is None:
                raw_angle = angles[key] = get_angle(tp, i)
        else:
            raw_angle = get_angle(tp, i)
        turn = turns.get(raw_angle)
        if turn is None:
            turn = turns[raw_angle] = _turn(raw_angle, ua, ub, va, vb)
        if key:
            known = objects.get(key)
            if known is None:
                obj = ctypes.cast(key, pdfium_c.FPDF_PAGEOBJECT)
                known = objects[key] = _object_facts(obj, key, fonts, pdfium_c, ctypes)
            visible, size, bold, italic = known
        if size <= 0:
            size = font_size_at(tp, i)
        # PDFium marks only dashes and its own U+0002 as line-end hyphens
        hyphen = code == 0x02 or (not text.isalnum() and bool(is_hyphen(tp, i)))
        out.append(Char(
            text, tight, loose, origin, turn[0], turn[1], size, i, generated, hyphen,
            map_error_at(tp, i) == 1, visible, key, bold, italic))
    return out


_GENERATED = frozenset((0x20, 0x0D, 0x0A))  # the only code points PDFium generates
_SIX_DOUBLES, _FOUR_FLOATS = struct.Struct("=6d"), struct.Struct("=4f")


class _AddressTyped:
    """The per-character PDFium functions typed to take a text page's address (an int)
    and output addresses: ctypes converts an int far faster than a pointer object, and
    the character loop calls PDFium several times per character. Bare (see
    :func:`.pdfium.unlocked`):
    the caller holds PDFium's lock."""

    NAMES = ("FPDFText_GetUnicode", "FPDFText_IsGenerated", "FPDFText_GetCharBox",
             "FPDFText_GetLooseCharBox", "FPDFText_GetCharOrigin", "FPDFText_GetCharAngle",
             "FPDFText_IsHyphen", "FPDFText_GetTextObject", "FPDFText_HasUnicodeMapError",
             "FPDFText_GetFontSize")

    def __init__(self):
        import ctypes

        import pypdfium2.raw as pdfium_c

        def plain(t):
            return ctypes.c_void_p if t is not None and issubclass(t, ctypes._Pointer) else t

        for name in self.NAMES:
            (function,) = unlocked(getattr(pdfium_c, name))
            address = ctypes.cast(function, ctypes.c_void_p).value
            prototype = ctypes.CFUNCTYPE(plain(function.restype),
                                         *(plain(t) for t in function.argtypes))
            setattr(self, name, prototype(address))
        # the functions' addresses, in NAMES' then OBJECT_FUNCTIONS' order, for the C loop
        # (_charloop.c)
        bare = unlocked(*(getattr(pdfium_c, name) for name in self.NAMES + OBJECT_FUNCTIONS))
        self.addresses = tuple(ctypes.cast(function, ctypes.c_void_p).value for function in bare)


# the PDFium functions _object_facts calls on a text object, which the C loop calls itself
OBJECT_FUNCTIONS = ("FPDFTextObj_GetTextRenderMode", "FPDFTextObj_GetFontSize",
                    "FPDFPageObj_GetMatrix", "FPDFTextObj_GetFont")

_typed: _AddressTyped | None = None


def _address_typed() -> _AddressTyped:
    global _typed
    if _typed is None:
        _typed = _AddressTyped()
    return _typed


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
    if 0xFFFE in codes:  # (looked for in C: most pages have none)
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


def _object_facts(obj, key: int, fonts: dict, pdfium_c, ctypes) -> tuple[bool, float, bool, bool]:
    """(visible, font size as drawn, bold, italic) of one text object (at address ``key``),
    read once per object, and its font's :data:`FontFacts` put in ``fonts`` (the caller
    holds PDFium: its functions are called bare). ``_charloop.c``'s ``object_facts`` does
    the same."""
    pdfium_c = _bare_functions(pdfium_c)
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
        face = _font_face(font, pdfium_c, ctypes)
        bold, italic = bold or face[0], face[1]
        fonts[key] = face[2]
    return visible, font_size, bold, italic


def _font_face(font, pdfium_c, ctypes) -> tuple[bool, bool, FontFacts]:
    """(bold, italic) as a font says: its weight, its descriptor's flags or its name; and
    those :data:`FontFacts` themselves (for :func:`~mineru_tui.pdf.fonts.font_styles`)."""
    weight = pdfium_c.FPDFFont_GetWeight(font)
    flags = pdfium_c.FPDFFont_GetFlags(font)
    buf = ctypes.create_string_buffer(256)
    n = pdfium_c.FPDFFont_GetBaseFontName(font, buf, len(buf))
    raw_name = buf.value if n else b""
    name = raw_name.decode("latin-1", "replace").split("+", 1)[-1]
    bold = (weight >= 600 or (flags > 0 and bool(flags & FORCE_BOLD))
            or bool(_BOLD_NAME.search(name)))
    italic = (flags > 0 and bool(flags & ITALIC)) or bool(_ITALIC_NAME.search(name))
    return bold, italic, (raw_name, weight, flags)


_bare_raw = None  # the _BareFunctions of pypdfium2.raw, made on first use


def _bare_functions(pdfium_c):
    """``pypdfium2.raw`` (``pdfium_c``) with its functions bare, made once."""
    global _bare_raw
    if _bare_raw is None:
        _bare_raw = _BareFunctions(pdfium_c)
    return _bare_raw


class _BareFunctions:
    """``pypdfium2.raw`` with its functions bare (:func:`.pdfium.unlocked`), its constants and types
    as they are: for code that holds PDFium's lock already."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        (value,) = unlocked(getattr(self._module, name))
        setattr(self, name, value)  # looked up once
        return value
