"""OMML (Office Math Markup Language) → LaTeX.

Word stores equations as OMML (``m:oMath`` inline, ``m:oMathPara`` for display);
PowerPoint wraps the same markup in ``a14:m``. :func:`omml_to_latex` walks that
tree recursively, one function per construct, and returns compact, conventional
LaTeX without ``$`` delimiters (``\\frac{a}{b}``, ``x^{2}``, ``\\sum_{i=1}^{n}``).

Nothing is dropped silently: elements it does not know are walked for their
children, so their text still comes out. Characters are mapped through the
tables in :mod:`mineru_tui.office.omml_symbols`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from mineru_tui.office.omml_symbols import (
    ACCENTS,
    DELIMITERS,
    FUNCTIONS,
    INTEGRALS,
    LIMIT_FUNCTIONS,
    MATRIX_ENVS,
    NARY,
    SUBSCRIPTS as _SUBSCRIPTS,
    SUPERSCRIPTS as _SUPERSCRIPTS,
    SYMBOLS,
    math_alphanumeric,
)

if TYPE_CHECKING:
    from lxml.etree import _Element

M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_M = "{" + M_NS + "}"
_W = "{" + W_NS + "}"
_VAL = _M + "val"

# Deeper trees than this are flattened to text: hostile files must not exhaust the stack.
_MAX_DEPTH = 60

# m:scr and m:sty (run properties) → the LaTeX font command for letters.
_SCRIPT_FONTS = {
    "double-struck": r"\mathbb", "script": r"\mathcal", "fraktur": r"\mathfrak",
    "sans-serif": r"\mathsf", "monospace": r"\mathtt",
}
_STYLE_FONTS = {"p": r"\mathrm", "b": r"\mathbf", "bi": r"\boldsymbol", "i": ""}
# Fonts that also apply to digits (\mathcal{1} and \mathfrak{1} are not meaningful).
_DIGIT_FONTS = frozenset({r"\mathbf", r"\boldsymbol", r"\mathbb", r"\mathsf", r"\mathtt"})

# Word elements inside math whose content is not part of the visible equation.
_W_SKIP = frozenset({
    "del", "moveFrom", "rPr", "pPr", "delText", "instrText", "delInstrText",
    "bookmarkStart", "bookmarkEnd", "proofErr", "commentRangeStart",
    "commentRangeEnd", "commentReference", "permStart", "permEnd", "lastRenderedPageBreak",
})

_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&",
    "#": r"\#", "_": r"\_", "$": r"\$", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
}
_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[ \t\r\n]+|[%s]+|[%s]+|." % (
    "".join(_SUPERSCRIPTS), "".join(_SUBSCRIPTS)), re.S)
_ENDS_WITH_WORD_COMMAND = re.compile(r"\\[A-Za-z]+$")
_ALIGN_MARK = re.compile(r"(?<!\\)&")


@dataclass(frozen=True)
class _Ctx:
    """Where we are in the tree; passed down, never mutated."""

    fname: bool = False  # inside m:fName: letter runs are operator names
    align: bool = False  # a direct row of m:eqArr: "&" is an alignment mark
    depth: int = 0

    def arg(self) -> _Ctx:
        """Context for an argument (script, numerator...): flags reset."""
        return _Ctx(depth=self.depth + 1)

    def base(self) -> _Ctx:
        """Context for a base position: an operator name stays an operator name."""
        return _Ctx(fname=self.fname, depth=self.depth + 1)


def omml_to_latex(element: _Element) -> str:
    """Convert an ``m:oMath`` or ``m:oMathPara`` lxml element to LaTeX (no ``$``).

    An ``m:oMathPara`` holding several ``m:oMath`` gives one line each, joined with
    ``\\\\``. Any other element (for example PowerPoint's ``a14:m`` wrapper) is
    searched for the equations it holds; failing that it is converted as OMML.
    """
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag == _M + "oMathPara":
        return _lines(element.iterchildren(_M + "oMath"))
    if tag == _M + "oMath":
        return _top(element)
    outermost = [e for e in element.iter(_M + "oMathPara", _M + "oMath")
                 if not _inside_math(e, element)]
    if outermost:
        return _lines(outermost, flatten_paras=True)
    return _top(element)


def _inside_math(el, stop) -> bool:
    """Whether ``el`` has an oMath/oMathPara ancestor below ``stop``."""
    for ancestor in el.iterancestors():
        if ancestor is stop:
            return False
        if ancestor.tag in (_M + "oMath", _M + "oMathPara"):
            return True
    return False


def _lines(maths, flatten_paras: bool = False) -> str:
    lines = []
    for math in maths:
        if flatten_paras and math.tag == _M + "oMathPara":
            line = _lines(math.iterchildren(_M + "oMath"))
        else:
            line = _top(math)
        if line:
            lines.append(line)
    return r" \\ ".join(lines)


def _top(element) -> str:
    try:
        return _children(element, _Ctx()).strip()
    except RecursionError:  # deeper than the depth guard allows (pathological nesting)
        return _as_text(element)


# --- tree walking ---------------------------------------------------------------------


def _convert(el, ctx: _Ctx) -> str:
    """LaTeX for one element (any namespace)."""
    tag = el.tag
    if not isinstance(tag, str):  # comments, processing instructions
        return ""
    if ctx.depth > _MAX_DEPTH:
        return _as_text(el)
    ns, _, local = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    if ns == M_NS:
        if local.endswith("Pr"):  # m:rPr, m:fPr, m:ctrlPr...: properties, no content
            return ""
        handler = _HANDLERS.get(local)
        return handler(el, ctx) if handler else _children(el, ctx)
    if ns == W_NS:
        if local in _W_SKIP:
            return ""
        if local == "r":
            return _format_text(_run_text(el), ("text",), ctx)
        return _children(el, ctx)
    if ns == MC_NS and local == "AlternateContent":
        choice = el.find("{%s}Choice" % MC_NS)
        if choice is None:
            choice = el.find("{%s}Fallback" % MC_NS)
        return _children(choice, ctx) if choice is not None else ""
    return _children(el, ctx)


def _children(el, ctx: _Ctx) -> str:
    """Concatenate the children of ``el``; adjacent runs of one style are merged first."""
    parts: list[str] = []
    pending_key = None
    pending_text: list[str] = []

    def flush() -> None:
        if pending_text:
            parts.append(_format_text("".join(pending_text), pending_key, ctx))
            pending_text.clear()

    for child in el:
        if child.tag == _M + "r":
            key, text = _run(child)
            if key != pending_key:
                flush()
                pending_key = key
            pending_text.append(text)
            continue
        out = _convert(child, ctx)
        if out:
            flush()
            parts.append(out)
    flush()
    return _cat(parts)


def _cat(parts: list[str]) -> str:
    """Join LaTeX pieces, adding a space only where TeX needs one (``\\pi r``)."""
    out: list[str] = []
    for part in parts:
        if not part:
            continue
        if out and part[0].isalnum() and _ENDS_WITH_WORD_COMMAND.search(out[-1]):
            out.append(" ")
        elif out and part[0] in "^_'" and ("^" if part[0] == "'" else part[0]) in _top_scripts(out[-1]):
            out.append("{}")  # x^{2}' or x^{2}^{3} would be a double superscript
        out.append(part)
    return "".join(out)


def _arg(el, ctx: _Ctx) -> str:
    """LaTeX of an optional argument element (m:e, m:sub...), "" when absent."""
    return _children(el, ctx).strip() if el is not None else ""


def _child(el, local: str):
    return el.find(_M + local)


def _prop_node(el, pr: str, name: str):
    props = el.find(_M + pr)
    return props.find(_M + name) if props is not None else None


def _prop(el, pr: str, name: str) -> str | None:
    """The m:val of ``el/m:<pr>/m:<name>``, None when absent (so the default applies)."""
    node = _prop_node(el, pr, name)
    return node.get(_VAL) if node is not None else None


def _flag(el, pr: str, name: str, default: bool = False) -> bool:
    """An OOXML on/off property: present without a value means on."""
    node = _prop_node(el, pr, name)
    if node is None:
        return default
    return node.get(_VAL, "on").strip().lower() in ("1", "on", "true")


def _as_text(el) -> str:
    """Fallback: the element's text, escaped, as one ``\\text{}``."""
    text = "".join(t.text or "" for t in el.iter(_M + "t", _W + "t"))
    return _text_mode(text)


# --- runs and text --------------------------------------------------------------------


def _run(r) -> tuple[tuple, str]:
    """(style key, text) of an m:r. The key groups runs that format alike."""
    rpr = r.find(_M + "rPr")
    scr = sty = None
    nor = False
    if rpr is not None:
        node = rpr.find(_M + "scr")
        scr = node.get(_VAL) if node is not None else None
        node = rpr.find(_M + "sty")
        sty = node.get(_VAL) if node is not None else None
        node = rpr.find(_M + "nor")
        nor = node is not None and node.get(_VAL, "on").lower() in ("1", "on", "true")
    texts = []
    for child in r:
        if child.tag == _M + "t":
            texts.append(child.text or "")
        elif child.tag == _W + "t":  # Word text inside a math run: normal text
            nor = True
            texts.append(child.text or "")
        elif child.tag == _W + "tab":
            texts.append(" ")
    return ("math", scr, sty, nor), "".join(texts)


def _run_text(r) -> str:
    """Text of a w:r (Word run) found inside math."""
    out = []
    for child in r:
        if child.tag == _W + "t":
            out.append(child.text or "")
        elif child.tag in (_W + "tab", _W + "br", _W + "cr"):
            out.append(" ")
    return "".join(out)


def _format_text(text: str, key: tuple, ctx: _Ctx) -> str:
    if not text:
        return ""
    if key[0] == "text":
        return _text_mode(text) if text.strip() else _spaces(text)
    _, scr, sty, nor = key
    if nor:
        if not text.strip():
            return _spaces(text)
        if text.isascii() and text.isalpha():
            return _letters(text, r"\mathrm", ctx)
        if text.isascii() and text.isalnum():
            return text if text.isdigit() else r"\mathrm{%s}" % text
        return _text_mode(text)
    font = _SCRIPT_FONTS.get(scr or "") or _STYLE_FONTS.get(sty or "i", "")
    return _math_text(text, font, ctx)


def _spaces(text: str) -> str:
    """Whitespace that Word shows between math items."""
    return r"\quad" if len(text) > 1 else r"\ "


def _text_mode(text: str) -> str:
    if not text:
        return ""
    return r"\text{%s}" % "".join(_TEXT_ESCAPES.get(c, c) for c in text)


def _math_text(text: str, font: str, ctx: _Ctx) -> str:
    """Math-mode LaTeX for a run's text in font ``font`` ("" = default math italic)."""
    tokens = _TOKEN.findall(text)
    out: list[str] = []
    foreign: list[str] = []  # letters of other scripts (CJK, Cyrillic...): \text{}

    def flush_foreign() -> None:
        if foreign:
            out.append(_text_mode("".join(foreign)))
            foreign.clear()

    for i, tok in enumerate(tokens):
        first = tok[0]
        if first.isascii() and first.isalpha():
            flush_foreign()
            out.append(_letters(tok, font, ctx))
        elif first.isascii() and first.isdigit():
            flush_foreign()
            out.append(r"%s{%s}" % (font, tok) if font in _DIGIT_FONTS else tok)
        elif first in " \t\r\n":
            flush_foreign()
            if len(tok) > 1:
                out.append(r"\quad")
            elif 0 < i < len(tokens) - 1 and tokens[i - 1][-1].isalnum() and tokens[i + 1][0].isalnum():
                out.append(r"\ ")  # "group with text": keep the words apart
        elif first == "&" and ctx.align:
            flush_foreign()
            out.append("&")
        elif first == "#" and ctx.align:  # Word's equation-number mark: "E=mc^2#(1)"
            flush_foreign()
            out.append(r"\qquad")
        elif first in _SUPERSCRIPTS or first in _SUBSCRIPTS:
            flush_foreign()
            table, mark = (_SUPERSCRIPTS, "^") if first in _SUPERSCRIPTS else (_SUBSCRIPTS, "_")
            out.append("%s{%s}" % (mark, _cat([table[c] for c in tok])))
        elif unicodedata.combining(first) and first in ACCENTS and (out or foreign):
            flush_foreign()
            out[-1] = _accent_last(out[-1], ACCENTS[first][0])
        else:
            latex = _symbol(first, font)
            if latex is None:
                foreign.append(first)
            else:
                flush_foreign()
                out.append(latex)
    flush_foreign()
    return _cat(out)


def _letters(word: str, font: str, ctx: _Ctx) -> str:
    """A run of ASCII letters: a function name, an operator name or styled letters."""
    upright = font == r"\mathrm" or ctx.fname
    if upright and word in FUNCTIONS:
        return "\\" + word
    if ctx.fname and len(word) > 1:
        return r"\operatorname{%s}" % word
    return r"%s{%s}" % (font, word) if font else word


def _symbol(ch: str, font: str) -> str | None:
    """Math LaTeX for one non-ASCII-alphanumeric character; None for foreign letters."""
    latex = SYMBOLS.get(ch)
    if latex is not None:
        bold = font in (r"\mathbf", r"\boldsymbol")
        if bold and latex.startswith("\\") and unicodedata.category(ch).startswith("L"):
            return r"\boldsymbol{%s}" % latex  # bold Greek
        return latex
    latex = math_alphanumeric(ch)
    if latex is not None:
        return latex
    if unicodedata.category(ch).startswith("L"):
        return None
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
        return ""
    if unicodedata.category(ch) == "Zs":
        return r"\ "
    return ch


def _chars(text: str) -> str:
    """Math LaTeX for characters taken from a property (m:chr, m:begChr...)."""
    return _math_text(text, "", _Ctx())


def _accent_last(token: str, command: str) -> str:
    """Put a combining accent (typed after its letter) on the token's last letter."""
    if len(token) > 1 and token.isascii() and token.isalpha():
        return r"%s%s{%s}" % (token[:-1], command, token[-1])
    return r"%s{%s}" % (command, token)


# --- structures -------------------------------------------------------------------------


def _is_atom(latex: str) -> bool:
    """One character or one bare command: accents stay narrow, no braces needed."""
    return len(latex) <= 1 or re.fullmatch(r"\\[A-Za-z]+|\\[a-z]+\{(?:.|\\[A-Za-z]+)\}", latex) is not None


def _brace_depths(latex: str, start: int = 0):
    """(index, char, depth) for each character of ``latex[start:]`` that no backslash escapes.

    A backslash and the character after it are skipped; depth is the brace depth after the
    character (a ``{`` counts itself, a ``}`` reports the depth it closes back to).
    """
    depth = 0
    escaped = False
    for i in range(start, len(latex)):
        c = latex[i]
        if escaped:
            escaped = False
            continue
        if c == "\\":
            escaped = True
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        yield i, c, depth


def _top_scripts(latex: str) -> set[str]:
    """The script marks (^ _ ') that ``latex`` has outside braces."""
    return {c for _, c, depth in _brace_depths(latex) if c in "^_'" and depth == 0}


def _script_base(el, ctx: _Ctx) -> str:
    base = _arg(_child(el, "e"), ctx.base())
    if not base:
        return "{}"
    return "{%s}" % base if _top_scripts(base) else base  # x^{2} as a base needs braces


def _sup(sup: str) -> str:
    if sup and set(sup) == {"'"}:  # x′ is stored as a superscript prime
        return sup
    return "^{%s}" % sup if sup else ""


def _sub(sub: str) -> str:
    return "_{%s}" % sub if sub else ""


def _do_ssup(el, ctx: _Ctx) -> str:
    return _script_base(el, ctx) + _sup(_arg(_child(el, "sup"), ctx.arg()))


def _do_ssub(el, ctx: _Ctx) -> str:
    return _script_base(el, ctx) + _sub(_arg(_child(el, "sub"), ctx.arg()))


def _do_ssubsup(el, ctx: _Ctx) -> str:
    sub = _arg(_child(el, "sub"), ctx.arg())
    sup = _arg(_child(el, "sup"), ctx.arg())
    if sup and set(sup) == {"'"}:
        sup = r"\prime" * len(sup)  # x_{1}^{'} would raise the prime twice
    return _script_base(el, ctx) + _sub(sub) + ("^{%s}" % sup if sup else "")


def _do_spre(el, ctx: _Ctx) -> str:
    sub = _arg(_child(el, "sub"), ctx.arg())
    sup = _arg(_child(el, "sup"), ctx.arg())
    base = _arg(_child(el, "e"), ctx.base())
    pre = ("{}" + _sub(sub) + ("^{%s}" % sup if sup else "")) if (sub or sup) else ""
    return pre + base


def _do_f(el, ctx: _Ctx) -> str:
    num = _arg(_child(el, "num"), ctx.arg())
    den = _arg(_child(el, "den"), ctx.arg())
    kind = _prop(el, "fPr", "type") or "bar"
    if kind in ("lin", "skw"):
        return "%s/%s" % (num if _is_atom(num) else "{%s}" % num, den if _is_atom(den) else "{%s}" % den)
    if kind == "noBar":
        return r"\genfrac{}{}{0pt}{}{%s}{%s}" % (num, den)
    return r"\frac{%s}{%s}" % (num, den)


def _do_rad(el, ctx: _Ctx) -> str:
    body = _arg(_child(el, "e"), ctx.arg())
    deg = "" if _flag(el, "radPr", "degHide") else _arg(_child(el, "deg"), ctx.arg())
    if deg:
        if "]" in deg:
            deg = "{%s}" % deg
        return r"\sqrt[%s]{%s}" % (deg, body)
    return r"\sqrt{%s}" % body


def _do_nary(el, ctx: _Ctx) -> str:
    ch = _prop(el, "naryPr", "chr")
    ch = "∫" if ch is None else ch
    if ch == "":
        op = ""  # an n-ary object with no operator character: only its limits show
    else:
        op = NARY.get(ch) or r"\mathop{%s}" % _chars(ch)
    sub = "" if _flag(el, "naryPr", "subHide") else _arg(_child(el, "sub"), ctx.arg())
    sup = "" if _flag(el, "naryPr", "supHide") else _arg(_child(el, "sup"), ctx.arg())
    loc = _prop(el, "naryPr", "limLoc")
    limits = ""
    if (sub or sup) and op:
        # Word's defaults (integrals beside, others under/over) match LaTeX's; say so only when not.
        if loc == "undOvr" and op in INTEGRALS:
            limits = r"\limits"
        elif loc == "subSup" and op not in INTEGRALS:
            limits = r"\nolimits"
    if sub or sup:
        head = (op or "{}") + limits + _sub(sub) + ("^{%s}" % sup if sup else "")
    else:
        head = op
    return _cat([head, _arg(_child(el, "e"), ctx.arg())])


def _delimiter(ch: str) -> str | None:
    return "." if ch == "" else DELIMITERS.get(ch)


def _only_child(el, local: str):
    """The one meaningful child of ``el`` if it is an m:<local>, else None."""
    if el is None:
        return None
    kids = [c for c in el if isinstance(c.tag, str) and not c.tag.endswith("Pr")]
    return kids[0] if len(kids) == 1 and kids[0].tag == _M + local else None


def _do_d(el, ctx: _Ctx) -> str:
    beg = _prop(el, "dPr", "begChr")
    end = _prop(el, "dPr", "endChr")
    sep = _prop(el, "dPr", "sepChr")
    beg = "(" if beg is None else beg
    end = ")" if end is None else end
    sep = "|" if sep is None else sep
    items = list(el.iterchildren(_M + "e"))
    if len(items) == 1:
        matrix = _only_child(items[0], "m")
        if matrix is not None and (beg, end) in MATRIX_ENVS and not _matrix_aligns(matrix):
            return _matrix(matrix, ctx, MATRIX_ENVS[(beg, end)])
        frac = _only_child(items[0], "f")
        if frac is not None and (beg, end) == ("(", ")") and _prop(frac, "fPr", "type") == "noBar":
            num, den = _arg(_child(frac, "num"), ctx.arg()), _arg(_child(frac, "den"), ctx.arg())
            return r"\binom{%s}{%s}" % (num, den)
    sep_latex = DELIMITERS.get(sep) or _chars(sep)
    body = sep_latex.join(_arg(e, ctx.arg()) for e in items)
    left, right = _delimiter(beg), _delimiter(end)
    if left is None or right is None or not _flag(el, "dPr", "grow", default=True):
        # Not stretchable (or told not to grow): plain characters.
        return _cat([_chars(beg), body, _chars(end)])
    return _cat([r"\left" + left, body, r"\right" + right])


def _matrix_aligns(m) -> str:
    """Column alignments ("lcr") of an m:m when any column is not centred, else ""."""
    cols = []
    mcs = m.find(_M + "mPr/" + _M + "mcs")
    if mcs is not None:
        for mc in mcs.iterchildren(_M + "mc"):
            jc = _prop(mc, "mcPr", "mcJc") or "center"
            count = _prop(mc, "mcPr", "count")
            n = int(count) if count and count.isdigit() else 1
            cols.extend(["l" if jc == "left" else "r" if jc == "right" else "c"] * min(n, 64))
    if all(c == "c" for c in cols):
        return ""
    width = max((len(list(r.iterchildren(_M + "e"))) for r in m.iterchildren(_M + "mr")), default=0)
    cols = (cols + ["c"] * width)[:max(width, 1)]
    return "".join(cols)


def _matrix(m, ctx: _Ctx, env: str = "matrix") -> str:
    rows = [" & ".join(_arg(e, ctx.arg()) for e in mr.iterchildren(_M + "e"))
            for mr in m.iterchildren(_M + "mr")]
    body = r" \\ ".join(rows)
    aligns = _matrix_aligns(m)
    if aligns:  # a column not centred: array (any delimiters come from the m:d around it)
        return r"\begin{array}{%s}%s\end{array}" % (aligns, body)
    return r"\begin{%s}%s\end{%s}" % (env, body, env)


def _do_m(el, ctx: _Ctx) -> str:
    return _matrix(el, ctx)


def _do_eqarr(el, ctx: _Ctx) -> str:
    rows = [_children(e, _Ctx(align=True, depth=ctx.depth + 1)).strip()
            for e in el.iterchildren(_M + "e")]
    if not rows:
        return ""
    if len(rows) == 1:  # one row needs no environment, and so no alignment marks
        return _ALIGN_MARK.sub("", rows[0])
    env = "aligned" if any(_ALIGN_MARK.search(r) for r in rows) else "gathered"
    return r"\begin{%s}%s\end{%s}" % (env, r" \\ ".join(rows), env)


def _do_acc(el, ctx: _Ctx) -> str:
    ch = _prop(el, "accPr", "chr")
    ch = "\u0302" if ch is None else ch
    base = _arg(_child(el, "e"), ctx.arg())
    if ch in ACCENTS:
        narrow, wide = ACCENTS[ch]
        return r"%s{%s}" % (narrow if _is_atom(base) else wide, base)
    if ch == "":
        return base
    return r"\overset{%s}{%s}" % (_chars(ch), base)


def _do_bar(el, ctx: _Ctx) -> str:
    base = _arg(_child(el, "e"), ctx.arg())
    return (r"\overline{%s}" if _prop(el, "barPr", "pos") == "top" else r"\underline{%s}") % base


_GROUP_ARROWS = {  # arrow character → (under the base: base sits on the arrow, over the base)
    "→": (r"\xrightarrow", r"\overrightarrow"), "←": (r"\xleftarrow", r"\overleftarrow"),
    "↔": (r"\xleftrightarrow", r"\overleftrightarrow"), "⇒": (r"\xRightarrow", None),
    "⇐": (r"\xLeftarrow", None), "⇔": (r"\xLeftrightarrow", None),
    "⟶": (r"\xrightarrow", r"\overrightarrow"), "⟵": (r"\xleftarrow", r"\overleftarrow"),
}


def _do_groupchr(el, ctx: _Ctx) -> str:
    ch = _prop(el, "groupChrPr", "chr")
    ch = "⏟" if ch is None else ch
    pos = _prop(el, "groupChrPr", "pos") or "bot"
    base = _arg(_child(el, "e"), ctx.arg())
    if ch == "⏟":
        return r"\underbrace{%s}" % base
    if ch == "⏞":
        return r"\overbrace{%s}" % base
    if ch in _GROUP_ARROWS:
        under, over = _GROUP_ARROWS[ch]
        if pos == "top" and over:
            return r"%s{%s}" % (over, base)
        if pos != "top":
            return r"%s{%s}" % (under, base)
    if ch == "":
        return base
    symbol = _chars(ch)
    return (r"\overset{%s}{%s}" if pos == "top" else r"\underset{%s}{%s}") % (symbol, base)


_OPERATOR_NAME = re.compile(r"\\(?:operatorname|mathrm)\{([A-Za-z]+)\}")


def _limit_base(base: str) -> str | None:
    """``base`` rewritten to take limits below/above (``\\lim``), or None if it cannot."""
    if re.fullmatch(r"\\(%s)" % "|".join(LIMIT_FUNCTIONS), base):
        return base
    match = _OPERATOR_NAME.fullmatch(base)
    if match and len(match.group(1)) > 1:
        return r"\operatorname*{%s}" % match.group(1)
    if base in NARY.values():
        return base + r"\limits"
    return None


def _do_limlow(el, ctx: _Ctx) -> str:
    base = _arg(_child(el, "e"), ctx.base())
    lim = _arg(_child(el, "lim"), ctx.arg())
    if not lim:
        return base
    if base.startswith(r"\underbrace{") and _one_group(base, len(r"\underbrace")):
        return r"%s_{%s}" % (base, lim)
    arrow = re.match(r"\\x[A-Za-z]*arrow(?=\{)", base)
    if arrow and _one_group(base, arrow.end()):
        return r"%s[%s]%s" % (arrow.group(0), lim, base[arrow.end():])
    op = _limit_base(base)
    if op is not None:
        return r"%s_{%s}" % (op, lim)
    return r"\underset{%s}{%s}" % (lim, base)


def _do_limupp(el, ctx: _Ctx) -> str:
    base = _arg(_child(el, "e"), ctx.base())
    lim = _arg(_child(el, "lim"), ctx.arg())
    if not lim:
        return base
    if base.startswith(r"\overbrace{") and _one_group(base, len(r"\overbrace")):
        return r"%s^{%s}" % (base, lim)
    arrow = re.fullmatch(r"(\\x[A-Za-z]*arrow)\{\}", base)
    if arrow:  # an arrow under an empty base: the limit is the label over it
        return r"%s{%s}" % (arrow.group(1), lim)
    op = _limit_base(base)
    if op is not None:
        return r"%s^{%s}" % (op, lim)
    return r"\overset{%s}{%s}" % (lim, base)


def _one_group(latex: str, start: int) -> bool:
    """Whether ``latex[start:]`` is exactly one balanced ``{...}`` group."""
    for i, c, depth in _brace_depths(latex, start):
        if c == "}":
            if depth == 0:
                return i == len(latex) - 1
        elif c != "{" and depth == 0:
            return False
    return False


def _do_func(el, ctx: _Ctx) -> str:
    name = _arg(_child(el, "fName"), replace(ctx.base(), fname=True))
    return _cat([name, _arg(_child(el, "e"), ctx.arg())])


def _do_box(el, ctx: _Ctx) -> str:
    return _arg(_child(el, "e"), ctx.base())


def _do_borderbox(el, ctx: _Ctx) -> str:
    body = _arg(_child(el, "e"), ctx.arg())
    if all(_flag(el, "borderBoxPr", side) for side in ("hideTop", "hideBot", "hideLeft", "hideRight")):
        return body
    return r"\boxed{%s}" % body


def _do_phant(el, ctx: _Ctx) -> str:
    body = _arg(_child(el, "e"), ctx.arg())
    if _flag(el, "phantPr", "show", default=True):
        return body
    if _flag(el, "phantPr", "zeroWid"):
        return r"\vphantom{%s}" % body
    if _flag(el, "phantPr", "zeroAsc") and _flag(el, "phantPr", "zeroDesc"):
        return r"\hphantom{%s}" % body
    return r"\phantom{%s}" % body


def _do_omathpara(el, ctx: _Ctx) -> str:
    return _lines(el.iterchildren(_M + "oMath"))


_HANDLERS: dict[str, Callable[..., str]] = {
    "sSup": _do_ssup, "sSub": _do_ssub, "sSubSup": _do_ssubsup, "sPre": _do_spre,
    "f": _do_f, "rad": _do_rad, "nary": _do_nary, "d": _do_d, "m": _do_m,
    "eqArr": _do_eqarr, "acc": _do_acc, "bar": _do_bar, "groupChr": _do_groupchr,
    "limLow": _do_limlow, "limUpp": _do_limupp, "func": _do_func, "box": _do_box,
    "borderBox": _do_borderbox, "phant": _do_phant, "oMathPara": _do_omathpara,
}


def text_to_latex(text: str) -> str:
    """Math-mode LaTeX for plain math text (letters, digits, symbols), as in an OMML run.

    Other math formats (ODF's MathML) use it for their token text.
    """
    return _chars(text)


def join_latex(parts: list[str]) -> str:
    """LaTeX pieces joined, with a space only where two commands or letters would fuse."""
    return _cat(parts)
