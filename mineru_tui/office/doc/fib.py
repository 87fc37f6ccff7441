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
from bisect import bisect_right
from dataclasses import dataclass

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


def read_pieces(clx: bytes) -> list[Piece]:
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
        raw = struct.unpack_from("<I", plc, 4 * (n + 1) + 8 * i + 2)[0]
        compressed = bool(raw & 0x40000000)
        fc = raw & 0x3FFFFFFF
        out.append(Piece(cps[i], cps[i + 1], fc // 2 if compressed else fc, compressed))
    return out


def text_of(word: bytes, pieces: list[Piece]) -> tuple[str, list[int]]:
    """The document's characters in CP order, and each character's byte offset (fc)."""
    chars: list[str] = []
    fcs: list[int] = []
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


def plc_cps(data: bytes, item_size: int) -> list[int]:
    """The CPs of a PLC whose items are ``item_size`` bytes."""
    if len(data) < 4:
        return []
    n = (len(data) - 4) // (4 + item_size)
    return list(struct.unpack_from(f"<{n + 1}I", data, 0))
