"""Escaping for Markdown: text, code, equations, note labels and list markers.

Every piece of document text reaches Markdown through one of these functions; the
rules are explained in ``docs/markdown-safety.md``. Shared by the Markdown writer and
the HTML-table writer (list labels).
"""

from __future__ import annotations

import html
import re

from mineru_tui.document.links import safe_url

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~])")
# "&" only where it would start an entity reference ("&lt;", "&#60;"), which a Markdown
# reader would decode; a lone "&" is text already.
_ENTITY_START = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# What would start a heading, list, quote or setext underline at the start of any line
# of the text (a span may hold line breaks). Digits take the backslash before their
# delimiter: "1\." (a backslash before a digit would be printed as is).
_LINE_START = re.compile(r"^([ \t]*)(?:(#{1,6}|>|\+|-+|=+)|(\d{1,9})([.)]))(?=[ \t]|$)", re.M)


def unify_newlines(text: str) -> str:
    """CommonMark ends lines at ``\\r\\n``, ``\\r`` and ``\\n``; write them all as ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _escape_line_start(m: re.Match) -> str:
    if m.group(2):
        return m.group(1) + "\\" + m.group(2)
    return m.group(1) + m.group(3) + "\\" + m.group(4)


_LINE_START_CHARS = frozenset("#>+-=0123456789")  # what _LINE_START can match after [ \t]*


def escape_md(text: str) -> str:
    """Escape the characters that would change meaning in Markdown inline text."""
    text = _MD_SPECIAL.sub(r"\\\1", unify_newlines(text))
    if "&" in text:
        text = _ENTITY_START.sub(r"\\&", text)
    # one line whose first character cannot start a block: nothing for _LINE_START (the
    # common case, a span of words, skips its search)
    if "\n" not in text and text.lstrip(" \t")[:1] not in _LINE_START_CHARS:
        return text
    return _LINE_START.sub(_escape_line_start, text)


# ---------------------------------------------------------------------------------------
# code


def _longest_run(text: str, ch: str) -> int:
    return max((len(m) for m in re.findall(re.escape(ch) + "+", text)), default=0)


def _escape_pipes(text: str) -> str:
    r"""Put a backslash before every ``|`` that has none, so a pipe table does not split
    its cell there (GFM removes that backslash again, inside code spans too)."""
    return re.sub(r"(?<!\\)((?:\\\\)*)\|", r"\1\\|", text)


def code_span(text: str, in_pipe_table: bool = False) -> str:
    """Inline code: a backtick fence longer than any backtick run inside (CommonMark).

    Line breaks become spaces (a code span cannot hold a blank line, and a line break
    could let the next line start a block). When the text holds a backtick, it is padded
    with one space on each side, which CommonMark readers strip again.
    """
    text = unify_newlines(text).replace("\n", " ")
    if in_pipe_table:
        text = _escape_pipes(text)
    fence = "`" * (_longest_run(text, "`") + 1)
    # Readers strip one space from both ends when both have one: pad so that they strip
    # ours, not the text's, and so that a backtick at either end is not part of the fence.
    if "`" in text or (text[:1] == text[-1:] == " " and text.strip(" ")):
        return f"{fence} {text} {fence}"
    return f"{fence}{text}{fence}"


_LANG = re.compile(r"[A-Za-z0-9_+#.\-]{1,40}")


def code_fence(body: str, lang: str | None = None) -> str:
    """A fenced code block whose fence cannot occur inside the body.

    The fence is three backticks, or one more than the longest backtick run in the body.
    The info string (language) is kept only when it is a plain name such as ``python``
    or ``c++``; anything else is left out rather than escaped.
    """
    body = unify_newlines(body)
    fence = "`" * max(3, _longest_run(body, "`") + 1)
    info = lang if lang and _LANG.fullmatch(lang) else ""
    return f"{fence}{info}\n{body}\n{fence}"


# ---------------------------------------------------------------------------------------
# equations

# One LaTeX token: a control word or symbol (or a lone trailing backslash), or one of
# the characters that need care.
_TEX_TOKEN = re.compile(r"\\(?:[A-Za-z]+|.)?|[<>`$|\]]", re.S)
# Commands after which "<" and ">" are delimiters (angle brackets), not relations.
_DELIMITER_SIZERS = {"left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr",
                     "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "bigm", "Bigm",
                     "biggm", "Biggm"}
# In display math, a line that would start a block in Markdown: an ATX heading, a list
# item, a setext underline or thematic break, a tilde fence, a table delimiter row. An
# empty group "{}" in front keeps it maths. (Backticks, "<" and ">" are gone already.)
_TEX_LINE_START = re.compile(r"""^([ \t]*)(?=
      \#{1,6}(?:[ \t]|$)            # heading
    | [-+*](?:[ \t]|$)               # bullet item
    | \d{1,9}[.)](?:[ \t]|$)         # ordered item
    | (?:[-*_=][ \t]*)+$             # setext underline, thematic break
    | ~{3,}                          # fence
    | [|:\- \t]*-[|:\- \t]*$          # table delimiter row
)""", re.M | re.X)


# Commands of math renderers that make links: their target passes the link rule.
_TEX_LINKS = {"href", "url"}
# Commands that define macros (a macro can spell "\href" out of pieces, out of sight of
# the rule above), load extensions, or put CSS and ids on the page (MathJax's html
# extension): dropped, their arguments stay as plain maths.
_TEX_DROPPED = {"def", "gdef", "edef", "xdef", "let", "futurelet", "newcommand",
                "renewcommand", "providecommand", "newenvironment", "renewenvironment",
                "DeclareMathOperator", "require", "class", "cssId", "style", "data",
                "unicode", "htmlClass", "htmlId", "htmlStyle", "htmlData", "includegraphics"}
_TEX_COMMAND = re.compile(r"\\(?:([A-Za-z]+)\*?|.)", re.S)


def _brace_group(latex: str, start: int) -> tuple[str, int] | None:
    """The content of the ``{...}`` group at ``start`` (after spaces) and the index after
    it, or None when no balanced group starts there."""
    i = start
    while i < len(latex) and latex[i] in " \t\n":
        i += 1
    if i >= len(latex) or latex[i] != "{":
        return None
    depth, j = 0, i
    while j < len(latex):
        ch = latex[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return latex[i + 1:j], j + 1
        j += 1
    return None


def latex_links_safe(latex: str) -> str:
    """``\\href``/``\\url`` kept only with a target the link rule allows
    (:func:`.links.safe_url`); otherwise the command and its target go, and an
    ``\\href``'s text stays as maths. Macro definitions and the commands in
    :data:`_TEX_DROPPED` are dropped."""
    out: list[str] = []
    pos = 0
    for m in _TEX_COMMAND.finditer(latex):
        if m.start() < pos:  # inside a link target already consumed
            continue
        name = m.group(1)
        if name in _TEX_DROPPED:
            out.append(latex[pos:m.start()] + " ")
            pos = m.end()
        elif name in _TEX_LINKS:
            group = _brace_group(latex, m.end())
            out.append(latex[pos:m.start()])
            if group is not None and safe_url(group[0]) == group[0].strip():
                out.append(latex[m.start():group[1]])
            else:
                out.append(" ")
            pos = group[1] if group is not None else m.end()
    out.append(latex[pos:])
    return "".join(out)


def _latex_safe(latex: str, in_pipe_table: bool) -> str:
    out: list[str] = []
    prev_word = ""
    for piece in re.split(f"({_TEX_TOKEN.pattern})", latex, flags=re.S):
        if not piece:
            continue
        tok = piece
        if piece in ("<", ">"):
            if prev_word in _DELIMITER_SIZERS:
                tok = r"\langle " if piece == "<" else r"\rangle "
            else:
                tok = r"\lt " if piece == "<" else r"\gt "
        elif piece == "`":
            tok = r"\backprime "
        elif piece == "$":
            tok = r"\$"
        elif piece == "\\":  # a lone backslash at the end would escape the closing "$"
            tok = r"\backslash "
        elif piece in ("\\<", "\\>"):  # not LaTeX, but "<" must not survive
            tok = r"\lt " if piece == "\\<" else r"\gt "
        elif piece == "|" and in_pipe_table:
            tok = r"\vert "
        elif piece == r"\|" and in_pipe_table:
            tok = r"\Vert "
        out.append(tok)
        if piece.startswith("\\") and piece[1:].isalpha():
            prev_word = piece[1:]
        elif not piece.isspace():
            prev_word = ""
    text = "".join(out)
    # "&lt;" would be decoded by a Markdown reader; "&{}lt;" is the same maths.
    text = re.sub(r"&(?=#?[A-Za-z0-9]+;)", "&{}", text)
    # "](" / "][" would make a Markdown link of the brackets around it.
    return re.sub(r"\](?=[(\[])", "]{}", text)


def latex_inline(latex: str, in_pipe_table: bool = False) -> str:
    """Inline maths ``$...$`` (or ``$$...$$``) made safe for Markdown, still valid LaTeX.

    ``<``/``>`` become ``\\lt``/``\\gt`` (``\\langle``/``\\rangle`` after ``\\left`` and
    the like), a ``$`` inside becomes ``\\$``, a backtick ``\\backprime``, an
    entity-like ``&name;`` gets an empty group after its ``&``, ``](`` becomes
    ``]{}(``, line breaks become spaces, and in a pipe table ``|`` becomes ``\\vert``.
    Links in the maths pass the link rule (:func:`latex_links_safe`).
    """
    latex = latex_links_safe(unify_newlines(latex)).replace("\n", " ").strip()
    return _latex_safe(latex, in_pipe_table)


def latex_display(latex: str) -> str:
    """Display maths (the lines between ``$$`` fences) made safe the same way.

    Blank lines are dropped (one would end the Markdown paragraph and let the next line
    start any block), and a line that would start a list, heading or quote gets an
    empty group ``{}`` in front.
    """
    lines = [l.strip() for l in latex_links_safe(unify_newlines(latex)).split("\n")]
    text = _latex_safe("\n".join(l for l in lines if l), False)
    return _TEX_LINE_START.sub(r"\1{}", text)


# ---------------------------------------------------------------------------------------
# notes, lists


def note_label(label: str | None) -> str:
    """A footnote label (``[^label]``) of letters, digits, ``-`` and ``_`` only."""
    cleaned = re.sub(r"[^A-Za-z0-9_\-]", "", label or "")
    return cleaned or "note"


# A footnote definition whose first line is one word (or a word and a title in quotes or
# parentheses) is a CommonMark link reference definition to readers without footnotes:
# "[^1]: javascript:x" would make every "[^1]" a link there.
_DEFINITION_LIKE = re.compile(r"""(\S+)(?=[ \t]*(?:\n|$)|[ \t]+["'(])""")


def note_definition(label: str | None, text: str) -> str:
    """A footnote definition ``[^label]: text`` that no reader can take for an unsafe link.

    To a reader without footnotes, a first word such as ``javascript:x`` or
    ``../../x`` would be the target of a link reference definition. When that word has
    a scheme or a path in it and is not a safe link (see :func:`.links.safe_url`), a
    zero-width space written `` &#8203;`` follows it, and the line is no definition.
    Plain words ("Ibid.") and web addresses are left as they are.
    """
    m = _DEFINITION_LIKE.match(text)
    if m:
        # The target such a reader would see: entities and backslash escapes decoded.
        target = html.unescape(re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", m.group(1)))
        if re.search(r"[:/\\]", target) and not safe_url(target):
            text = m.group(1) + " &#8203;" + text[m.end(1):]
    return f"[^{note_label(label)}]: {text}"


ORDERED_MARKER = re.compile(r"^\d{1,9}[.)]$")


def list_marker(marker: str | None) -> tuple[str, str]:
    """A CommonMark list marker for an item, and any label to keep in its text.

    Word and PowerPoint number items "a.", "IV.", "(1)" or "1.2"; CommonMark only knows
    "-" and "N." / "N)". Those others become a bullet that keeps the original label, so
    nothing is lost and the nesting still parses.
    """
    if not marker or marker in ("-", "*", "+"):
        return "-", ""
    if ORDERED_MARKER.match(marker):
        return marker, ""
    if len(marker) == 1 and not marker.isalnum():  # a bullet glyph such as "•" or "▪"
        return "-", ""
    return "-", escape_md(marker) + " "
