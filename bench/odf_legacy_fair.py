"""Fair scores for the OpenDocument/RTF/legacy corpus: the same rules for every tool.

The groundtruths of the corpus write a few things their own way; these rules put every
tool's Markdown *and* the groundtruth in one canonical form before words and structure
are counted, so a tool is not scored on the groundtruth's conventions
(``bench/odf_legacy.py`` prints the plain scores beside these):

* :func:`canonical_tables` — a merged cell's text counts once: every table (pipe or HTML)
  is laid on its grid (``colspan``/``rowspan`` expanded), then a cell repeating the text of
  its left or upper neighbour is blanked. docling's PPT groundtruth repeats a merged cell in
  every cell it covers, its ODP one leaves the covered cells empty; both become the same.
* :func:`strip_labels` — list labels and note labels are not words: a list item's marker
  and a leading label ("a.", "ii.", "3.1.", "(a)") and footnote labels (``[^1]``) are
  dropped. Pandoc's AST keeps list numbers as attributes, not text.
* :func:`real_tables` — a one-cell "table" is a paragraph: docling makes a sheet's lone
  title cell a 1×1 table, others a paragraph; tables are counted with at least two cells.
* :func:`slide_number_heading` — a heading that is only a slide's number ("Slide3", which
  docling writes for a slide without a title) is not counted as a heading.
* :func:`without_passages` — for precision *without* what the groundtruth leaves out on
  purpose (speaker notes, sheet names), the first occurrence of each such passage (as a
  run of words) is taken out of a tool's words; a tool that does not write it loses nothing.
"""
from __future__ import annotations

import html
import re

_PIPE_DELIM = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_HTML_TABLE = re.compile(r"<table\b.*?</table>", re.S | re.I)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S | re.I)
_CELL = re.compile(r"<t([dh])\b([^>]*)>(.*?)</t\1>", re.S | re.I)


def _grid_text(rows: list[list[tuple[str, int, int]]]) -> list[list[str]]:
    """Rows of (text, colspan, rowspan) laid on a grid, spans repeated into the cells they
    cover."""
    grid: dict[tuple[int, int], str] = {}
    for r, row in enumerate(rows):
        c = 0
        for text, colspan, rowspan in row:
            while (r, c) in grid:
                c += 1
            for dr in range(rowspan):
                for dc in range(colspan):
                    grid.setdefault((r + dr, c + dc), text)
            c += colspan
    if not grid:
        return []
    height = max(r for r, _ in grid) + 1
    width = max(c for _, c in grid) + 1
    return [[grid.get((r, c), "") for c in range(width)] for r in range(height)]


def _deduplicated(grid: list[list[str]]) -> list[list[str]]:
    """A cell repeating its left or upper neighbour's text blanked (a merge written out)."""
    out = [row[:] for row in grid]
    for r, row in enumerate(grid):
        for c, text in enumerate(row):
            key = text.strip().casefold()
            if key and ((c and grid[r][c - 1].strip().casefold() == key)
                        or (r and c < len(grid[r - 1])
                            and grid[r - 1][c].strip().casefold() == key)):
                out[r][c] = ""
    return out


def _span(attrs: str, name: str) -> int:
    m = re.search(name + r"\s*=\s*[\"']?(\d+)", attrs, re.I)
    return max(1, min(int(m.group(1)), 1000)) if m else 1


def _html_rows(table: str) -> list[list[tuple[str, int, int]]]:
    rows = []
    for row in _ROW.findall(table):
        cells = []
        for _, attrs, body in _CELL.findall(row):
            text = html.unescape(re.sub(r"<[^>]+>", " ", body))
            cells.append((" ".join(text.split()), _span(attrs, "colspan"), _span(attrs, "rowspan")))
        rows.append(cells)
    return rows


def _pipe_cells(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)]


def _tables(md: str):
    """(start, end, rows) of each table of ``md``: HTML tables and pipe tables."""
    found = [(m.start(), m.end(), _html_rows(m.group(0))) for m in _HTML_TABLE.finditer(md)]
    lines = md.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    i = 1
    while i < len(lines):
        if (_PIPE_DELIM.match(lines[i]) and "|" in lines[i]
                and lines[i - 1].lstrip().startswith("|")):
            j = i + 1
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            rows = [[(c, 1, 1) for c in _pipe_cells(lines[k])] for k in [i - 1, *range(i + 1, j)]]
            found.append((offsets[i - 1], offsets[j], rows))
            i = j
        else:
            i += 1
    return sorted(found)


def canonical_tables(md: str) -> str:
    """``md`` with every table written as its deduplicated grid, a row per line."""
    out, pos = [], 0
    for start, end, rows in _tables(md):
        if start < pos:
            continue
        grid = _deduplicated(_grid_text(rows))
        out.append(md[pos:start])
        out.append("\n" + "\n".join(" | ".join(row) for row in grid) + "\n")
        pos = end
    out.append(md[pos:])
    return "".join(out)


def real_tables(md: str) -> int:
    """Tables with at least two cells (a one-cell table is a paragraph)."""
    return sum(1 for _, _, rows in _tables(md)
               if len(_grid_text(rows)) * max((len(r) for r in _grid_text(rows)), default=0) >= 2)


_LABEL = r"(?:\(?(?:\d{1,3}|[a-zA-Z]|[ivxlcdmIVXLCDM]{1,6})(?:\.\d{1,3})*[.)]\s+)"
_ITEM = re.compile(rf"^(\s*)(?:[-*+]|\d{{1,9}}[.)])\s+{_LABEL}?", re.M)


def strip_labels(md: str) -> str:
    """List markers, items' own labels ("a.", "3.1.", "(ii)") and footnote labels removed."""
    md = _ITEM.sub(r"\1", md)
    md = re.sub(r"<li\b[^>]*>\s*" + _LABEL + "?", " ", md, flags=re.I)
    md = re.sub(r"\[\^[^\]\s]+\]:?", " ", md)
    return md


def slide_number_heading(text: str) -> bool:
    """A heading whose whole text is a slide's number ("Slide3", "Slide 3")."""
    return re.fullmatch(r"\s*slide\s*\d+\s*", text, re.I) is not None


def headings(md: str) -> int:
    """ATX and HTML headings, leaving out headings that are only a slide's number."""
    body = re.sub(r"^```.*?^```", "", md, flags=re.S | re.M)
    found = re.findall(r"^ {0,3}#{1,6}\s+(\S.*)$", body, re.M)
    found += [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]>",
                                                             body, re.I | re.S)]
    return sum(1 for h in found if not slide_number_heading(h.strip("# ")))


def without_passages(words: list[str], passages: list[list[str]]) -> list[str]:
    """``words`` with the first occurrence of each passage (a run of words) taken out."""
    words = list(words)
    for p in passages:
        n = len(p)
        if not n:
            continue
        for i in range(len(words) - n + 1):
            if words[i:i + n] == p:
                del words[i:i + n]
                break
    return words
