"""What a Markdown text carries, as a list of comparable items (for the MinerU 4 reader test).

Two Markdown texts that say the same thing in different spellings (a pipe table or an HTML
table, ``*`` or ``<em>``, four or three spaces of list indent, escapes) give the same outline:

* ``("h", level, text)`` a heading; ``("p", text)`` a paragraph; ``("li", text)`` a list item
  (nesting is not compared: MinerU 4 indents by four spaces, we by the marker's width);
* ``("table", rows)`` a table as rows of cell texts, from a pipe table or an HTML table;
* ``("img", src)`` a picture reference; ``("code", text)`` a fenced block.

Notes are paragraphs (``[^1]: ...`` in ours, a ``<small>`` span in MinerU 4's), their
references plain ``^1``.

Texts are what a reader sees: escapes resolved, emphasis and tags dropped, whitespace collapsed.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_SPACE = re.compile(r"\s+")
_TAG = re.compile(r"<[^>]+>")


# our Markdown writes < and > in display maths as \lt and \gt (safe in any reader)
_LATEX_SAFE = {"\\lt ": "<", "\\gt ": ">", "\\lt": "<", "\\gt": ">"}


def norm(text: str) -> str:
    text = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", text))).strip()
    for a, b in _LATEX_SAFE.items():
        text = text.replace(a, b)
    return text


class _Tables(HTMLParser):
    """Rows of cell texts, and picture sources, from HTML."""

    def __init__(self):
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.images: list[str] = []
        self.cell: list[str] | None = None
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.tables.append([])
        elif tag == "tr" and self.depth == 1:
            self.tables[-1].append([])
        elif tag in ("td", "th") and self.depth == 1:
            self.cell = []
        elif tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        elif tag == "br" and self.cell is not None:
            self.cell.append(" ")

    def handle_endtag(self, tag):
        if tag == "table":
            self.depth -= 1
        elif tag in ("td", "th") and self.cell is not None and self.depth == 1:
            self.tables[-1][-1].append(norm("".join(self.cell)))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def _inline(token) -> tuple[str, list[str]]:
    """An inline token's visible text and the pictures it shows."""
    parts, images = [], []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            images.append(child.attrs.get("src", ""))
        elif child.type == "html_inline":
            if re.match(r"<br\s*/?>", child.content, re.I):
                parts.append(" ")
            m = re.search(r'src="([^"]*)"', child.content)
            if m:
                images.append(html.unescape(m.group(1)))
    return norm("".join(parts)), images


_NOTE_DEF = re.compile(r"(?m)^\[\^[^\]\n]+\]:[ \t]*")
_NOTE_REF = re.compile(r"\\?\[\^([^\]\n]+)\\?\]")


def outline(markdown: str) -> list[tuple]:
    # notes: "[^1]" is a link to a reader without footnotes; both sides as plain "^1"
    markdown = _NOTE_REF.sub(r"^\1", _NOTE_DEF.sub("", markdown))
    tokens = _MD.parse(markdown)
    out: list[tuple] = []
    i = 0
    in_item = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            text, images = _inline(tokens[i + 1])
            out.append(("h", int(t.tag[1]), text))
            out += [("img", s) for s in images]
            i += 3
            continue
        if t.type == "list_item_open":
            in_item += 1
        elif t.type == "list_item_close":
            in_item -= 1
        elif t.type == "inline" and tokens[i - 1].type == "paragraph_open":
            text, images = _inline(t)
            if text:
                if in_item and out and out[-1][0] == "li" and tokens[i - 2].type != "list_item_open":
                    out[-1] = ("li", out[-1][1] + " " + text)  # an item's second paragraph
                else:
                    out.append(("li" if in_item else "p", text))
            out += [("img", s) for s in images]
        elif t.type == "table_open":
            rows, j = [], i + 1
            while tokens[j].type != "table_close":
                if tokens[j].type == "tr_open":
                    rows.append([])
                elif tokens[j].type == "inline":
                    rows[-1].append(_inline(tokens[j])[0])
                j += 1
            out.append(("table", rows))
            i = j
        elif t.type == "html_block":
            parser = _Tables()
            parser.feed(t.content)
            out += [("table", rows) for rows in parser.tables]
            out += [("img", s) for s in parser.images]
            if not parser.tables and not parser.images and norm(t.content):
                out.append(("p", norm(t.content)))
        elif t.type in ("fence", "code_block"):
            out.append(("code", t.content.strip("\n")))
        i += 1
    return out


def html_rows(markup: str) -> list[list[list[str]]]:
    parser = _Tables()
    parser.feed(markup)
    return parser.tables
