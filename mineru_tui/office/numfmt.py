"""Numbers as Office shows them: Excel number formats, and list counters.

:func:`format_number` shows a stored number as a sheet (or a chart of any format, whose
caches carry the same format codes) shows it; :func:`word_counter` and :func:`roman` write
list numbers for the Word and PowerPoint readers.

A format code has up to four ``;``-separated sections (positive; negative; zero; text),
optionally with conditions (``[>=100]``), colours (``[Red]``), currency/locale tags
(``[$€-407]``), quoted literals, ``\\x`` escapes, ``_x`` padding and ``*x`` fills.
Supported: General, digit placeholders ``0 # ?``, thousands separators and scaling
commas, percentages, scientific notation (``0.00E+00``, ``##0.0E+0``), fractions
(``# ?/?``, ``# ??/16``), dates and times (``yyyy mm dd mmm mmmm ddd dddd h hh m mm
s ss .0 AM/PM A/P``), elapsed time (``[h]:mm:ss``, ``[mm]``, ``[ss]``) and the text
placeholder ``@``. Locale-specific parts (East Asian eras, calendars) fall back to the
Gregorian English rendering. :func:`format_number` never raises: a format it cannot
read falls back to General.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta
from fractions import Fraction
from functools import lru_cache

# Built-in number formats (ECMA-376 Part 1, 18.8.30), as en-US Excel displays them.
BUILTIN_FORMATS: dict[int, str] = {
    0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
    5: '"$"#,##0_);("$"#,##0)', 6: '"$"#,##0_);[Red]("$"#,##0)',
    7: '"$"#,##0.00_);("$"#,##0.00)', 8: '"$"#,##0.00_);[Red]("$"#,##0.00)',
    9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
    14: "m/d/yyyy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy", 18: "h:mm AM/PM",
    19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss", 22: "m/d/yyyy h:mm",
    37: "#,##0_);(#,##0)", 38: "#,##0_);[Red](#,##0)", 39: "#,##0.00_);(#,##0.00)",
    40: "#,##0.00_);[Red](#,##0.00)",
    41: '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)',
    42: '_("$"* #,##0_);_("$"* \\(#,##0\\);_("$"* "-"_);_(@_)',
    43: '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)',
    44: '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)',
    45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}
# Ids 27-36 and 50-58 are East Asian locale dates/times; show them as ISO-ish dates.
for _i in (27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58):
    BUILTIN_FORMATS.setdefault(_i, "yyyy/m/d")
BUILTIN_FORMATS.setdefault(32, "h:mm")
BUILTIN_FORMATS.setdefault(33, "h:mm:ss")
BUILTIN_FORMATS.setdefault(55, "h:mm AM/PM")
BUILTIN_FORMATS.setdefault(56, "h:mm:ss")

_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def format_general(x: float) -> str:
    """Excel's General format: integers in full below 1e11, else at most ~10 digits."""
    if isinstance(x, bool):
        return "TRUE" if x else "FALSE"
    if not math.isfinite(x):
        return "#NUM!"
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e11 or ax < 1e-9:
        mant, exp = f"{x:.5E}".split("E")
        mant = mant.rstrip("0").rstrip(".")
        return f"{mant}E{exp[0]}{int(exp[1:]):02d}"
    if x == int(x):
        return str(int(x))
    # 10 significant digits, the most a default-width General column shows.
    digits = max(0, 10 - (int(math.floor(math.log10(ax))) + 1))
    s = f"{x:.{digits}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


# ---------------------------------------------------------------------------------------
# Parsing a format code into sections


class _Section:
    __slots__ = ("tokens", "cond", "kind", "has_ampm", "elapsed", "text_at", "plan")

    def __init__(self) -> None:
        self.tokens: list[tuple[str, str]] = []  # (kind, value): lit, ph, date, ...
        self.cond: tuple[str, float] | None = None
        self.kind = "number"  # number | date | general | text
        self.has_ampm = False
        self.elapsed = False
        self.text_at = False
        self.plan: tuple | None = None  # the number layout, worked out on first use


_COND_RE = re.compile(r"^(<=|>=|<>|<|>|=)\s*(-?[\d.]+(?:[eE][-+]?\d+)?)$")
_DATE_RE = re.compile(r"(yyyy|yy|e+|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|"
                      r"am/pm|a/p|\.0+|b{1,2}|g{1,3})", re.I)


def _split_sections(code: str) -> list[str]:
    out, cur, i, quote = [], [], 0, False
    while i < len(code):
        ch = code[i]
        if quote:
            cur.append(ch)
            quote = ch != '"'
        elif ch == '"':
            cur.append(ch)
            quote = True
        elif ch in "\\_*" and i + 1 < len(code):
            cur.append(code[i:i + 2])
            i += 1
        elif ch == "[":
            j = code.find("]", i)
            j = len(code) - 1 if j < 0 else j
            cur.append(code[i:j + 1])
            i = j
        elif ch == ";":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def _parse_section(src: str) -> _Section:
    sec = _Section()
    toks = sec.tokens
    i, n = 0, len(src)
    if src.strip().lower() == "general":
        sec.kind = "general"
        return sec
    while i < n:
        ch = src[i]
        if ch == '"':
            j = src.find('"', i + 1)
            j = n if j < 0 else j
            toks.append(("lit", src[i + 1:j]))
            i = j + 1
            continue
        if ch == "\\" and i + 1 < n:
            toks.append(("lit", src[i + 1]))
            i += 2
            continue
        if ch == "_" and i + 1 < n:
            toks.append(("lit", " "))
            i += 2
            continue
        if ch == "*" and i + 1 < n:  # fill to the cell width: one fill character in text
            toks.append(("lit", src[i + 1]))
            i += 2
            continue
        if ch == "[":
            j = src.find("]", i)
            j = n if j < 0 else j
            inner = src[i + 1:j]
            low = inner.lower()
            m = _COND_RE.match(inner.strip())
            if m:
                sec.cond = (m.group(1), float(m.group(2)))
            elif low.startswith("$"):  # [$€-407]: currency symbol, then locale id
                sym = inner[1:].split("-", 1)[0]
                if sym:
                    toks.append(("lit", sym))
            elif re.fullmatch(r"h+|m+|s+", low):
                toks.append(("elapsed", low))
                sec.elapsed = True
            # colours, [DBNum1], [natnum] ...: no text
            i = j + 1
            continue
        if src.lower().startswith("general", i):
            toks.append(("general", ""))
            i += 7
            continue
        if ch == "@":
            toks.append(("text", "@"))
            sec.text_at = True
            i += 1
            continue
        m = _DATE_RE.match(src, i)
        if m and not (ch in ".eE" and _number_context(toks)):
            tok = m.group(0)
            low = tok.lower()
            if low in ("am/pm", "a/p"):
                sec.has_ampm = True
                toks.append(("ampm", tok))
            elif low.startswith("."):
                toks.append(("subsec", low))
            elif low[0] in "bg":
                pass  # Buddhist/era markers: ignored
            else:
                toks.append(("date", low))
            i += len(tok)
            continue
        if ch in "0#?":
            toks.append(("ph", ch))
        elif ch in ".,%/":
            toks.append(("op", ch))
        elif ch in "Ee" and i + 1 < n and src[i + 1] in "+-":
            toks.append(("exp", src[i:i + 2]))
            i += 2
            continue
        else:
            toks.append(("lit", ch))
        i += 1
    kinds = {k for k, _ in toks}
    if kinds & {"date", "elapsed", "ampm"}:
        sec.kind = "date"
    elif sec.text_at and not kinds & {"ph", "general"}:
        sec.kind = "text"
    elif "general" in kinds and "ph" not in kinds:
        sec.kind = "general"
    return sec


def _number_context(toks: list[tuple[str, str]]) -> bool:
    """True when the previous token is a digit placeholder (so '.', 'E' are numeric)."""
    return bool(toks) and toks[-1][0] in ("ph", "op")


@lru_cache(maxsize=512)
def _parse(code: str) -> tuple[_Section, ...]:
    return tuple(_parse_section(s) for s in _split_sections(code))


def is_date_format(code: str) -> bool:
    """True when the format shows numbers as dates or times."""
    try:
        return any(s.kind == "date" for s in _parse(code))
    except Exception:
        return False


# ---------------------------------------------------------------------------------------
# Formatting


def _cond_ok(cond: tuple[str, float], x: float) -> bool:
    op, v = cond
    return {"<": x < v, ">": x > v, "=": x == v, "<=": x <= v, ">=": x >= v,
            "<>": x != v}[op]


def _pick(sections: tuple[_Section, ...], x: float) -> tuple[_Section, float, bool]:
    """The section for x, the value to show and whether a minus sign must be added.

    One section serves all numbers (negatives get a minus); with two, the second is for
    negatives and supplies its own sign; the third is for zero. With conditions
    (``[<1000]``), the first section whose condition holds wins.
    """
    num = [s for s in sections if s.kind != "text"] or list(sections)
    if any(s.cond for s in num):
        chosen = next((s for s in num if s.cond is None or _cond_ok(s.cond, x)), num[-1])
        return chosen, abs(x), x < 0
    if len(num) == 1 or x > 0 or (x == 0 and len(num) < 3):
        return num[0], abs(x), x < 0
    if x < 0:
        return num[1], abs(x), False
    return num[2], 0.0, False


def format_number(x: float, code: str | None, date1904: bool = False) -> str:
    """``x`` shown with Excel format ``code`` (General when empty or unreadable)."""
    if not code or code.lower() == "general":
        return format_general(x)
    try:
        sections = _parse(code)
        sec, v, minus = _pick(sections, x)
        if sec.kind == "general":
            out = _render_general_section(sec, v)
        elif sec.kind == "date":
            out = _format_date(sec, x, date1904)
            minus = False
        elif sec.kind == "text":
            return format_general(x)
        else:
            out = _format_num(sec, v)
        if minus and any(ch.isdigit() and ch != "0" for ch in out):
            out = "-" + out
        return out.strip()
    except Exception:  # an odd format never loses the value
        return format_general(x)


def format_text(text: str, code: str | None) -> str:
    """A text cell through its format's text section (``@`` or a 4th section)."""
    if not code or "@" not in code:
        return text
    try:
        sections = _parse(code)
        sec = next((s for s in sections if s.text_at), None)
        if sec is None:
            return text
        return "".join(text if k == "text" else v for k, v in sec.tokens
                       if k in ("lit", "text")).strip() or text
    except Exception:
        return text


def _render_general_section(sec: _Section, v: float) -> str:
    return "".join(format_general(v) if k == "general" else val
                   for k, val in sec.tokens if k in ("lit", "general"))


_Decimal = None


def _round_half_up(x: float, nd: int) -> str:
    """x with nd decimals, halves rounded away from zero like Excel (not banker's).

    Excel rounds the 15-significant-digit value it displays, so 1.005 shows as 1.01.
    """
    global _Decimal
    if _Decimal is None:
        from decimal import ROUND_HALF_UP, Decimal
        _Decimal = (Decimal, ROUND_HALF_UP, {})
    Decimal, half_up, quanta = _Decimal
    q = quanta.get(nd)
    if q is None:
        q = quanta[nd] = Decimal(1).scaleb(-nd)
    return str(Decimal(f"{x:.15g}").quantize(q, rounding=half_up))


def _num_plan(sec: _Section) -> tuple:
    """What a plain number section needs, worked out once per format code."""
    toks = sec.tokens
    kinds = [k for k, _ in toks]
    mult = 100 ** sum(1 for t in toks if t == ("op", "%"))
    last_ph = max((i for i, k in enumerate(kinds) if k == "ph"), default=-1)
    j = last_ph + 1
    while j < len(toks) and toks[j] == ("op", ","):
        mult /= 1000
        j += 1
    dot = next((i for i, t in enumerate(toks) if t == ("op", ".")), None)
    int_toks = toks[:dot] if dot is not None else toks
    frac_toks = toks[dot + 1:] if dot is not None else []
    nd = sum(1 for k, _ in frac_toks if k == "ph")
    plain_frac = all(t == ("ph", "0") for t in frac_toks[:nd]) and \
        not any(k == "ph" for k, _ in frac_toks[nd:])
    frac_suffix = "".join("" if (k, v) == ("op", ",") else v for k, v in frac_toks[nd:]) \
        if plain_frac else None
    sec.plan = (mult, _int_plan(int_toks), frac_toks, nd, dot is not None,
                _comma_between_ph(int_toks), frac_suffix)
    return sec.plan


def _format_num(sec: _Section, v: float) -> str:
    toks = sec.tokens
    if sec.plan is None:
        if any(k == "exp" for k, _ in toks):
            sec.plan = ("sci",)
        elif any(t == ("op", "/") for t in toks):
            sec.plan = ("frac",)
        else:
            _num_plan(sec)
    plan = sec.plan
    if plan[0] == "sci":
        return _format_sci(sec, v)
    if plan[0] == "frac":
        return _format_fraction(sec, v)
    mult, int_plan, frac_toks, nd, has_dot, group, frac_suffix = plan
    s = _round_half_up(v * mult if mult != 1 else v, nd)
    ipart, _, fpart = s.partition(".")
    int_text = _layout_int([], ipart.lstrip("-"), group, int_plan)
    if not has_dot:
        return int_text
    if frac_suffix is not None:  # "0.00" and friends: the digits as they are
        return int_text + "." + fpart + frac_suffix
    return int_text + "." + _layout_frac(frac_toks, fpart)


def _comma_between_ph(toks: list[tuple[str, str]]) -> bool:
    seen_ph = False
    for i, (k, v) in enumerate(toks):
        if k == "ph":
            seen_ph = True
        elif (k, v) == ("op", ",") and seen_ph and any(kk == "ph" for kk, _ in toks[i + 1:]):
            return True
    return False


def _int_plan(toks: list[tuple[str, str]]) -> tuple:
    """How to lay out the integer digits: literals before/after, minimum digits, padding."""
    phs = [i for i, (k, _) in enumerate(toks) if k == "ph"]
    if not phs:  # a format of literals only ("yes", ";;;") shows just those
        return ("lits", "".join(v if k == "lit" else v if (k, v) == ("op", "%") else ""
                                for k, v in toks))
    if any(toks[i][0] == "lit" for i in range(phs[0], phs[-1])):
        return ("interleaved", toks, phs)
    def text(part):
        return "".join("" if k == "ph" or (k, v) == ("op", ",") else v for k, v in part)
    min_digits = sum(1 for i in phs if toks[i][1] == "0")
    qs = sum(1 for i in phs if toks[i][1] == "?")
    return ("simple", text(toks[:phs[0]]), text(toks[phs[0]:]), min_digits, qs)


def _layout_int(toks: list[tuple[str, str]], digits: str, group: bool, plan=None) -> str:
    """Lay the integer digits into the placeholders right to left, literals in place."""
    if digits == "0":
        digits = ""
    plan = plan or _int_plan(toks)
    if plan[0] == "lits":
        return plan[1]
    if plan[0] == "simple":
        _, before, after, min_digits, qs = plan
        body = digits.rjust(min_digits, "0") if len(digits) < min_digits else digits
        if group and len(body) > 3:
            body = f"{int(body):,}"
        if qs and len(body) < min_digits + qs:
            body = body.rjust(min_digits + qs)
        return before + body + after
    # Interleaved literals (phone numbers, "000-00-0000"): fill digit by digit.
    _, toks, phs = plan
    rest = list(digits)
    out: list[str] = []
    for i in range(len(toks) - 1, -1, -1):
        k, v = toks[i]
        if k == "ph":
            if i == phs[0]:
                d = "".join(rest)
                rest = []
                out.append(d if d else ("0" if v == "0" else " " if v == "?" else ""))
            elif rest:
                out.append(rest.pop())
            else:
                out.append("0" if v == "0" else " " if v == "?" else "")
        elif k == "op":
            out.append("" if v == "," else v)
        else:
            out.append(v)
    return "".join(reversed(out))


def _layout_frac(toks: list[tuple[str, str]], fdigits: str) -> str:
    phs = [v for k, v in toks if k == "ph"]
    digits = list(fdigits.ljust(len(phs), "0"))
    # Optional trailing placeholders drop (#) or blank (?) their zeros.
    keep = len(digits)
    for idx in range(len(phs) - 1, -1, -1):
        if phs[idx] in "#?" and digits[idx] == "0":
            keep = idx
        else:
            break
    out, p = [], 0
    for k, v in toks:
        if k == "ph":
            if p < keep:
                out.append(digits[p])
            elif v == "?":
                out.append(" ")
            p += 1
        elif k == "op":
            out.append("" if v == "," else v)
        else:
            out.append(v)
    return "".join(out)


def _format_sci(sec: _Section, v: float) -> str:
    toks = sec.tokens
    e_at = next(i for i, (k, _) in enumerate(toks) if k == "exp")
    mant_toks, exp_toks = toks[:e_at], toks[e_at + 1:]
    sign_always = toks[e_at][1][1] == "+"
    dot = next((i for i, t in enumerate(mant_toks) if t == ("op", ".")), None)
    int_ph = sum(1 for k, _ in (mant_toks[:dot] if dot is not None else mant_toks) if k == "ph")
    nd = sum(1 for k, _ in mant_toks[dot + 1:] if k == "ph") if dot is not None else 0
    exp_digits = max(1, sum(1 for k, v in exp_toks if k == "ph" and v == "0"))
    if v == 0:
        exp = 0
    else:
        exp = int(math.floor(math.log10(abs(v))))
        if int_ph > 1:  # engineering notation: exponent a multiple of the int digits
            exp -= exp % int_ph
    mant = v / (10 ** exp) if v else 0.0
    ms = _round_half_up(mant, nd)
    if float(ms) >= 10 ** max(1, int_ph):  # 9.99 rounded up to 10.0
        exp += max(1, int_ph)
        ms = _round_half_up(v / (10 ** exp), nd)
    first_ph = next((i for i, (k, _) in enumerate(mant_toks) if k == "ph"), len(mant_toks))
    lead = "".join(val for k, val in mant_toks[:first_ph] if k == "lit")
    last_ph = max((i for i, (k, _) in enumerate(exp_toks) if k == "ph"), default=-1)
    tail = "".join(val for k, val in exp_toks[last_ph + 1:] if k == "lit")
    sign = "-" if exp < 0 else ("+" if sign_always else "")
    return f"{lead}{ms}E{sign}{abs(exp):0{exp_digits}d}{tail}"


def _format_fraction(sec: _Section, v: float) -> str:
    toks = sec.tokens
    slash = next(i for i, t in enumerate(toks) if t == ("op", "/"))
    den_toks = toks[slash + 1:]
    fixed = "".join(val for k, val in den_toks if k == "lit" and val.isdigit())
    den_width = sum(1 for k, _ in den_toks if k == "ph") or len(fixed) or 1
    before = toks[:slash]
    # Split the part before the slash into [integer placeholders] [literal gap] [numerator].
    ph_idx = [i for i, (k, _) in enumerate(before) if k == "ph"]
    gap = next((i for i in range(len(before) - 1, -1, -1)
                if before[i][0] == "lit" and i < (ph_idx[-1] if ph_idx else 0)), None)
    has_int = gap is not None and any(before[i][0] == "ph" for i in range(gap))
    num_width = sum(1 for i in ph_idx if gap is None or i > gap)
    whole = int(v) if has_int else 0
    rem = v - whole
    if fixed:
        den = int(fixed)
        num = int(round(rem * den))
    else:
        f = Fraction(rem).limit_denominator(10 ** den_width - 1)
        num, den = f.numerator, f.denominator
    if has_int and num == den:
        whole, num = whole + 1, 0
    lead = "".join(val for k, val in before[:ph_idx[0]] if k == "lit") if ph_idx else ""
    if has_int:
        if num == 0:
            return f"{lead}{whole}"
        w = str(whole) if whole else ""
        return f"{lead}{w} {num:>{num_width}}/{den}".strip() if w else \
            f"{lead}{num:>{num_width}}/{den:<{den_width}}".strip()
    return f"{lead}{num:>{num_width}}/{den}".strip()


# ---------------------------------------------------------------------------------------
# Dates


def serial_to_datetime(serial: float, date1904: bool = False) -> datetime | None:
    """An Excel date serial as a datetime (None when out of range)."""
    if date1904:
        base = datetime(1904, 1, 1)
    elif serial < 60:
        base = datetime(1899, 12, 31)  # Excel's day 1 is 1900-01-01 and its 1900-02-29 is fake
    else:
        base = datetime(1899, 12, 30)
    try:
        return base + timedelta(days=serial)
    except (OverflowError, ValueError):
        return None


def datetime_to_serial(dt: datetime, date1904: bool = False) -> float:
    """The Excel serial of a datetime (for cells stored as ISO dates, ``t="d"``)."""
    base = datetime(1904, 1, 1) if date1904 else datetime(1899, 12, 30)
    delta = dt - base
    serial = delta.days + delta.seconds / 86400 + delta.microseconds / 86400e6
    if not date1904 and serial < 61:
        serial -= 1
    return serial


def _format_date(sec: _Section, serial: float, date1904: bool) -> str:
    toks = sec.tokens
    subsec = max((len(v) - 1 for k, v in toks if k == "subsec"), default=0)
    # Excel rounds to the shown precision before splitting into fields.
    unit = 86400 * (10 ** subsec)
    ticks = round(serial * unit)
    if ticks < 0:
        return "#" * 8  # Excel shows ##### for negative dates
    days, rem = divmod(ticks, unit)
    dt = serial_to_datetime(days, date1904)
    if dt is None:
        return format_general(serial)
    secs_total, frac = divmod(rem, 10 ** subsec)
    hh, r = divmod(secs_total, 3600)
    mi, ss = divmod(r, 60)
    fake_feb29 = not date1904 and days == 60
    # Decide which m/mm mean minutes: right after an hour or right before a second.
    kinds = [(k, v) for k, v in toks]
    minute_at = set()
    for i, (k, v) in enumerate(kinds):
        if k == "date" and v in ("m", "mm"):
            prev = next(((kk, vv) for kk, vv in reversed(kinds[:i]) if kk in ("date", "elapsed")), None)
            nxt = next(((kk, vv) for kk, vv in kinds[i + 1:] if kk in ("date", "elapsed")), None)
            if (prev and prev[1][0] == "h") or (nxt and nxt[1][0] == "s"):
                minute_at.add(i)
    out = []
    for i, (k, v) in enumerate(kinds):
        if k == "lit" or k == "text":
            out.append(v)
        elif k == "op":
            out.append(v)
        elif k == "ph":
            out.append("0" if v == "0" else "")
        elif k == "ampm":
            am = hh < 12
            if v.lower() == "a/p":
                out.append(("a" if am else "p") if v[0].islower() else ("A" if am else "P"))
            else:
                out.append("AM" if am else "PM")
        elif k == "subsec":
            out.append("." + str(frac).rjust(subsec, "0")[: len(v) - 1] if subsec else "")
        elif k == "elapsed":
            total = ticks / (10 ** subsec)
            n = {"h": total // 3600, "m": total // 60, "s": total}[v[0]]
            out.append(str(int(n)).rjust(len(v), "0"))
        elif k == "date":
            out.append(_date_field(v, i in minute_at, dt, hh, mi, ss, sec, fake_feb29,
                                   elapsed=sec.elapsed))
    return "".join(out)


def _date_field(v: str, minute: bool, dt: datetime, hh: int, mi: int, ss: int,
                sec: _Section, fake_feb29: bool, elapsed: bool) -> str:
    c = v[0]
    if c == "y" or c == "e":
        return str(dt.year)[-2:] if v in ("y", "yy") else str(dt.year)
    if c == "m" and minute:
        return f"{mi:02d}" if v == "mm" else str(mi)
    if c == "m":
        month = 2 if fake_feb29 else dt.month
        if v == "m":
            return str(month)
        if v == "mm":
            return f"{month:02d}"
        if v == "mmm":
            return _MONTHS[month - 1][:3]
        if v == "mmmmm":
            return _MONTHS[month - 1][0]
        return _MONTHS[month - 1]
    if c == "d":
        day = 29 if fake_feb29 else dt.day
        if v == "d":
            return str(day)
        if v == "dd":
            return f"{day:02d}"
        name = "Wednesday" if fake_feb29 else _DAYS[dt.weekday()]
        return name[:3] if v == "ddd" else name
    if c == "h":
        h = hh
        if sec.has_ampm:
            h = h % 12 or 12
        return f"{h:02d}" if v == "hh" else str(h)
    if c == "s":
        return f"{ss:02d}" if v == "ss" else str(ss)
    return v


# ---------------------------------------------------------------------------------------
# Counters (list numbers in Word and PowerPoint)

_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def roman(n: int) -> str:
    """``n`` in lower-case Roman numerals; outside 1..3999 (none exist) its digits."""
    if n <= 0 or n >= 4000:
        return str(n)
    out = []
    for value, letters in _ROMAN:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


MAX_LETTERS = 10  # a letter label longer than this is written in digits


def _letters(n: int) -> str:
    # Word repeats the letter: a..z, aa..zz, aaa... A count from a crafted start value
    # (2,000,000,000) would repeat it 77 million times: past MAX_LETTERS, digits.
    repeat = (n - 1) // 26 + 1
    if n <= 0 or repeat > MAX_LETTERS:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * repeat


def word_counter(n: int, fmt: str) -> str:
    """A Word list counter in its ``w:numFmt`` (unknown formats fall back to decimal)."""
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


def _alpha(n: int) -> str:  # 1 -> a, 27 -> aa
    out = ""
    while n > 0:
        n, rem = divmod(n - 1, 26)
        out = chr(ord("a") + rem) + out
    return out or "a"


def number_marker(scheme: str, n: int) -> str:
    """The marker text of item ``n`` in an ``a:buAutoNum`` scheme ("3.", "c)", "(iv)")."""
    if scheme.startswith("alphaLc"):
        body = _alpha(n)
    elif scheme.startswith("alphaUc"):
        body = _alpha(n).upper()
    elif scheme.startswith("romanLc"):
        body = roman(n)
    elif scheme.startswith("romanUc"):
        body = roman(n).upper()
    else:  # arabic* and the East Asian / circled schemes: plain digits
        body = str(n)
    if scheme.endswith("ParenBoth"):
        return f"({body})"
    if scheme.endswith("ParenR"):
        return f"{body})"
    if scheme.endswith("Plain") or scheme.endswith("Minus"):
        return f"{body}." if scheme.startswith("arabic") else body
    return f"{body}."
