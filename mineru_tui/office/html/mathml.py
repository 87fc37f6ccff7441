"""Presentation MathML to LaTeX, for the equations of HTML pages and EPUB chapters.

Covers what documents use: tokens (``mi mn mo mtext ms``), rows, fractions, roots,
scripts (``msub msup msubsup munder mover munderover``), fences (``mfenced``), tables
(``mtable`` as a matrix) and ``semantics`` (its first child; a TeX ``annotation`` is used
as it is by the caller). Unknown elements give their children. Operators and letters
with a LaTeX name (Greek letters, ∑, ≤, →...) are written by name; everything else as
the character itself, which MathJax and KaTeX read. Depth is bounded (the caller's walk
is), and the result is only ever written inside ``$...$`` by the Markdown writer, which
escapes what needs escaping there.
"""

from __future__ import annotations

from mineru_tui.office.omml_symbols import SYMBOLS as _OMML_SYMBOLS

MAX_DEPTH = 100
_LARGE = {"∑": "\\sum", "∏": "\\prod", "∫": "\\int", "∮": "\\oint", "⋃": "\\bigcup",
          "⋂": "\\bigcap", "lim": "\\lim"}
_FUNCTIONS = {"sin", "cos", "tan", "log", "ln", "exp", "max", "min", "sup", "inf", "det",
              "lim", "arg", "sec", "csc", "cot", "sinh", "cosh", "tanh"}


def _tag(el) -> str:
    tag = el.tag
    return tag.rpartition("}")[2].lower() if isinstance(tag, str) else ""


def _symbol(text: str) -> str:
    out = []
    for ch in text:
        name = _OMML_SYMBOLS.get(ch)
        out.append(ch if name is None else name + " " if name.startswith("\\") else name)
    return "".join(out)


def mathml_to_latex(el, depth: int = 0) -> str:
    """The LaTeX of a ``<math>`` element (or any element inside one)."""
    if depth > MAX_DEPTH:
        return " ".join("".join(el.itertext()).split())
    tag = _tag(el)
    kids = [k for k in el if isinstance(k.tag, str)]

    def sub(i: int) -> str:
        return mathml_to_latex(kids[i], depth + 1) if i < len(kids) else ""

    def group(i: int) -> str:
        return "{" + sub(i).strip() + "}"

    text = " ".join((el.text or "").split())
    if tag == "mi":
        if text in _FUNCTIONS:
            return f"\\{text} "
        return _symbol(text) if len(text) <= 1 else f"\\mathrm{{{text}}}"
    if tag == "mn":
        return text
    if tag == "mo":
        return _LARGE.get(text) or _symbol(text)
    if tag in ("mtext", "ms"):
        return f"\\text{{{text}}}" if text else ""
    if tag == "mspace":
        return "\\ "
    if tag == "mfrac":
        return f"\\frac{group(0)}{group(1)}"
    if tag == "msqrt":
        return "\\sqrt{" + "".join(mathml_to_latex(k, depth + 1) for k in kids) + "}"
    if tag == "mroot":
        return f"\\sqrt[{sub(1)}]{group(0)}"
    if tag == "msub":
        return f"{group(0)}_{group(1)}"
    if tag == "msup":
        return f"{group(0)}^{group(1)}"
    if tag == "msubsup":
        return f"{group(0)}_{group(1)}^{group(2)}"
    if tag == "munder":
        return f"\\underset{group(1)}{group(0)}"
    if tag == "mover":
        return f"\\overset{group(1)}{group(0)}"
    if tag == "munderover":
        return f"{group(0)}_{group(1)}^{group(2)}"
    if tag == "mfenced":
        open_, close = el.get("open", "("), el.get("close", ")")
        sep = el.get("separators", ",")[:1] or ","
        inner = sep.join(mathml_to_latex(k, depth + 1) for k in kids)
        return f"\\left{_fence(open_)}{inner}\\right{_fence(close)}"
    if tag == "mtable":
        rows = []
        for row in kids:
            cells = [mathml_to_latex(c, depth + 1) for c in row if isinstance(c.tag, str)]
            rows.append(" & ".join(cells))
        return "\\begin{matrix}" + " \\\\ ".join(rows) + "\\end{matrix}"
    if tag in ("mstack", "mlongdiv"):  # elementary maths: one number per row, right-aligned
        rows = _stack_rows(kids, depth + 1)
        if tag == "mlongdiv" and len(rows) >= 3:  # divisor, result, dividend, then the steps
            rows = [rows[1], f"{rows[0]}\\big) {rows[2]}"] + rows[3:]
        return "\\begin{array}{r}" + " \\\\ ".join(rows) + "\\end{array}"
    if tag == "semantics":
        return sub(0)
    if tag in ("annotation", "annotation-xml", "none", "mprescripts"):
        return ""
    return "".join(mathml_to_latex(k, depth + 1) for k in kids) or _symbol(text)


def _stack_rows(kids, depth: int) -> list[str]:
    """The rows of an ``mstack``/``mlongdiv``: groups opened, lines and carries left out."""
    rows: list[str] = []
    for k in kids:
        tag = _tag(k)
        if tag == "msgroup" and depth <= MAX_DEPTH:
            rows += _stack_rows([c for c in k if isinstance(c.tag, str)], depth + 1)
        elif tag not in ("msline", "mscarries", "mscarry", "none", ""):
            row = mathml_to_latex(k, depth + 1).strip()
            if row:
                rows.append(row)
    return rows


def _fence(ch: str) -> str:
    if not ch:
        return "."
    return {"{": "\\{", "}": "\\}", "⟨": "\\langle", "⟩": "\\rangle", "|": "|", "‖": "\\|"}.get(ch, ch)
