"""Words and structure found in a tool's Markdown, and recall against a reference.

Counting rules (the same for every tool):

* tables — HTML ``<table`` openings + pipe tables (a ``|`` line followed by a
  ``|---|`` delimiter line);
* headings — ATX ``#`` lines and ``<h1>``–``<h6>``;
* equations — ``$$…$$`` / ``\\[…\\]`` display blocks + ``$…$`` / ``\\(…\\)`` inline;
* links — ``[text](target)`` not preceded by ``!``, ``<a href``, and ``<scheme://…>``
  autolinks;
* list items — lines starting with ``-``/``*``/``+``/``1.``/``1)`` (any indent) and ``<li``;
* images — ``![…](…)``, ``<img`` and Docling's ``<!-- image -->`` placeholder;
* merged — ``<td>``/``<th>`` with ``colspan`` or ``rowspan`` greater than 1.

Words: NFKC, casefold, Markdown/HTML markup, link/image targets and punctuation
stripped; runs of letters/digits are words, CJK ideographs, kana, hangul and emoji are
one word each.
"""
from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WORD = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_])+|[\U0001F000-\U0001FAFF\u2600-\u27BF]")


def words(text: str) -> list[str]:
    """Normalised words of plain text."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _WORD.findall(text)


_IMG_MD = re.compile(r"!\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)")
_LINK_MD = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\((?:[^()]|\([^()]*\))*\)")
_TAG = re.compile(r"<!--.*?-->|<[A-Za-z/!][^>]*>", re.S)
_INLINE_TAG = re.compile(r"</?(?:sub|sup|b|i|u|s|em|strong|del|ins|mark|span|code|small|big|strike|font)\b[^>]*>", re.I)
_DATA_URI = re.compile(r"data:[a-z]+/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+", re.I)


def strip_markdown(md: str) -> str:
    """Plain text of Markdown: images, link targets, tags and escapes removed."""
    md = _DATA_URI.sub(" ", md)
    md = md.replace("\\<", "&lt;").replace("\\>", "&gt;")  # escaped brackets are text, not tags
    md = _IMG_MD.sub(lambda m: " " + m.group(1) + " ", md)
    md = _LINK_MD.sub(lambda m: " " + m.group(1) + " ", md)
    md = re.sub(r"<(?:https?|mailto|ftp):[^>\s]*>", " ", md)
    md = _INLINE_TAG.sub("", md)  # <sub>2</sub> inside H2O must not split the word
    md = _TAG.sub(" ", md)
    md = re.sub(r"\*+|~~|(?<=\w)\^|\^(?=\w)", "", md)  # emphasis/strike/sup markers inside words
    md = html.unescape(md)
    md = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", md)  # Markdown escapes (ASCII punctuation only;
    # a backslash before a letter is a LaTeX command and stays a word boundary)
    return md


def md_words(md: str) -> list[str]:
    """Normalised words of Markdown.

    >>> md_words(r"H<sub>2</sub>O **bold**er [a link](http://x.y/z) \\<m:oMath\\> $\\frac{-b\\pm c}{2}$")
    ['h2o', 'bolder', 'a', 'link', 'm', 'omath', 'frac', 'b', 'pm', 'c', '2']
    """
    return words(strip_markdown(md))


def recall(ref: list[str], got: list[str]) -> float | None:
    """Multiset recall of ``ref`` words in ``got``; None when the reference is empty."""
    if not ref:
        return None
    rc, gc = Counter(ref), Counter(got)
    hit = sum(min(n, gc[w]) for w, n in rc.items())
    return hit / len(ref)


def missing_words(ref: list[str], got: list[str], k: int = 12) -> list[str]:
    """The most-missed reference words (for the worst-files report)."""
    rc, gc = Counter(ref), Counter(got)
    miss = Counter({w: n - gc[w] for w, n in rc.items() if n > gc[w]})
    return [w if n == 1 else f"{w}×{n}" for w, n in miss.most_common(k)]


_PIPE_DELIM = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def counts(md: str) -> dict[str, int]:
    """Structural counts of Markdown (see the module docstring for the rules).

    >>> c = counts("# T\\n\\n| a | b |\\n| - | - |\\n| 1 | 2 |\\n\\n- x\\n1) y\\na) not a list\\n\\n"
    ...            "$$x$$ and $y$ cost \\\\$5 [l](u) ![i](p) <!-- image -->\\n"
    ...            '<table><tr><td colspan="2">m</td><td rowspan="1">n</td></tr></table>')
    >>> [c[k] for k in ("tables", "headings", "equations", "links", "list_items", "images", "merged")]
    [2, 1, 2, 1, 2, 2, 1]
    """
    lines = md.splitlines()
    out = {}
    pipe = 0
    for i in range(1, len(lines)):
        if _PIPE_DELIM.match(lines[i]) and "|" in lines[i] and lines[i - 1].lstrip().startswith("|"):
            pipe += 1
    out["tables"] = len(re.findall(r"<table\b", md, re.I)) + pipe
    # code fences hide headings/lists
    body = re.sub(r"^```.*?^```", "", md, flags=re.S | re.M)
    out["headings"] = len(re.findall(r"^ {0,3}#{1,6}\s+\S", body, re.M)) + len(re.findall(r"<h[1-6]\b", body, re.I))
    no_code = re.sub(r"`[^`\n]+`", "", body)
    display = re.findall(r"\$\$.+?\$\$|\\\[.+?\\\]", no_code, re.S)
    rest = re.sub(r"\$\$.+?\$\$|\\\[.+?\\\]", " ", no_code, flags=re.S)
    inline = re.findall(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$(?!\d)", rest) + re.findall(r"\\\(.+?\\\)", rest)
    out["equations"] = len(display) + len(inline)
    out["links"] = (len(_LINK_MD.findall(_IMG_MD.sub(" ", md)))
                    + len(re.findall(r"<a\s[^>]*href=", md, re.I))
                    + len(re.findall(r"<(?:https?|mailto|ftp):[^>\s]+>", md)))
    out["list_items"] = len(re.findall(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\S", body, re.M)) \
        - len(re.findall(r"^\s*[-*_](?:\s*[-*_]){2,}\s*$", body, re.M)) \
        + len(re.findall(r"<li\b", body, re.I))
    out["images"] = (len(_IMG_MD.findall(md)) + len(re.findall(r"<img\b", md, re.I))
                     + md.count("<!-- image -->"))
    merged = 0
    for m in re.finditer(r"<t[dh]\b([^>]*)>", md, re.I):
        attrs = m.group(1)
        spans = [int(x) for x in re.findall(r"(?:col|row)span\s*=\s*[\"']?(\d+)", attrs, re.I)]
        if any(s > 1 for s in spans):
            merged += 1
    out["merged"] = merged
    return out


# ---------------------------------------------------------------- groundtruth

_HS_ESC = re.compile(r"\\(\d+)(?:\\&)?|\\x([0-9a-fA-F]+)|\\&|\\(.)")


def _hs_unescape(s: str) -> str:
    def rep(m):
        if m.group(1):
            return chr(int(m.group(1)))
        if m.group(2):
            return chr(int(m.group(2), 16))
        if m.group(3) is not None:
            return {"n": "\n", "t": "\t"}.get(m.group(3), m.group(3))
        return ""
    return _HS_ESC.sub(rep, s)


_NATIVE_TOK = re.compile(r'\bStr\s+"((?:[^"\\]|\\.)*)"|"(?:[^"\\]|\\.)*"|\b([A-Z][A-Za-z]+)\b')
# inline wrappers join their Str neighbours (H, Subscript [Str "2"], O → "H2O")
_NATIVE_INLINE = {"Emph", "Strong", "Subscript", "Superscript", "Strikeout", "Underline", "SmallCaps",
                  "Span", "Link", "Quoted", "SingleQuote", "DoubleQuote"}


def native_text(text: str) -> str:
    """Plain text of a pandoc native AST: its ``Str`` tokens, joined as pandoc spaces them."""
    out = []
    for m in _NATIVE_TOK.finditer(text):
        if m.group(1) is not None:
            out.append(_hs_unescape(m.group(1)))
        elif m.group(2) and m.group(2) not in _NATIVE_INLINE:
            out.append(" ")
    return "".join(out)


def groundtruth_words(path: str) -> list[str]:
    """Words of a groundtruth file: Markdown (docling/unstructured) or pandoc native (Str tokens)."""
    text = open(path, encoding="utf-8", errors="replace").read()
    if path.endswith(".native"):
        return words(native_text(text))
    return md_words(text)
