"""The parts of a Word 97 binary file the reader needs ([MS-DOC]).

* the FIB (file information block) at the start of the ``WordDocument`` stream: which
  table stream, encryption, the character counts of each story, and where the piece
  table, style sheet, paragraph properties and notes are;
* the piece table (``Clx``): which byte ranges hold the text, in cp1252 bytes or UTF-16;
* paragraph properties (``PlcfBtePapx`` and its 512-byte FKP pages): each paragraph's
  style and table/list sprms;
* the style sheet (``STSH``): each style's built-in id (``sti``) and name.

Every offset read from the file is checked against the data it points into; a broken
structure raises ``ValueError`` (the reader turns it into one line).
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from dataclasses import dataclass

from mineru_tui.detect import image_ext

MAX_PIECES = 1_000_000
MAX_PAPX_PAGES = 100_000


@dataclass
class Fib:
    nfib: int
    table: str  # "0Table" or "1Table"
    encrypted: bool
    ccp: dict[str, int]  # story lengths in characters: text, ftn, hdd, atn, edn, txbx, hdrtxbx
    fclcb: list[tuple[int, int]]  # (fc, lcb) pairs of FibRgFcLcb


_CCP = ("text", "ftn", "hdd", "mcr", "atn", "edn", "txbx", "hdrtxbx")
# FibRgFcLcb97 indexes used
STSHF, PLCFFNDREF, PLCFFNDTXT, PLCFBTEPAPX, CLX, PLCFENDREF, PLCFENDTXT = 1, 2, 3, 13, 33, 46, 47
PLCFBTECHPX, PLFLST, PLFLFO, DGGINFO = 12, 73, 74, 50
PLCFANDREF, PLCFANDTXT, ATNOWNERS, PLCSPAMOM, PLCFTXBXTXT = 4, 5, 36, 40, 56
PLCFHDD = 11


def read_fib(word: bytes) -> Fib:
    if len(word) < 154 or struct.unpack_from("<H", word, 0)[0] != 0xA5EC:
        raise ValueError("no Word file information block")
    nfib = struct.unpack_from("<H", word, 2)[0]
    flags = struct.unpack_from("<H", word, 10)[0]
    pos = 32
    csw = struct.unpack_from("<H", word, pos)[0]
    pos += 2 + csw * 2
    cslw = struct.unpack_from("<H", word, pos)[0]
    pos += 2
    lw = struct.unpack_from(f"<{cslw}i", word, pos) if pos + cslw * 4 <= len(word) else ()
    pos += cslw * 4
    ccp = {name: max(0, lw[3 + i]) if 3 + i < len(lw) else 0 for i, name in enumerate(_CCP)}
    cb = struct.unpack_from("<H", word, pos)[0]
    pos += 2
    n = min(cb, (len(word) - pos) // 8)
    fclcb = [struct.unpack_from("<II", word, pos + 8 * i) for i in range(n)]
    return Fib(nfib, "1Table" if flags & 0x0200 else "0Table", bool(flags & 0x0100), ccp, fclcb)


def blob(fib: Fib, table: bytes, index: int) -> bytes:
    """The bytes of FibRgFcLcb entry ``index`` in the table stream (empty when absent)."""
    if index >= len(fib.fclcb):
        return b""
    fc, lcb = fib.fclcb[index]
    if lcb == 0 or fc + lcb > len(table):
        return b""
    return table[fc:fc + lcb]


@dataclass
class Piece:
    cp: int  # first character position
    cp_end: int
    fc: int  # byte offset in WordDocument
    compressed: bool  # cp1252 bytes (else UTF-16LE)


class OverlapError(ValueError):
    """Two pieces (or two ranges of a story) cover the same text: a crafted file."""


def read_pieces(clx: bytes) -> list[Piece]:
    """The piece table, checked: character positions that never go back, and pieces that
    never share bytes (:class:`OverlapError`): 60,000 pieces each covering the whole
    stream would otherwise decode it 60,000 times."""
    pos = 0
    while pos < len(clx) and clx[pos] == 0x01:  # Prc: skip
        size = struct.unpack_from("<H", clx, pos + 1)[0]
        pos += 3 + size
    if pos >= len(clx) or clx[pos] != 0x02:
        raise ValueError("no piece table")
    lcb = struct.unpack_from("<I", clx, pos + 1)[0]
    plc = clx[pos + 5:pos + 5 + lcb]
    n = (len(plc) - 4) // 12
    if n <= 0 or n > MAX_PIECES:
        raise ValueError("empty or oversized piece table")
    cps = struct.unpack_from(f"<{n + 1}I", plc, 0)
    out = []
    for i in range(n):
        if cps[i + 1] < cps[i]:
            raise OverlapError("the piece table's character positions go back")
        raw = struct.unpack_from("<I", plc, 4 * (n + 1) + 8 * i + 2)[0]
        compressed = bool(raw & 0x40000000)
        fc = raw & 0x3FFFFFFF
        out.append(Piece(cps[i], cps[i + 1], fc // 2 if compressed else fc, compressed))
    spans = sorted((p.fc, p.fc + (p.cp_end - p.cp) * (1 if p.compressed else 2))
                   for p in out if p.cp_end > p.cp)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        if start < end:
            raise OverlapError("two pieces of the piece table share bytes")
    return out


def forward(cps: list[int]) -> list[int]:
    """The CPs of a story's PLC (notes, comments, text boxes), which cut it into
    consecutive ranges; :class:`OverlapError` when they go back, which would make ranges
    that overlap (9,999 text boxes, every other one the whole story again)."""
    if any(b < a for a, b in zip(cps, cps[1:])):
        raise OverlapError("a story's ranges go back")
    return cps


def text_of(word: bytes, pieces: list[Piece]) -> tuple[str, array]:
    """The document's characters in CP order, and each character's byte offset (fc), as
    a compact array (a list of ints cost 36 bytes a character)."""
    chars: list[str] = []
    fcs = array("I")
    for p in pieces:
        n = max(0, p.cp_end - p.cp)
        if p.compressed:
            data = word[p.fc:p.fc + n]
            chars.append(data.decode("cp1252", "replace"))
            fcs.extend(range(p.fc, p.fc + len(data)))
        else:
            data = word[p.fc:p.fc + 2 * n]
            chars.append(data[:len(data) // 2 * 2].decode("utf-16-le", "replace"))
            fcs.extend(range(p.fc, p.fc + len(data) // 2 * 2, 2))
    return "".join(chars), fcs


@dataclass
class ParaProps:
    istd: int = 0
    in_table: bool = False
    row_end: bool = False
    ilvl: int = 0
    ilfo: int = 0
    outline: int | None = None
    itap: int = 0
    cells: list[tuple[int, int, int, int]] | None = None  # a row end's cells: (left, right,
    # horizontal merge, vertical merge), edges in twips


class Papx:
    """Paragraph properties by the byte offset of a paragraph's mark."""

    def __init__(self, word: bytes, plcf: bytes):
        self._ends: list[int] = []
        self._props: list[ParaProps] = []
        if len(plcf) < 8:
            return
        n = (len(plcf) - 4) // 8
        pns = struct.unpack_from(f"<{n}I", plcf, 4 * (n + 1))
        runs = []
        for pn in pns[:MAX_PAPX_PAGES]:
            page = (pn & 0x3FFFFF) * 512
            if page + 512 > len(word):
                continue
            fkp = word[page:page + 512]
            crun = fkp[511]
            if crun == 0 or 4 * (crun + 1) + 13 * crun > 511:
                continue
            fcs = struct.unpack_from(f"<{crun + 1}I", fkp, 0)
            for i in range(crun):
                off = fkp[4 * (crun + 1) + 13 * i] * 2
                props = _papx(fkp, off) if off else ParaProps()
                runs.append((fcs[i + 1], props))
        runs.sort(key=lambda r: r[0])
        self._ends = [r[0] for r in runs]
        self._props = [r[1] for r in runs]

    def at(self, fc: int) -> ParaProps:
        i = bisect_right(self._ends, fc)
        return self._props[i] if i < len(self._props) else ParaProps()


def _papx(fkp: bytes, off: int) -> ParaProps:
    if off >= 511:
        return ParaProps()
    cb = fkp[off]
    if cb == 0:
        size = 2 * fkp[off + 1]
        start = off + 2
    else:
        size = 2 * cb - 1
        start = off + 1
    data = fkp[start:min(start + size, 511)]
    if len(data) < 2:
        return ParaProps()
    props = ParaProps(istd=struct.unpack_from("<H", data, 0)[0])
    for op, arg in sprms(data[2:]):
        if op == 0x2416:
            props.in_table = bool(arg and arg[0])
        elif op == 0x2417:
            props.row_end = bool(arg and arg[0])
        elif op == 0x6649 and len(arg) >= 4:
            props.itap = struct.unpack_from("<i", arg)[0]
            props.in_table = props.in_table or props.itap > 0
        elif op == 0x664A and len(arg) >= 4:
            pass
        elif op == 0x260A and arg:
            props.ilvl = arg[0]
        elif op == 0x460B and len(arg) >= 2:
            props.ilfo = struct.unpack_from("<h", arg)[0]
        elif op == 0x2640 and arg:
            props.outline = arg[0] if arg[0] < 9 else None
        elif op == 0x244B and arg:  # sprmPFInnerTtp: a nested row's end
            props.row_end = props.row_end or bool(arg[0])
        elif op == 0xD608 and arg:  # sprmTDefTable: the row's cells and their merges
            itc = arg[0]
            if 1 + 2 * (itc + 1) > len(arg):
                continue
            edges = struct.unpack_from(f"<{itc + 1}h", arg, 1)
            base = 1 + 2 * (itc + 1)
            cells = []
            for i in range(itc):
                off = base + 20 * i
                grf = struct.unpack_from("<H", arg, off)[0] if off + 2 <= len(arg) else 0
                cells.append((edges[i], edges[i + 1], grf & 0x3, (grf >> 5) & 0x3))
            props.cells = cells
        elif op == 0xD62B and len(arg) >= 2 and props.cells is not None:  # sprmTVertMerge
            itc, merge = arg[0], arg[1]
            if itc < len(props.cells):
                left, right, h, _ = props.cells[itc]
                props.cells[itc] = (left, right, h, merge)
    return props


def sprms(data: bytes):
    """(opcode, operand bytes) of each sprm in a grpprl."""
    pos = 0
    n = len(data)
    while pos + 2 <= n:
        op = struct.unpack_from("<H", data, pos)[0]
        pos += 2
        spra = op >> 13
        if spra in (0, 1):
            size = 1
        elif spra in (2, 4, 5):
            size = 2
        elif spra == 3:
            size = 4
        elif spra == 7:
            size = 3
        else:  # variable
            if pos >= n:
                break
            if op in (0xD608, 0xC615):
                if pos + 2 > n:
                    break
                size = struct.unpack_from("<H", data, pos)[0] + (0 if op == 0xD608 else 0)
                pos += 2 if op == 0xD608 else 1
                if op == 0xC615:
                    size = data[pos - 1]
            else:
                size = data[pos]
                pos += 1
        yield op, data[pos:pos + size]
        pos += size


@dataclass
class Style:
    sti: int
    name: str
    outline: int | None = None  # from the style's own paragraph properties
    base: int = 0x0FFF


def read_styles(stsh: bytes) -> list[Style | None]:
    """Styles by index (istd): built-in id and name."""
    out: list[Style | None] = []
    if len(stsh) < 6:
        return out
    cb_stshi = struct.unpack_from("<H", stsh, 0)[0]
    cstd, cb_base = struct.unpack_from("<HH", stsh, 2)
    pos = 2 + cb_stshi
    for _ in range(min(cstd, 4096)):
        if pos + 2 > len(stsh):
            break
        cb = struct.unpack_from("<H", stsh, pos)[0]
        std = stsh[pos + 2:pos + 2 + cb]
        pos += 2 + cb
        if cb == 0 or len(std) < cb_base + 2:
            out.append(None)
            continue
        sti = struct.unpack_from("<H", std, 0)[0] & 0x0FFF
        stk_base = struct.unpack_from("<H", std, 2)[0]
        cch = struct.unpack_from("<H", std, cb_base)[0]
        name = std[cb_base + 2:cb_base + 2 + 2 * cch].decode("utf-16-le", "replace")
        style = Style(sti, name, base=stk_base >> 4)
        upx = cb_base + 2 + 2 * cch + 2  # after the name and its terminating null
        upx += upx & 1
        if stk_base & 0x0F == 1 and upx + 4 <= len(std):  # a paragraph style: its PAPX first
            size = struct.unpack_from("<H", std, upx)[0]
            for op, arg in sprms(std[upx + 4:upx + 2 + size]):
                if op == 0x2640 and arg and arg[0] < 9:
                    style.outline = arg[0]
        out.append(style)
    return out


def style_outline(styles: list[Style | None], istd: int) -> int | None:
    """A style's outline level, inherited from its base styles."""
    for _ in range(16):
        style = styles[istd] if 0 <= istd < len(styles) else None
        if style is None:
            return None
        if style.outline is not None:
            return style.outline
        if 1 <= style.sti <= 9:
            return style.sti - 1
        istd = style.base
    return None


def strip_fields(text: str) -> str:
    """Text with its fields' codes removed and their shown results kept (a field is
    ``\\x13`` code ``\\x14`` result ``\\x15``; fields nest)."""
    out, depth_code = [], []
    for ch in text:
        if ch == "\x13":
            depth_code.append(True)
        elif ch == "\x14":
            if depth_code:
                depth_code[-1] = False
        elif ch == "\x15":
            if depth_code:
                depth_code.pop()
        elif not (depth_code and depth_code[-1]):
            out.append(ch)
    return "".join(out)


def plc_cps(data: bytes, item_size: int) -> list[int]:
    """The CPs of a PLC whose items are ``item_size`` bytes."""
    if len(data) < 4:
        return []
    n = (len(data) - 4) // (4 + item_size)
    return list(struct.unpack_from(f"<{n + 1}I", data, 0))


# -- character runs ----------------------------------------------------------------------------

@dataclass
class CharProps:
    style: frozenset = frozenset()
    hidden: bool = False
    special: bool = False
    pic: int | None = None  # sprmCPicLocation: the picture's offset in the Data stream


_TOGGLES = {0x0835: "bold", 0x0836: "italic", 0x0837: "strike", 0x2A53: "strike"}


class Chpx:
    """Character properties by byte offset (``PlcfBteChpx`` and its FKP pages)."""

    def __init__(self, word: bytes, plcf: bytes):
        runs = []
        if len(plcf) >= 8:
            n = (len(plcf) - 4) // 8
            for pn in struct.unpack_from(f"<{n}I", plcf, 4 * (n + 1))[:MAX_PAPX_PAGES]:
                page = (pn & 0x3FFFFF) * 512
                if page + 512 > len(word):
                    continue
                fkp = word[page:page + 512]
                crun = fkp[511]
                if crun == 0 or 5 * crun + 4 > 511:
                    continue
                fcs = struct.unpack_from(f"<{crun + 1}I", fkp, 0)
                for i in range(crun):
                    off = fkp[4 * (crun + 1) + i] * 2
                    runs.append((fcs[i], fcs[i + 1], _chpx(fkp, off) if off else CharProps()))
        runs.sort(key=lambda r: r[0])
        self._starts = [r[0] for r in runs]
        self._runs = runs
        self._last: tuple[int, int, CharProps] | None = None

    def at(self, fc: int) -> CharProps:
        last = self._last
        if last is not None and last[0] <= fc < last[1]:
            return last[2]
        i = bisect_right(self._starts, fc) - 1
        if i >= 0 and fc < self._runs[i][1]:
            self._last = self._runs[i]
            return self._runs[i][2]
        return CharProps()


def _chpx(fkp: bytes, off: int) -> CharProps:
    if off >= 511:
        return CharProps()
    data = fkp[off + 1:min(off + 1 + fkp[off], 511)]
    style: set[str] = set()
    props = CharProps()
    for op, arg in sprms(data):
        if op in _TOGGLES and arg:
            if arg[0] in (1, 0x81):
                style.add(_TOGGLES[op])
        elif op == 0x2A3E and arg:  # sprmCKul: underline kind
            if arg[0]:
                style.add("underline")
        elif op == 0x2A48 and arg:  # sprmCIss: super/subscript
            if arg[0] == 1:
                style.add("superscript")
            elif arg[0] == 2:
                style.add("subscript")
        elif op == 0x083C and arg:  # sprmCFVanish
            props.hidden = arg[0] in (1, 0x81)
        elif op == 0x0855 and arg:  # sprmCFSpec
            props.special = arg[0] in (1, 0x81)
        elif op == 0x6A03 and len(arg) >= 4:  # sprmCPicLocation
            props.pic = struct.unpack_from("<I", arg)[0]
    props.style = frozenset(style)
    return props


# -- lists ----------------------------------------------------------------------------------------

@dataclass
class Level:
    start: int
    nfc: int
    text: str  # the number text; characters 0-8 stand for the levels' numbers


_NFC = {0: "decimal", 1: "upperRoman", 2: "lowerRoman", 3: "upperLetter", 4: "lowerLetter",
        22: "decimalZero", 23: "bullet", 255: "none"}


def nfc_format(nfc: int) -> str:
    return _NFC.get(nfc, "decimal")


def read_lists(table: bytes, fib: Fib) -> tuple[dict[int, list[Level]], list[int]]:
    """List definitions by lsid, and the lsid of each LFO (``ilfo`` is 1-based into it)."""
    lists: dict[int, list[Level]] = {}
    lfos: list[int] = []
    if PLFLST < len(fib.fclcb):
        fc, lcb = fib.fclcb[PLFLST]
        if lcb >= 2 and fc + lcb <= len(table):
            count = struct.unpack_from("<h", table, fc)[0]
            defs = []
            for i in range(max(0, min(count, 4096))):
                off = fc + 2 + 28 * i
                if off + 28 > len(table):
                    break
                lsid = struct.unpack_from("<i", table, off)[0]
                simple = table[off + 26] & 1
                defs.append((lsid, 1 if simple else 9))
            pos = fc + lcb  # the LVLs follow the PlfLst
            for lsid, nlevels in defs:
                levels = []
                for _ in range(nlevels):
                    if pos + 28 > len(table):
                        break
                    start = struct.unpack_from("<i", table, pos)[0]
                    nfc = table[pos + 4]
                    cb_chpx, cb_papx = table[pos + 24], table[pos + 25]
                    pos += 28 + cb_papx + cb_chpx
                    if pos + 2 > len(table):
                        break
                    cch = struct.unpack_from("<H", table, pos)[0]
                    text = table[pos + 2:pos + 2 + 2 * cch].decode("utf-16-le", "replace")
                    pos += 2 + 2 * cch
                    levels.append(Level(start, nfc, text))
                lists[lsid] = levels
    if PLFLFO < len(fib.fclcb):
        fc, lcb = fib.fclcb[PLFLFO]
        if lcb >= 4 and fc + lcb <= len(table):
            count = struct.unpack_from("<I", table, fc)[0]
            for i in range(min(count, 65536)):
                off = fc + 4 + 16 * i
                if off + 16 > len(table):
                    break
                lfos.append(struct.unpack_from("<i", table, off)[0])
    return lists, lfos


def picture(data: bytes, offset: int, word: bytes = b"") -> tuple[bytes, str] | None:
    """A PNG or JPEG inline picture at ``offset`` of the Data stream (its PICF and blip).

    The blip is in the PICF's shape container, or, through the blip store entry's
    ``foDelay``, in the WordDocument stream (the "delay stream").
    """
    if offset + 8 > len(data):
        return None
    lcb = struct.unpack_from("<I", data, offset)[0]
    end = min(offset + lcb, len(data))
    pos = offset + struct.unpack_from("<H", data, offset + 4)[0]
    if struct.unpack_from("<H", data, offset + 6)[0] == 0x66 and pos < end:  # MM_SHAPE: a name
        pos += 1 + data[pos]
    while pos + 8 <= end:
        ver_inst, rtype, length = struct.unpack_from("<HHI", data, pos)
        if rtype in _BLIPS:
            return _blip(data, pos, end)
        if rtype == 0xF007 and pos + 8 + 36 <= end:  # OfficeArtFBSE
            fo_delay = struct.unpack_from("<I", data, pos + 8 + 28)[0]
            cb_name = data[pos + 8 + 33]
            inner = pos + 8 + 36 + cb_name
            if inner + 8 <= min(pos + 8 + length, end):
                return _blip(data, inner, min(pos + 8 + length, end))
            if word and fo_delay + 8 <= len(word):
                return _blip(word, fo_delay, len(word))
            return None
        pos += 8 if ver_inst & 0x0F == 0x0F else 8 + length  # containers: look inside
    return None


_BLIPS = (0xF01D, 0xF01E, 0xF02A)  # JPEG, PNG, CMYK JPEG


def _blip(buf: bytes, pos: int, end: int) -> tuple[bytes, str] | None:
    ver_inst, rtype, length = struct.unpack_from("<HHI", buf, pos)
    if rtype not in _BLIPS:
        return None
    inst = ver_inst >> 4
    skip = 17 + (16 if inst in (0x46B, 0x6E3, 0x6E1, 0x6E5) else 0)
    blob = buf[pos + 8 + skip:min(pos + 8 + length, end)]
    ext = image_ext(blob)
    return (blob, ext) if ext in ("png", "jpg") else None


def stored_pictures(dgg: bytes, word: bytes, limit: int = 10_000) -> list[tuple[bytes, str] | None]:
    """The blip store of the drawing group (``DggInfo``): each entry's PNG/JPEG, in order."""
    out: list[tuple[bytes, str] | None] = []
    pos = 0
    while pos + 8 <= len(dgg) and len(out) < limit:
        ver_inst, rtype, length = struct.unpack_from("<HHI", dgg, pos)
        if rtype == 0xF007 and pos + 8 + 36 <= len(dgg):  # OfficeArtFBSE
            fo_delay = struct.unpack_from("<I", dgg, pos + 8 + 28)[0]
            cb_name = dgg[pos + 8 + 33]
            inner = pos + 8 + 36 + cb_name
            end = min(pos + 8 + length, len(dgg))
            if inner + 8 <= end:
                out.append(_blip(dgg, inner, end))
            elif fo_delay + 8 <= len(word):
                out.append(_blip(word, fo_delay, len(word)))
            else:
                out.append(None)
            pos += 8 + length
        else:
            pos += 8 if ver_inst & 0x0F == 0x0F else 8 + length
    return out
