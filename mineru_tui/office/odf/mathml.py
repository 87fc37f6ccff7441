"""Presentation MathML (ODF formula objects) to LaTeX.

LibreOffice Math stores a formula as MathML 2 (``Object N/content.xml``, or ``math:math``
inline in a flat file), with the StarMath source as an annotation. The MathML is what is
converted: token elements through the same symbol tables as OMML
(:func:`mineru_tui.office.omml.text_to_latex`), layout elements to their LaTeX
constructs. Unknown elements give their children's LaTeX; depth is bounded.
"""

from __future__ import annotations

from mineru_tui.office.omml import join_latex, text_to_latex
from mineru_tui.office.package import local

MAX_DEPTH = 64  # nested layout elements followed

_FENCES = {"(": "(", ")": ")", "[": "[", "]": "]", "{": r"\{", "}": r"\}", "|": "|",
           "‖": r"\|", "⟨": r"\langle", "⟩": r"\rangle", "〈": r"\langle", "〉": r"\rangle",
           "⌈": r"\lceil", "⌉": r"\rceil", "⌊": r"\lfloor", "⌋": r"\rfloor", "": "."}
_OVER_ACCENTS = {"^": r"\hat", "ˆ": r"\hat", "~": r"\tilde", "˜": r"\tilde", "¯": r"\bar",
                 "‾": r"\overline", "→": r"\vec", "⃗": r"\vec", "˙": r"\dot", "¨": r"\ddot",
                 "⏞": r"\overbrace", "\u0302": r"\hat", "\u0303": r"\tilde", "\u0304": r"\bar"}
_UNDER_ACCENTS = {"_": r"\underline", "¯": r"\underline", "‾": r"\underline",
                  "⏟": r"\underbrace"}


def mathml_to_latex(math) -> str:
    """LaTeX for a ``math`` element (or any MathML element)."""
    return _convert(math, 0).strip()


def _convert(el, depth: int) -> str:
    if depth > MAX_DEPTH:
        return ""
    tag = local(el)
    kids = [k for k in el if isinstance(k.tag, str)]
    if tag in ("mi", "mn", "mo", "ms"):
        text = (el.text or "").strip()
        if tag == "mo" and text in ("\u2061", "\u2062", "\u2063"):  # invisible operators
            return ""
        if tag == "mi" and len(text) > 1 and text.isascii() and text.isalpha():
            return r"\operatorname{%s}" % text if text not in _KNOWN_FUNCS else "\\" + text
        latex = text_to_latex(text)
        if tag == "mi" and el.get("mathvariant") == "normal" and len(text) == 1 and text.isalpha():
            latex = r"\mathrm{%s}" % latex
        return latex
    if tag == "mtext":
        text = el.text or ""
        return r"\text{%s}" % _text_escape(text) if text.strip() else (r"\ " if text else "")
    if tag == "mspace":
        return r"\ "
    args = [_convert(k, depth + 1) for k in kids]
    if tag == "semantics" or tag == "annotation-xml":
        return args[0] if args else ""
    if tag == "annotation":
        return ""
    if tag == "mfrac":
        a, b = (args + ["", ""])[:2]
        if el.get("linethickness") in ("0", "0pt", "0px"):
            return r"\binom{%s}{%s}" % (a, b)
        return r"\frac{%s}{%s}" % (a, b)
    if tag == "msup":
        a, b = (args + ["", ""])[:2]
        return "{%s}^{%s}" % (a, b)
    if tag == "msub":
        a, b = (args + ["", ""])[:2]
        return "{%s}_{%s}" % (a, b)
    if tag == "msubsup":
        a, b, c = (args + ["", "", ""])[:3]
        return "{%s}_{%s}^{%s}" % (a, b, c)
    if tag == "msqrt":
        return r"\sqrt{%s}" % join_latex(args)
    if tag == "mroot":
        a, b = (args + ["", ""])[:2]
        return r"\sqrt[%s]{%s}" % (b, a)
    if tag in ("mover", "munder", "munderover"):
        return _under_over(tag, kids, args)
    if tag == "mfenced":
        open_, close = el.get("open", "("), el.get("close", ")")
        sep = el.get("separators", ",").strip()[:1]
        body = (sep + " ").join(args) if sep else join_latex(args)
        return r"\left%s %s \right%s" % (_FENCES.get(open_, open_), body,
                                          _FENCES.get(close, close))
    if tag == "mtable":
        rows = []
        for row in kids:
            cells = [_convert(c, depth + 2) for c in row if isinstance(c.tag, str)]
            rows.append(" & ".join(cells))
        return r"\begin{matrix} %s \end{matrix}" % r" \\ ".join(rows)
    if tag == "mrow" and len(kids) >= 2 and _is_fence(kids[0]) and _is_fence(kids[-1]):
        left, right = (kids[0].text or "").strip(), (kids[-1].text or "").strip()
        return r"\left%s %s \right%s" % (_FENCES.get(left, left), join_latex(args[1:-1]),
                                          _FENCES.get(right, right))
    if tag == "mstyle" and el.get("mathvariant") == "bold":
        return r"\mathbf{%s}" % join_latex(args)
    return join_latex(args)


def _under_over(tag: str, kids, args: list[str]) -> str:
    base = args[0] if args else ""
    if tag == "mover" and len(kids) > 1:
        mark = (kids[1].text or "").strip() if local(kids[1]) == "mo" else ""
        if mark in _OVER_ACCENTS:
            return r"%s{%s}" % (_OVER_ACCENTS[mark], base)
        return r"\overset{%s}{%s}" % (args[1], base)
    if tag == "munder" and len(kids) > 1:
        mark = (kids[1].text or "").strip() if local(kids[1]) == "mo" else ""
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


_BIG = (r"\sum", r"\prod", r"\int", r"\iint", r"\iiint", r"\oint", r"\coprod", r"\bigcup",
        r"\bigcap", r"\lim", r"\max", r"\min", r"\sup", r"\inf")
_KNOWN_FUNCS = {"sin", "cos", "tan", "cot", "sec", "csc", "log", "ln", "exp", "lim", "max",
                "min", "sup", "inf", "det", "dim", "arg", "deg", "gcd", "sinh", "cosh", "tanh",
                "arcsin", "arccos", "arctan", "ker", "Pr", "lg", "hom"}


def _is_big(latex: str) -> bool:
    return latex.strip().startswith(_BIG)


def _is_fence(el) -> bool:
    return local(el) == "mo" and (el.get("fence") == "true" or (el.text or "").strip() in _FENCES
                                  and (el.text or "").strip() != "")


def _text_escape(text: str) -> str:
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
