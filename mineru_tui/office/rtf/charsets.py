"""RTF character sets (``\\fcharsetN``) and code pages (``\\ansicpgN``) as Python codecs."""

from __future__ import annotations

import codecs

# \fcharset values (the Windows LOGFONT charsets) to code pages.
FCHARSET = {0: "cp1252", 2: None, 77: "mac_roman", 78: "shift_jis", 79: "mac_korean",
            80: "gb2312", 81: "big5", 128: "cp932", 129: "cp949", 130: "johab", 134: "gbk",
            136: "cp950", 161: "cp1253", 162: "cp1254", 163: "cp1258", 177: "cp1255",
            178: "cp1256", 186: "cp1257", 204: "cp1251", 222: "cp874", 238: "cp1250",
            254: "cp437", 255: "cp437"}

DBCS = {"cp932", "shift_jis", "cp949", "johab", "gbk", "gb2312", "cp950", "big5"}


def codec_for_cpg(cpg: int) -> str | None:
    """A Python codec for Windows code page ``cpg`` (None when Python has none)."""
    name = {10000: "mac_roman", 65001: "utf-8", 20127: "ascii", 28591: "latin-1",
            936: "gbk", 932: "cp932", 949: "cp949", 950: "cp950"}.get(cpg, f"cp{cpg}")
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    return name


def codec_for_charset(charset: int) -> str | None:
    name = FCHARSET.get(charset)
    return name if name and codec_for_cpg_name(name) else None


def codec_for_cpg_name(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True
