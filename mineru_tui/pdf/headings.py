"""Headings without a model: what stands out from the body text and reads like a title.

A paragraph of the page's text is a heading when it is short (at most three lines, a
few words, not ending like a sentence) and stands out from the body text by one of:

* its size: type at least ``LARGER`` times the body's;
* its weight: (almost) all bold where the body is not — a bold line on its own, as
  Word, LibreOffice and LaTeX section titles are;
* a face of its own: a numbered or short title-case line all in italic over a roman
  body (``3.2 Results``, ``Elastic Stop Nut``), or a line or two in a font family other
  than the body's and a little larger (a sans-serif title over a serif body).

A lone numbered line (``2.5 Standards``) in type no smaller than the body's is a heading
too, when neither neighbour is numbered (that would be a numbered list): in a form set
all in bold, the numbers are all that tells a section title.

Captions (``Table 2``, ``Figure 3``), lead-ins ending in a colon (``For more
information:``) and web addresses are never headings, however set apart; nor are three
or more paragraphs in a row in one column that stand out alike with no text between
them (a cover's taglines, a sidebar's labels: a heading introduces text), unless they
are numbered. A chapter's number set alone in type 2.5 times the body's (``1``) is a
heading.

Levels follow the type's size relative to the body's, so that they agree from page to
page: 1.6 times the body or more is level 1, 1.3 times level 2, less level 3; a heading
that stands out by weight or face is level 3, or by its section number's depth (``1`` 2,
``5.1`` 3, ``2.1.3`` 4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LARGER = 1.15  # this much larger than the body's type stands out
MAX_LINES = 3
MAX_WORDS = 18
BOLD_SHARE = 0.9  # this share of a paragraph's letters bold makes it a bold paragraph
TOP_LEVEL = 1.6  # type this much larger than the body is a level-1 heading
CHAPTER_NUMBER = 2.5  # a number alone in type this much larger than the body is a chapter's
SECOND_LEVEL = 1.3  # and this much larger a level-2 one (smaller but standing out: level 3)

_NUMBERED = re.compile(r"^(?:(?:\d+(?:\.\d+)*|[IVXLC]+|[A-Z])\.?)\s+\S")
_DEPTH = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
_SENTENCE_END = re.compile(r"[.,;]$")
# captions are set apart like headings but MinerU reads them as captions, not titles
_CAPTION = re.compile(r"^(?:table|tab\.|figure|fig\.|listing|algorithm|chart|exhibit|source|note)s?\s*"
                      r"[\dIVX]", re.IGNORECASE)
_LETTER = re.compile(r"[^\W\d_]")
_WEB = re.compile(r"(?:https?://|www\.|\b[\w-]+\.(?:com|org|net|edu|gov|int)(?:/|\b))", re.IGNORECASE)


@dataclass
class Candidate:
    """What the rule needs to know of one paragraph."""

    text: str
    lines: int
    height: float  # type height (font height of the lines' largest glyphs)
    bold: float  # share of its letters drawn bold
    italic: float  # share drawn italic
    mono: float = 0.0  # share drawn in a monospaced face (code is never a heading)
    family: str = ""  # the font family most of it is drawn in
    block: int | None = None  # the part of the page (a column) it was read in, when known


def heading_levels(paras: list[Candidate], body_height: float, body_bold: float = 0.0,
                   body_italic: float = 0.0, body_family: str = "") -> list[int | None]:
    """For each paragraph, its heading level (1 = top), or None for body text."""
    marks = [_stands_out(p, body_height, body_bold, body_italic, body_family) for p in paras]
    for i in range(len(paras)):
        # a lone numbered line, in type no smaller than the body, where nothing else stands
        # out (a form or report set entirely in bold): "2.5 Standards", "-3 پذيرش در بورس"
        if marks[i] is None and _lone_section(paras, i, body_height):
            marks[i] = "number"
    _drop_label_runs(paras, marks)
    levels: list[int | None] = []
    for p, m in zip(paras, marks):
        if m is None:
            levels.append(None)
            continue
        number = _DEPTH.match(p.text)
        if m == "size":
            ratio = p.height / body_height if body_height else 1.0
            level = 1 if ratio >= TOP_LEVEL else 2 if ratio >= SECOND_LEVEL else 3
            if number:  # a top-level section number in slightly larger type: "1 Introduction"
                level = min(level, 2 + number.group(1).count("."))
        elif number:  # "1 Introduction" 2, "5.1 Results" 3, "2.1.3 …" 4
            level = 2 + number.group(1).count(".")
        else:
            level = 3
        levels.append(max(1, min(level, 6)))
    return levels


LABEL_RUN = 3  # this many paragraphs in a row, set alike and standing out, are labels


def _drop_label_runs(paras: list[Candidate], marks: list[str | None]) -> None:
    """Paragraphs that stand out the same way one after another in one column, with no
    text between them, are a column of labels (a cover's taglines, a sidebar's pull quotes, a list set
    in bold), not headings: a heading introduces text. Numbered section titles stay."""
    def alike(a: int, b: int) -> bool:
        pa, pb = paras[a], paras[b]
        return (marks[a] == marks[b] and pa.block == pb.block
                and abs(pa.height - pb.height) <= 0.05 * max(pa.height, pb.height)
                and (pa.bold >= BOLD_SHARE) == (pb.bold >= BOLD_SHARE))

    i = 0
    while i < len(paras):
        j = i + 1
        if marks[i] is not None:
            while j < len(paras) and marks[j] is not None and alike(i, j):
                j += 1
            if j - i >= LABEL_RUN and not any(_DEPTH.match(paras[k].text) for k in range(i, j)):
                for k in range(i, j):
                    marks[k] = None
        i = j


_SECTION = re.compile(r"^-?\d{1,2}(?:[.-]\d{1,2})*[.-]?\s+[^\W\d_]")
_ITEM = re.compile(r"^\(?(?:\d{1,3}|[a-z])[.)]\s")


def _bulleted(text: str) -> bool:
    """A bulleted list item (a check box glyph too) is never a heading."""
    from mineru_tui.pdf.lists import list_item

    item = list_item(text)
    return item is not None and item[0] == "-"


def _lone_section(paras: list[Candidate], i: int, body_height: float) -> bool:
    p = paras[i]
    text = p.text.strip()
    if (p.lines != 1 or len(text.split()) > 8 or not _SECTION.match(text) or _SENTENCE_END.search(text)
            or _CAPTION.match(text) or p.height < 0.95 * body_height or p.mono > 0.5):
        return False
    near = [paras[j].text.strip() for j in (i - 1, i + 1) if 0 <= j < len(paras)]
    return not any(_SECTION.match(t) or _ITEM.match(t) for t in near)  # not a numbered list


def _stands_out(p: Candidate, body_height: float, body_bold: float, body_italic: float,
                body_family: str = "") -> str | None:
    text = p.text.strip()
    words = text.split()
    if text.isdigit() and len(text) <= 2 and p.lines == 1 and body_height > 0 \
            and p.height >= CHAPTER_NUMBER * body_height:
        return "size"  # a chapter's number set large on its own ("1" over "Securing ...")
    if (not words or p.lines > MAX_LINES or len(words) > MAX_WORDS or p.mono > 0.5
            or not _LETTER.search(text) or _CAPTION.match(text) or _bulleted(text)):
        return None
    ends_like_sentence = bool(_SENTENCE_END.search(text)) and (not _NUMBERED.match(text) or len(words) > 6)
    if ends_like_sentence and len(words) > 3:
        return None
    if text.endswith(":") or _WEB.search(text):  # a lead-in ("For more information:"), an address
        return None
    if body_height > 0 and p.height >= LARGER * body_height:
        return "size"
    if p.height < 0.9 * body_height:  # smaller type: a caption, a note, a label
        return None
    if p.bold >= BOLD_SHARE and body_bold < 0.5:
        return "weight"
    other_family = bool(p.family and body_family and p.family != body_family)
    if other_family and p.lines <= 2 and p.height >= 1.05 * body_height and not ends_like_sentence:
        return "face"
    short_title = p.lines == 1 and len(words) <= 6 and text[0].isupper() and not ends_like_sentence
    if p.italic >= BOLD_SHARE and body_italic < 0.5 and (_NUMBERED.match(text) or short_title):
        return "face"
    return None


def pdf_outline(path) -> list:
    """The PDF's bookmarks as :class:`~mineru_tui.document.headings.OutlineEntry` (depth 1 =
    top, title, 0-based page), or an empty list when it has none or cannot be read."""
    from mineru_tui.document.headings import OutlineEntry
    from mineru_tui.pdf.reader import open_pdf

    try:
        with open_pdf(path) as pdf:
            entries = []
            for item in pdf.raw.get_toc(max_depth=16):
                dest = item.get_dest()
                page = dest.get_index() if dest is not None else None
                entries.append(OutlineEntry(item.level + 1, (item.get_title() or "").strip(),
                                            page if isinstance(page, int) and page >= 0 else None))
            return entries
    except Exception:  # noqa: BLE001 - a damaged outline only loses this signal
        return []
