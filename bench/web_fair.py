"""Fair scores for the web formats: the same rules for every tool, beside the plain ones.

``bench/office_quality.py`` scores every tool's Markdown as it is. Some of what that
counts against a tool is a convention of the reference, not something a reader of the
Markdown misses; the scores here change only that, for every tool alike
(docs/formats-web.md gives one sentence per rule):

* **words** (text, precision, groundtruth): the ``[^3]:`` that opens a Markdown footnote
  definition is markup, not a word (the reference ``[^3]`` stays: pages show it); ``<``/``>`` inside code are text (a
  listing that shows ``<span>`` shows the word "span"); in maths, LaTeX command names
  (``\\frac``, ``\\left``) and ``^ _ { }`` are markup, not words of the page, a command
  that names a letter is that letter (``\\pi`` is π), and a number and a letter side by
  side are two symbols (``2x`` is 2 and x, as MathML's ``<mn>2</mn><mi>x</mi>``); a picture's alt text is not the
  page's text (a browser shows it only for a picture it cannot load; the images score
  counts pictures) and is left out of text and precision, while against a groundtruth an
  HTML ``<img alt>`` counts its alt text as ``![alt](…)`` does;
* **groundtruth**: a merged table cell counts once per cell it covers (docling's Markdown
  repeats it so), an HTML ``<ol>`` item has the number a browser shows (as a Markdown
  list item has it), a sub- or superscript is a word of its own on both sides (docling's
  Markdown writes ``H 2 O``), and pandoc's native AST is scored by its blocks, without the
  book's metadata (title, creators, identifiers: no chapter's text);
* **counts**: an escaped bracket (``\\]``) is text and ends no link or image;
* **links**: only links a Markdown file written elsewhere can still follow count (the
  truth's ``links_followable``: a relative target such as ``/home.html`` with no stated
  page address names a file of a site the Markdown is not on);
* **images**: only pictures a converter can have without guessing count (the truth's
  ``images_obtainable``: not a relative file missing from the page's folder).
"""
from __future__ import annotations

import re
import statistics

from md_metrics import md_words, native_text, recall, words
from md_metrics import counts as md_counts

FAIR_COLUMNS = ("text", "precision", "groundtruth", "links", "images")
_NOTE_MARK = re.compile(r"^\[\^[^\]\s]+\]:", re.M)
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_MATH = re.compile(r"\$\$[^<]+?\$\$|(?<![\\$])\$(?!\s)[^$\n<]+?(?<![\s\\])\$(?!\d)", re.S)  # not across tags
_LATEX_CMD = re.compile(r"\\[A-Za-z]+")
_SUBSUP = re.compile(r"</?(?:sub|sup)\b[^>]*>", re.I)
_CELL = re.compile(r"<(t[dh])\b([^>]*)>(.*?)</\1>", re.S | re.I)


def _code_as_text(md: str) -> str:
    def lit(m: re.Match) -> str:
        return m.group(0).replace("<", "&lt;").replace(">", "&gt;")
    return _CODE_SPAN.sub(lit, _FENCE.sub(lit, md))


# LaTeX commands that name a letter or symbol a page shows as a character
_LATEX_SYMBOLS = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
    ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("iota", 0x3B9), ("kappa", 0x3BA),
    ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0), ("rho", 0x3C1),
    ("sigma", 0x3C3), ("tau", 0x3C4), ("upsilon", 0x3C5), ("phi", 0x3C6), ("chi", 0x3C7),
    ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398),
    ("Lambda", 0x39B), ("Xi", 0x39E), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6),
    ("Psi", 0x3A8), ("Omega", 0x3A9), ("aleph", 0x5D0), ("infty", 0x221E))}


_TEXT_CMD = re.compile(r"\\(?:text|mathrm|operatorname)\{([^{}]*)\}")


def _math_words(latex: str) -> str:
    texts = _TEXT_CMD.findall(latex)
    latex = _TEXT_CMD.sub(" ", latex)
    latex = re.sub(r"\\(?:begin|end)\{[^{}]*\}", " ", latex)  # environment names: markup
    latex = _LATEX_CMD.sub(lambda m: f" {_LATEX_SYMBOLS.get(m.group(0)[1:], '')} ", latex)
    latex = re.sub(r"[\^_{}]", " ", latex)  # x^{2}: the words x and 2, not "x2"
    latex = re.sub(r"(?<=\d)(?=[^\W\d_])|(?<=[^\W\d_])(?=\d)", " ", latex)  # 2x: 2 and x
    return latex + " " + " ".join(texts)


_IMG_ALT = re.compile(r"<img\b[^>]*?\balt=\"([^\"]*)\"[^>]*>", re.I)


_MD_IMG = re.compile(r"!\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)")


def _escaped_brackets(md: str) -> str:
    """``\\[``/``\\]`` are text, never link syntax (an alt text "logo[275]" escaped so
    must not end the image for the counter): written as other brackets."""
    return md.replace("\\[", "⟦").replace("\\]", "⟧")


def fair_md(md: str, alt: bool = True) -> str:
    """The Markdown as the fair word count reads it (see the module docstring); without
    ``alt``, pictures' alt texts are left out (the page's text has none)."""
    md = _NOTE_MARK.sub(" ", _escaped_brackets(md))
    md = _code_as_text(md)
    md = _IMG_ALT.sub(lambda m: f" {m.group(1) if alt else ''} <img>", md)
    if not alt:
        md = _MD_IMG.sub(" ", md)
    return _MATH.sub(lambda m: _math_words(m.group(0)), md)


def fair_words(md: str) -> list[str]:
    """Words of the Markdown for the text and precision scores (no alt texts)."""
    return md_words(fair_md(md, alt=False))


def _expand_merged(md: str) -> str:
    """HTML table cells repeated once per cell they cover (colspan × rowspan)."""
    def rep(m: re.Match) -> str:
        spans = [int(x) for x in re.findall(r"(?:col|row)span\s*=\s*[\"']?(\d+)", m.group(2), re.I)]
        n = 1
        for x in spans:
            n *= max(1, min(x, 100))
        return " ".join([m.group(0)] * n)
    return _CELL.sub(rep, md)


_LIST_TAG = re.compile(r"<(/?)(ol|ul|li)\b[^>]*>", re.I)


def _number_html_lists(md: str) -> str:
    """``<ol>`` items with the numbers a browser shows (``1.``), as Markdown lists have them."""
    stack: list[int | None] = []  # per open list: the next number, None for <ul>

    def rep(m: re.Match) -> str:
        close, tag = m.group(1), m.group(2).lower()
        if tag in ("ol", "ul"):
            if close:
                if stack:
                    stack.pop()
            else:
                stack.append(1 if tag == "ol" else None)
            return m.group(0)
        if not close and stack and stack[-1] is not None:
            stack[-1] += 1
            return f"{m.group(0)}{stack[-1] - 1}. "
        return m.group(0)
    return _LIST_TAG.sub(rep, md)


def fair_groundtruth_words(path: str) -> list[str]:
    """A groundtruth's words with sub/superscripts as words of their own and, for a
    pandoc native AST, its blocks only (the metadata left out)."""
    text = open(path, encoding="utf-8", errors="replace").read()
    if not path.endswith(".native"):
        return md_words(fair_md(text))
    body = re.split(r"^  \[", text, maxsplit=1, flags=re.M)[-1]
    body = re.sub(r"\b(Subscript|Superscript)\b", "Space \\1", body)  # a word boundary before
    return words(native_text(body))


def fair_cell(truth_counts: dict, ref: list[str], gt_path: str | None, md: str | None) -> dict:
    """The fair scores of one tool on one file (None where the file has nothing to score)."""
    if md is None:
        return {c: None for c in FAIR_COLUMNS} | {"ok": False}
    got = fair_words(md)
    out = {"ok": True, "text": recall(ref, got), "precision": recall(got, ref)}
    gtw = fair_groundtruth_words(gt_path) if gt_path else None
    if gtw:
        tool = md_words(_SUBSUP.sub(" ", _expand_merged(_number_html_lists(fair_md(md)))))
        out["groundtruth"] = recall(gtw, tool)
    else:
        out["groundtruth"] = None
    found = md_counts(_escaped_brackets(md))
    for col, key in (("links", "links_followable"), ("images", "images_obtainable")):
        n = truth_counts.get(key, 0)
        out[col] = min(found[col], n) / n if n else None
    return out


def add_fair(row: dict, truth_text_words: list[str], gt_path, mds: dict[str, str | None]) -> None:
    """Put each tool's fair scores into ``row["fair"]`` (web kinds only)."""
    if "links_followable" not in row["truth"]:
        return
    row["fair"] = {t: fair_cell(row["truth"], truth_text_words, str(gt_path) if gt_path else None, md)
                   for t, md in mds.items()}


def fair_tables_md(rows: list[dict], tools: list[str], kinds: list[str]) -> str:
    """One table per kind (and all files) of the fair scores, ✓/✗ for ours against the
    best peer; a failed file scores 0 where it has something to score."""
    out = []
    for kind in ["all"] + kinds:
        sub = [r for r in rows if "fair" in r and kind in ("all", r["kind"])]
        if not sub:
            continue
        means = {}
        for t in tools:
            for c in FAIR_COLUMNS:
                vals = []
                for r in sub:
                    if c in ("text", "precision") and not r["ref_words"]:
                        continue
                    if c == "groundtruth" and not r["gt_words"]:
                        continue
                    if c == "links" and not r["truth"].get("links_followable"):
                        continue
                    if c == "images" and not r["truth"].get("images_obtainable"):
                        continue
                    vals.append(r["fair"][t].get(c) or 0.0)
                means[t, c] = (statistics.fmean(vals), len(vals)) if vals else (None, 0)
        lines = [f"**{kind}**", "", "| tool | " + " | ".join(FAIR_COLUMNS) + " |",
                 "|---|" + "---|" * len(FAIR_COLUMNS)]
        for t in tools:
            cells = []
            for c in FAIR_COLUMNS:
                v, _n = means[t, c]
                s = "—" if v is None else f"{v:.3f}"
                peers = [means[p, c][0] for p in tools if p != "ours" and means[p, c][0] is not None]
                if t == "ours" and v is not None and peers:
                    s += " ✓" if v >= max(peers) - 1e-9 else " ✗"
                cells.append(s)
            lines.append(f"| {t} | " + " | ".join(cells) + " |")
        lines.append("")
        lines.append("files scored: " + " · ".join(f"{c}: n={means[tools[0], c][1]}" for c in FAIR_COLUMNS))
        out.append("\n".join(lines))
    return "\n\n".join(out)
