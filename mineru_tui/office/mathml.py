"""Presentation MathML to LaTeX: the one converter for ODF formula objects, HTML and EPUB.

LibreOffice Math stores a formula as MathML 2 (``Object N/content.xml``, or ``math:math``
inline in a flat file); web pages and EPUB chapters carry ``<math>`` in the markup. Token
elements (``mi mn mo``) go through the same symbol tables as OMML
(:func:`mineru_tui.office.omml.text_to_latex`), layout elements to their LaTeX constructs:
rows, fractions, roots, scripts, accents, fences, tables (as a matrix), elementary maths
(``mstack``/``mlongdiv`` as a right-aligned array) and ``semantics`` (its first child).
Unknown elements give their children's LaTeX.

Names: a function name LaTeX knows becomes its command (``\\sin``, ``\\log``); another
multi-letter function name (an ``mi`` followed by U+2061 FUNCTION APPLICATION, or a
multi-letter ``mo``) becomes ``\\operatorname{…}``; another multi-letter identifier
``\\mathrm{…}``. Depth is bounded; below the bound an element gives its plain text.
"""

from __future__ import annotations

from mineru_tui.office.omml import join_latex, text_to_latex

MAX_DEPTH = 100  # nested elements followed (HTML callers start at their own walk's depth)

# The operator names LaTeX (with amsmath) defines as commands.
LATEX_FUNCTIONS = frozenset({
    "arccos", "arcsin", "arctan", "arg", "cos", "cosh", "cot", "coth", "csc", "deg", "det",
    "dim", "exp", "gcd", "hom", "inf", "ker", "lg", "lim", "liminf", "limsup", "ln", "log",
    "max", "min", "Pr", "sec", "sin", "sinh", "sup", "tan", "tanh"})
_APPLY = "\u2061"  # FUNCTION APPLICATION: the name before it is a function's
_INVISIBLE = ("\u2061", "\u2062", "\u2063", "\u2064")  # apply, times, separator, plus

_FENCES = {"(": "(", ")": ")", "[": "[", "]": "]", "{": r"\{", "}": r"\}", "|": "|",
           "‖": r"\|", "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle", "〉": r"\rangle",
           "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor", "⌋": r"\rfloor", "": "."}
_OVER_ACCENTS = {"^": r"\hat", "ˆ": r"\hat", "~": r"\tilde", "˜": r"\tilde", "¯": r"\bar",
                 "‾": r"\overline", "→": r"\vec", "⃗": r"\vec", "˙": r"\dot", "¨": r"\ddot",
                 "⏞": r"\overbrace", "\u0302": r"\hat", "\u0303": r"\tilde", "\u0304": r"\bar"}
_UNDER_ACCENTS = {"_": r"\underline", "¯": r"\underline", "‾": r"\underline",
                  "⏟": r"\underbrace"}
_BIG = (r"\sum", r"\prod", r"\int", r"\iint", r"\iiint", r"\oint", r"\coprod", r"\bigcup",
        r"\bigcap", r"\lim", r"\max", r"\min", r"\sup", r"\inf")


def mathml_to_latex(math, depth: int = 0) -> str:
    """LaTeX for a ``math`` element (or any MathML element); ``depth`` is the caller's own."""
    return _convert(math, depth).strip()


def _tag(el) -> str:
    """The local name, lower-cased (HTML parsers and XML give different cases)."""
    tag = el.tag
    return tag.rpartition("}")[2].lower() if isinstance(tag, str) else ""


def _convert(el, depth: int) -> str:
    if depth > MAX_DEPTH:
        return " ".join("".join(el.itertext()).split())
    tag = _tag(el)
    if tag in ("mi", "mn", "mo"):
        return _token(el, tag)
    if tag in ("mtext", "ms"):
        text = el.text or ""
        return r"\text{%s}" % _text_escape(text) if text.strip() else (r"\ " if text else "")
    if tag == "mspace":
        return r"\ "
    if tag in ("annotation", "none", "mprescripts"):
        return ""
    kids = [k for k in el if isinstance(k.tag, str)]
    if tag in ("mstack", "mlongdiv"):  # elementary maths: one number per row, right-aligned
        rows = _stack_rows(kids, depth + 1)
        if tag == "mlongdiv" and len(rows) >= 3:  # divisor, result, dividend, then the steps
            rows = [rows[1], r"%s\big) %s" % (rows[0], rows[2])] + rows[3:]
        return r"\begin{array}{r}%s\end{array}" % r" \\ ".join(rows)
    if tag == "mtable":
        rows = []
        for row in kids:
            cells = [_convert(c, depth + 2) for c in row if isinstance(c.tag, str)]
            rows.append(" & ".join(c.strip() for c in cells))
        return r"\begin{matrix} %s \end{matrix}" % r" \\ ".join(rows)
    args = [_convert(k, depth + 1) for k in kids]
    if tag in ("semantics", "annotation-xml"):
        return args[0] if args else ""
    return _layout(el, tag, kids, args) or join_latex(args) or text_to_latex((el.text or "").strip())


def _token(el, tag: str) -> str:
    text = " ".join((el.text or "").split())
    if tag == "mo" and text in _INVISIBLE:
        return ""
    if tag != "mn" and len(text) > 1 and text.isascii() and text.isalpha():
        if text in LATEX_FUNCTIONS:
            return "\\" + text
        if tag == "mo" or _applied(el):
            return r"\operatorname{%s}" % text
        return r"\mathrm{%s}" % text
    latex = text_to_latex(text)
    if tag == "mi" and el.get("mathvariant") == "normal" and len(text) == 1 and text.isalpha():
        latex = r"\mathrm{%s}" % latex
    return latex


def _applied(el) -> bool:
    """Whether the next sibling is FUNCTION APPLICATION (``sgn⁡x``): a function's name."""
    nxt = el.getnext() if hasattr(el, "getnext") else None  # lxml only; ElementTree has no siblings
    while nxt is not None and not isinstance(nxt.tag, str):
        nxt = nxt.getnext()
    return nxt is not None and _tag(nxt) == "mo" and (nxt.text or "").strip() == _APPLY


def _layout(el, tag: str, kids, args: list[str]) -> str | None:
    """LaTeX of a layout element, None for a plain row (its children joined)."""
    a, b, c = (args + ["", "", ""])[:3]
    if tag == "mfrac":
        if el.get("linethickness") in ("0", "0pt", "0px"):
            return r"\binom{%s}{%s}" % (a, b)
        return r"\frac{%s}{%s}" % (a, b)
    if tag == "msup":
        return "{%s}^{%s}" % (a, b)
    if tag == "msub":
        return "{%s}_{%s}" % (a, b)
    if tag == "msubsup":
        return "{%s}_{%s}^{%s}" % (a, b, c)
    if tag == "msqrt":
        return r"\sqrt{%s}" % join_latex(args)
    if tag == "mroot":
        return r"\sqrt[%s]{%s}" % (b, a)
    if tag in ("mover", "munder", "munderover"):
        return _under_over(tag, kids, args)
    if tag == "mfenced":
        open_, close = el.get("open", "("), el.get("close", ")")
        sep = el.get("separators", ",").strip()[:1]
        body = (sep + " ").join(args) if sep else join_latex(args)
        return r"\left%s %s \right%s" % (_FENCES.get(open_, open_), body,
                                          _FENCES.get(close, close))
    if tag == "mrow" and len(kids) >= 2 and _is_fence(kids[0]) and _is_fence(kids[-1]):
        left, right = (kids[0].text or "").strip(), (kids[-1].text or "").strip()
        return r"\left%s %s \right%s" % (_FENCES.get(left, left), join_latex(args[1:-1]),
                                          _FENCES.get(right, right))
    if tag == "mstyle" and el.get("mathvariant") == "bold":
        return r"\mathbf{%s}" % join_latex(args)
    return None


def _under_over(tag: str, kids, args: list[str]) -> str:
    base = args[0] if args else ""
    if tag == "mover" and len(kids) > 1:
        mark = (kids[1].text or "").strip() if _tag(kids[1]) == "mo" else ""
        if mark in _OVER_ACCENTS:
            return r"%s{%s}" % (_OVER_ACCENTS[mark], base)
        return r"\overset{%s}{%s}" % (args[1], base)
    if tag == "munder" and len(kids) > 1:
        mark = (kids[1].text or "").strip() if _tag(kids[1]) == "mo" else ""
        if mark in _UNDER_ACCENTS:
            return r"%s{%s}" % (_UNDER_ACCENTS[mark], base)
        if _is_big(base):
            return "%s_{%s}" % (base, args[1])
        return r"\underset{%s}{%s}" % (args[1], base)
    if tag == "munderover" and len(kids) > 2:
        if _is_big(base):
            return "%s_{%s}^{%s}" % (base, args[1], args[2])
        return r"\overset{%s}{\underset{%s}{%s}}" % (args[2], args[1], base)
    return join_latex(args)


def _stack_rows(kids, depth: int) -> list[str]:
    """The rows of an ``mstack``/``mlongdiv``: groups opened, lines and carries left out."""
    rows: list[str] = []
    for k in kids:
        tag = _tag(k)
        if tag == "msgroup" and depth <= MAX_DEPTH:
            rows += _stack_rows([c for c in k if isinstance(c.tag, str)], depth + 1)
        elif tag not in ("msline", "mscarries", "mscarry", "none", ""):
            row = _convert(k, depth + 1).strip()
            if row:
                rows.append(row)
    return rows


def _is_big(latex: str) -> bool:
    return latex.strip().startswith(_BIG)


def _is_fence(el) -> bool:
    text = (el.text or "").strip()
    return _tag(el) == "mo" and (el.get("fence") == "true" or (text in _FENCES and text != ""))


def _text_escape(text: str) -> str:
    """Text for ``\\text{…}``: TeX's special characters escaped."""
    out = []
    for ch in text:
        if ch in "\\{}":
            out.append("\\" + ch if ch != "\\" else r"\textbackslash{}")
        elif ch in "#$%&_":
            out.append("\\" + ch)
        elif ch in "^~":
            out.append(r"\%s{}" % ("textasciicircum" if ch == "^" else "textasciitilde"))
        else:
            out.append(ch)
    return "".join(out)
