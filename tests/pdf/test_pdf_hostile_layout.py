"""The text layer at ``--effort low`` against crafted pages (issue 32, items 9 and 16):
link annotations cost about their own text, and the column cut keeps no Python stack."""

from __future__ import annotations

import zlib
from pathlib import Path

from mineru_tui.pdf import columns, links, open_pdf
from mineru_tui.pdf.chars import page_chars


def _pdf(ops: list[str], size: tuple[float, float], annots: list[str] = ()) -> bytes:
    """One page of Helvetica text drawn by ``ops``, with link annotations ``annots``
    (dictionaries), a correct xref."""
    content = zlib.compress("\n".join(ops).encode())
    refs = " ".join(f"{6 + i} 0 R" for i in range(len(annots)))
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {size[0]:.0f} {size[1]:.0f}] "
             f"/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R /Annots [{refs}] >>").encode(),
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content
            + b"\nendstream"] + [a.encode() for a in annots]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for k, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def _link(rect: tuple[float, float, float, float], uri: str) -> str:
    return ("<< /Type /Annot /Subtype /Link /Rect [%.1f %.1f %.1f %.1f] /Border [0 0 0] "
            "/A << /S /URI /URI (%s) >> >>" % (*rect, uri))


LINES = 90


def _text_page(annots: list[str]) -> bytes:
    ops = [f"BT /F1 8 Tf 40 {770 - 8 * i} Td (line {i} with some words a link may cover) Tj ET"
           for i in range(LINES)]
    return _pdf(ops, (612, 792), annots)


def _markdown(tmp_path: Path, data: bytes) -> str:
    import subprocess
    import sys

    path = tmp_path / "links.pdf"
    path.write_bytes(data)
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", "--effort", "low", str(path)],
                       capture_output=True, text=True, timeout=600,
                       cwd=Path(__file__).resolve().parents[2])
    assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr
    return r.stdout


def test_a_link_per_line_links_each_line(tmp_path):
    annots = [_link((38, 768 - 8 * i, 300, 778 - 8 * i), f"https://example.com/{i}") for i in range(LINES)]
    md = _markdown(tmp_path, _text_page(annots))
    assert "[line 0 with some words a link may cover](https://example.com/0)" in md
    assert md.count("](https://example.com/") == LINES


def test_links_over_the_whole_page_cost_their_text_once(tmp_path, monkeypatch):
    """1,000 links over the whole page and 1,000 over distinct stretches of 40 lines: the
    characters read into link texts stay within the page's bound (the cost was links ×
    characters: 214 s for 1,000 links)."""
    from mineru_tui.pdf import lines

    read = []
    real = lines.build_lines
    monkeypatch.setattr(lines, "build_lines", lambda chars, *a, **k: read.append(len(chars)) or real(chars, *a, **k))
    whole = [_link((0, 0, 612, 792), f"https://example.com/w{i}") for i in range(1000)]
    distinct = [_link((i % 200, 440 - i // 200, 612 - i % 7, 780), f"https://example.com/d{i}")
                for i in range(1000)]
    path = tmp_path / "many.pdf"
    path.write_bytes(_text_page(whole + distinct))
    with open_pdf(path) as doc, doc[0] as page:
        chars = [c for c in page_chars(page) if c.direction == 0]
        found = links.linked_texts(links.page_links(page), chars)
    assert len(chars) > links.MAX_LINK_CHARS  # a whole-page link covers too much to be read
    assert not any(uri.startswith("https://example.com/w") for _, uri, _ in found)
    assert sum(read) <= links.MAX_PAGE_LINK_CHARS + links.MAX_LINK_CHARS
    assert "line 0 with some words" in _markdown(tmp_path, path.read_bytes())


def _staircase(levels: int) -> bytes:
    """Two rows per level: a glyph stretched (``Tz``) from the margin to the level's gutter
    and one glyph past it, each level's gutter further right: narrow rows beside wide
    pieces, cut column, then band, then column again."""
    h, step, gap = 4.0, 8.0, 6.0
    width, height = 80 + step * levels, 40 + 12 * levels
    ops = []
    for j in range(levels):
        p = 20 + step * j
        for r in range(2):
            y = height - 20 - (2 * j + r) * 6
            scale = (p - gap / 2 - 5) / (0.944 * h) * 100
            ops.append(f"BT /F1 {h} Tf {scale:.2f} Tz 5 {y} Td (W) Tj ET")
            ops.append(f"BT /F1 {h} Tf 100 Tz {p + gap / 2:.2f} {y} Td (W) Tj ET")
    return _pdf(ops, (width, height))


def _recursive_cut(pieces, rtl, place=(None, 0), counter=None):
    """The cut as it was written before (recursive), the reference for reading order."""
    counter = [0] if counter is None else counter
    cut = columns._cut_once(pieces, rtl)
    if cut is None:
        return [(pieces, *place)]
    parts, are_columns = cut
    if are_columns:
        stretch = counter[0]
        counter[0] += 1
        return [leaf for k, c in enumerate(parts) for leaf in _recursive_cut(c, rtl, (stretch, k), counter)]
    return [leaf for g in parts for leaf in _recursive_cut(g, rtl, place, counter)]


def test_the_column_cut_reads_a_staircase_in_the_same_order_without_recursion(tmp_path):
    import inspect
    import sys

    from mineru_tui.pdf.lines import _glyphs

    path = tmp_path / "stairs.pdf"
    path.write_bytes(_staircase(300))
    with open_pdf(path) as doc, doc[0] as page:
        glyphs = _glyphs(page_chars(page), 0)
    pieces = columns._pieces(glyphs)
    expected = [([id(p) for p in leaf], s, c) for leaf, s, c in _recursive_cut(pieces, False)]
    limit = sys.getrecursionlimit()
    here = len(inspect.stack(0))
    sys.setrecursionlimit(here + 30)  # the iterative cut needs no stack: a few frames more
    try:
        got = columns._cut(pieces, False)
    finally:
        sys.setrecursionlimit(limit)
    assert [([id(p) for p in leaf], s, c) for leaf, s, c in got] == expected
    assert len(got) >= 300


def test_the_column_cut_goes_any_depth(monkeypatch):
    """A cut that peels one piece per level, 5,000 levels deep (Python's stack holds 1,000)."""
    monkeypatch.setattr(columns, "_cut_once",
                        lambda ps, rtl: None if len(ps) <= 1 else ([ps[:1], ps[1:]], len(ps) % 2 == 0))
    pieces = [columns._Piece() for _ in range(5000)]
    got = columns._cut(pieces, False)
    assert [leaf[0] for leaf, _, _ in got] == pieces
    assert len({s for _, s, _ in got if s is not None}) == 2500


def test_links_past_the_pages_bound_stay_text_and_the_file_says_so(tmp_path, monkeypatch):
    """Past the page's bound on link text the rest of its links are left as plain text, with a
    ``content cut:`` warning naming the page (nothing is dropped silently)."""
    from mineru_tui.convert import ConvertOptions, convert

    annots = [_link((38, 768 - 8 * i, 300, 778 - 8 * i), f"https://example.com/{i}") for i in range(LINES)]
    path = tmp_path / "links.pdf"
    path.write_bytes(_text_page(annots))
    whole = convert(path, ConvertOptions(effort="low"))
    assert not any("under its links" in w for w in whole.warnings)
    monkeypatch.setattr(links, "MAX_PAGE_LINK_CHARS", 200)  # a few lines' worth
    monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", "0")  # the patch is here: read the page here
    cut = convert(path, ConvertOptions(effort="low"))
    assert [w for w in cut.warnings if "under its links" in w] == [
        "content cut: page 1: more than 200 characters under its links; the rest of its links "
        "are left as plain text"]
    md_links = sum(s.link is not None for p in cut.pages for b in p.para_blocks
                   for ln in b.lines for s in ln.spans)
    assert 0 < md_links < LINES
    assert "line 89 with some words" in " ".join(s.content for p in cut.pages for b in p.para_blocks
                                                   for ln in b.lines for s in ln.spans)
