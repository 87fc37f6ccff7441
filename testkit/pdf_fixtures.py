"""Real PDFs written byte by byte for the PDF tests: text in a standard font, images, /Rotate,
encryption (the standard security handler, RC4, revision 2), and damaged files; and long PDFs
joined from the repository's public PDFs (:func:`joined_pdf`).

Writing the file ourselves keeps the tests free of a PDF-writing dependency and gives exact
control over what the text layer holds: a ligature glyph, a private-use glyph, invisible text.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from pathlib import Path

CORPUS_PDFS = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "pdf"

# Glyph names pdfium maps to code points, used through a font's /Differences.
# "g40" is a name pdfium cannot map: the glyph's text is its code, with a map error (as in
# fonts without a ToUnicode map that name their glyphs /g40, /g81...).
_DIFFERENCES = {1: "fi", 2: "fl", 3: "uniE001", 4: "uniE002", 5: "ffi", 6: "g40"}
FI, FL, PUA1, PUA2, FFI, UNMAPPED = (bytes([c]).decode("latin-1") for c in _DIFFERENCES)


@dataclass
class Text:
    """A run of text: (x, y) is the baseline start in PDF user space (origin bottom left).

    ``text`` is written in the font's encoding: ASCII, plus the control characters above
    (``FI`` draws the ﬁ glyph...). ``mode`` 3 is invisible text. ``angle`` rotates the run
    (degrees, counter-clockwise) about its start.
    """

    x: float
    y: float
    text: str
    size: float = 12
    mode: int = 0
    angle: float = 0


@dataclass
class Image:
    """An RGB image drawn into the rectangle (x, y, w, h) of user space."""

    x: float
    y: float
    w: float
    h: float
    pixels: bytes = b""  # width*height*3 bytes; a grey noise pattern when empty
    width: int = 64
    height: int = 64


@dataclass
class Stroke:
    """A straight line stroked from (x0, y0) to (x1, y1) in user space (a table's rule)."""

    x0: float
    y0: float
    x1: float
    y1: float
    width: float = 0.5


def grid(xs: list[float], ys: list[float]) -> list[Stroke]:
    """The rules of a full grid: a horizontal rule at each of ``ys``, a vertical at each of
    ``xs``, each across the whole grid."""
    return ([Stroke(xs[0], y, xs[-1], y) for y in ys]
            + [Stroke(x, min(ys), x, max(ys)) for x in xs])


@dataclass
class Page:
    width: float = 612
    height: float = 792
    rotate: int = 0
    items: list = field(default_factory=list)
    media_origin: tuple[float, float] = (0, 0)
    broken: bool = False  # the page tree points at a number instead of a page dictionary


def text_lines(lines: list[str], x: float = 72, top: float = 720, size: float = 12,
               leading: float | None = None) -> list[Text]:
    """Lines of text one under the other, starting at baseline ``top``."""
    leading = leading or size * 1.4
    return [Text(x, top - i * leading, s, size) for i, s in enumerate(lines)]


def _pdf_string(s: str) -> bytes:
    raw = s.encode("latin-1")
    out = bytearray(b"(")
    for b in raw:
        if b in b"()\\":
            out += b"\\" + bytes([b])
        elif b < 32 or b > 126:
            out += b"\\%03o" % b
        else:
            out.append(b)
    return bytes(out + b")")


def _content(page: Page, image_names: list[str]) -> bytes:
    import math

    out: list[bytes] = []
    images = iter(image_names)
    for item in page.items:
        if isinstance(item, Text):
            c, s = math.cos(math.radians(item.angle)), math.sin(math.radians(item.angle))
            out.append(b"BT /F1 %g Tf %d Tr %.4f %.4f %.4f %.4f %.3f %.3f Tm %s Tj ET"
                       % (item.size, item.mode, c, s, -s, c, item.x, item.y,
                          _pdf_string(item.text)))
        elif isinstance(item, Stroke):
            out.append(b"q %g w %.3f %.3f m %.3f %.3f l S Q"
                       % (item.width, item.x0, item.y0, item.x1, item.y1))
        else:
            out.append(b"q %g 0 0 %g %g %g cm /%s Do Q"
                       % (item.w, item.h, item.x, item.y, next(images).encode()))
    return b"\n".join(out)


class _Rc4Encryption:
    """The standard security handler, revision 2 (40-bit RC4), with a user password."""

    PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")

    def __init__(self, user_password: str, file_id: bytes):
        self.file_id = file_id
        self.P = -44  # print and copy allowed; the value only needs to be consistent
        pw = (user_password.encode("latin-1") + self.PAD)[:32]
        owner_key = hashlib.md5(pw).digest()[:5]  # owner password = user password
        self.O = _rc4(owner_key, pw)
        self.key = hashlib.md5(pw + self.O + self.P.to_bytes(4, "little", signed=True)
                               + file_id).digest()[:5]
        self.U = _rc4(self.key, self.PAD)

    def encrypt(self, num: int, data: bytes) -> bytes:
        k = hashlib.md5(self.key + num.to_bytes(3, "little") + b"\x00\x00").digest()[:10]
        return _rc4(k, data)

    def dictionary(self) -> bytes:
        return (b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P %d >>"
                % (self.O.hex().encode(), self.U.hex().encode(), self.P))


def _rc4(key: bytes, data: bytes) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out = bytearray()
    i = j = 0
    for b in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(b ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def build_pdf(pages: list[Page], user_password: str | None = None) -> bytes:
    """The bytes of a PDF with these pages (Helvetica as /F1 on every page)."""
    file_id = hashlib.md5(repr(pages).encode()).digest()
    enc = _Rc4Encryption(user_password, file_id) if user_password is not None else None
    objects: dict[int, bytes] = {}
    streams: dict[int, bytes] = {}  # object number -> stream data (dictionary in objects)

    def add(body: bytes, stream: bytes | None = None) -> int:
        num = len(objects) + 1
        objects[num] = body
        if stream is not None:
            streams[num] = stream
        return num

    catalog = add(b"")
    pages_num = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type "
               b"/Encoding /BaseEncoding /WinAnsiEncoding /Differences ["
               + b" ".join(b"%d /%s" % (k, v.encode()) for k, v in _DIFFERENCES.items())
               + b"] >> >>")
    kids = []
    for page in pages:
        image_refs = []
        for item in page.items:
            if isinstance(item, Image):
                pixels = item.pixels or bytes((i * 37 + (i // 3) * 11) % 256
                                              for i in range(item.width * item.height * 3))
                data = zlib.compress(pixels)
                num = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d "
                          b"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode "
                          b"/Length %%LEN%% >>" % (item.width, item.height), data)
                image_refs.append((f"Im{num}", num))
        content = _content(page, [n for n, _ in image_refs])
        content_num = add(b"<< /Length %LEN% >>", content)
        xobjects = b" ".join(b"/%s %d 0 R" % (n.encode(), num) for n, num in image_refs)
        x0, y0 = page.media_origin
        if page.broken:
            kids.append(add(b"42"))
            continue
        kids.append(add(
            b"<< /Type /Page /Parent %d 0 R /MediaBox [%g %g %g %g] /Rotate %d "
            b"/Resources << /Font << /F1 %d 0 R >> /XObject << %s >> >> /Contents %d 0 R >>"
            % (pages_num, x0, y0, x0 + page.width, y0 + page.height, page.rotate, font,
               xobjects, content_num)))
    objects[catalog] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_num
    objects[pages_num] = (b"<< /Type /Pages /Kids [%s] /Count %d >>"
                          % (b" ".join(b"%d 0 R" % k for k in kids), len(kids)))
    encrypt_num = add(enc.dictionary()) if enc else None

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        body = objects[num]
        data = streams.get(num)
        if data is not None and enc:
            data = enc.encrypt(num, data)
        if data is not None:
            body = body.replace(b"%LEN%", str(len(data)).encode())
        out += b"%d 0 obj\n" % num + body
        if data is not None:
            out += b"\nstream\n" + data + b"\nendstream"
        out += b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for num in sorted(objects):
        out += b"%010d 00000 n \n" % offsets[num]
    trailer = b"/Size %d /Root %d 0 R /ID [<%s> <%s>]" % (
        len(objects) + 1, catalog, file_id.hex().encode(), file_id.hex().encode())
    if encrypt_num:
        trailer += b" /Encrypt %d 0 R" % encrypt_num
    out += b"trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref)
    return bytes(out)


def write_pdf(path, pages: list[Page], user_password: str | None = None):
    path.write_bytes(build_pdf(pages, user_password))
    return path


def joined_pdf(path: Path, pages: int, corpus: Path = CORPUS_PDFS) -> Path:
    """A ``pages``-page born-digital PDF at ``path``: the PDFs of ``corpus`` (the repository's
    public ones: fonts, images, vector art) joined in name order, over and over, the last one
    cut short."""
    import pypdfium2 as pdfium

    sources = [pdfium.PdfDocument(str(p)) for p in sorted(Path(corpus).glob("*.pdf"))]
    out = pdfium.PdfDocument.new()
    try:
        if pages > 0 and not any(len(src) for src in sources):
            raise ValueError(f"no PDF pages to join in {corpus}")
        while len(out) < pages:
            for src in sources:
                take = min(len(src), pages - len(out))
                if take > 0:
                    out.import_pages(src, list(range(take)))
        out.save(str(path))
    finally:
        out.close()
        for src in sources:
            src.close()
    return Path(path)
