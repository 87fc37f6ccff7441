"""The web and RTF readers, and what they share, against crafted hostile files (issue 32,
items 6, 7, 8, 9, 12, 13, 14 and 16). Every file is built here, small; each case runs
``parse BAD GOOD -o OUT`` in a child under a 2.5 GB address-space limit, and checks that
the bad file ends in output, a `content cut:` warning or one `error:` line, that the good
file after it is read, and that nothing under ``-o`` can run a script."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MEMORY = int(2.5 * (1 << 30))  # the bound per file


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def parse_batch(tmp_path: Path, bad: Path, *extra: str) -> subprocess.CompletedProcess:
    """``parse BAD good.html -o out`` in a child limited to 2.5 GB; the good page must be
    read whatever happened to the bad file, and no internal error is allowed."""
    good = tmp_path / "good.html"
    good.write_text("<html><body><p>the good page</p></body></html>")
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", str(bad), str(good),
                        "-o", str(tmp_path / "out"), *extra],
                       cwd=ROOT, capture_output=True, text=True, timeout=600,
                       preexec_fn=_limited)
    assert "the good page" in (tmp_path / "out" / "good" / "good.md").read_text()
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
    return r


def _nested_html_tables(depth: int) -> str:
    return ("<html><body>" + "<table><tr><td>a</td><td>" * depth + "deepest"
            + "</td></tr></table>" * depth + "</body></html>")


def _nested_rtf_tables(depth: int) -> bytes:
    """A table in a cell of a table, ``depth`` levels (``\\itap``, ``\\nestcell``)."""
    inner = b""
    for k in range(depth, 1, -1):  # built from the innermost level out
        inner = inner + (rb"\pard\intbl\itap%d a\nestcell b\nestcell"
                         rb"{\*\nesttableprops\trowd\cellx2000\cellx4000\nestrow}" % k)
    return (rb"{\rtf1\trowd\cellx5000" + inner + rb"\pard\intbl\itap1 a\cell b\cell\row"
            rb"\pard\itap0 Outside\par}")


def test_html_tables_nested_as_deep_as_the_reader_goes_are_written(tmp_path):
    bad = tmp_path / "nest.html"
    bad.write_text(_nested_html_tables(300))  # 54 crashed the writer; the reader keeps 160 elements
    r = parse_batch(tmp_path, bad)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "out" / "nest" / "nest.md").read_text()
    assert md.count("<table>") >= 54 and "deepest" in md
    assert (tmp_path / "out" / "nest" / "nest_content_list.json").is_file()


def test_rtf_tables_nested_64_levels_are_written_and_deeper_ones_join_the_64th(tmp_path):
    bad = tmp_path / "nest.rtf"
    bad.write_bytes(_nested_rtf_tables(64))  # 56 crashed the writer
    r = parse_batch(tmp_path, bad)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "nest" / "nest.md").read_text().count("<table>") == 64
    deeper = tmp_path / "deeper.rtf"
    deeper.write_bytes(_nested_rtf_tables(200))
    r = parse_batch(tmp_path, deeper, "-v")
    assert "nested deeper than 64 levels" in r.stderr
    md = (tmp_path / "out" / "deeper" / "deeper.md").read_text()
    assert md.count("<table>") == 64 and md.count(">a<") >= 200  # every level's text kept


def test_the_writers_take_any_depth_of_nested_tables():
    from mineru_tui.document import Document, Page, text_block, text_span
    from mineru_tui.document.content_list import to_content_list
    from mineru_tui.document.markdown import to_markdown
    from mineru_tui.document.middle_json import to_middle_json
    from mineru_tui.document.model import Cell, Table, table_block

    block = text_block([text_span("deepest\x1b[31m")])
    for _ in range(2000):  # far past Python's 1,000 frames
        block = table_block(Table([[Cell([text_block([text_span("a")])]), Cell([block])]]))
    doc = Document(pages=[Page(0, para_blocks=[block])])
    md = to_markdown(doc)
    assert md.count("<table>") == 2000 and "deepest[31m" in md and "\x1b" not in md
    assert to_content_list(doc)[0]["table_body"].count("<table>") == 2000
    assert to_middle_json(doc)["pdf_info"][0]["para_blocks"][0]
