"""A page whose parse would take the process down is refused alone (issue 19, point 6).

The PDFs are crafted in the test (tests/hostile_pdfs.py): a content-stream bomb scaled
down, read under small limits so the tests stay fast and light. The CLI test runs
``parse bomb.pdf good.pdf`` under an address-space limit (RLIMIT_AS), as the issue's
attack did: without the page probe PDFium aborts the process and good.pdf is never read.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest
from tests.hostile_pdfs import GOOD_PAGE, bomb_content, build_pdf

from mineru_tui.pdf.reader import PageError, open_pdf

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="RLIMIT_AS is enforced on Linux")


def test_a_bomb_page_is_refused_and_the_next_page_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_PAGE_MEMORY_MB", "64")
    path = tmp_path / "bomb.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, bomb_content(8 << 20), GOOD_PAGE]))
    seen = []
    with open_pdf(path) as pdf:
        for page in pdf:
            try:
                seen.append(page.size_pt)
            except PageError as e:
                seen.append(str(e))
    assert seen[0] == seen[2] == (612.0, 792.0)
    assert seen[1].startswith("page 2 cannot be loaded: its content cannot be parsed within 64 MiB")


def test_a_page_with_too_many_objects_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_PAGE_OBJECTS", "1000")
    path = tmp_path / "many.pdf"
    path.write_bytes(build_pdf([bomb_content(14 * 2000), GOOD_PAGE]))
    with open_pdf(path) as pdf:
        pages = list(pdf)
        with pytest.raises(PageError, match=r"page 1 cannot be loaded: it has 2,001 objects"):
            _ = pages[0].size_pt
        assert pages[1].size_pt == (612.0, 792.0)


def _limit(nbytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return apply


def test_parse_of_a_bomb_and_a_good_pdf_reads_the_good_one(tmp_path):
    # 64 MiB of operators (about 1.8 GB to parse) in a 1.5 GB process
    (tmp_path / "bomb.pdf").write_bytes(build_pdf([bomb_content(64 << 20)]))
    (tmp_path / "good.pdf").write_bytes(build_pdf([GOOD_PAGE]))
    env = {**os.environ, "MINERU_TUI_PAGE_MEMORY_MB": "256"}
    proc = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", "--effort", "low",
                           "bomb.pdf", "good.pdf"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300, preexec_fn=_limit(1536 << 20))
    assert proc.returncode == 1, proc.stderr
    assert "Hello from a good page" in proc.stdout
    errors = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert errors == ["error: bomb.pdf: page 1 cannot be loaded: its content cannot be parsed "
                      "within 256 MiB (a content-stream bomb, or a damaged page)"], proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_output_set_of_a_pdf_with_a_bomb_page_is_written(tmp_path):
    """The other pages are written, and the layout drawing has a blank page for the bomb."""
    # two different good pages: one line repeated on every page would be page furniture
    other = GOOD_PAGE.replace(b"(Hello from a good page)", b"(Hello from the last page)")
    (tmp_path / "mixed.pdf").write_bytes(build_pdf([GOOD_PAGE, bomb_content(8 << 20), other]))
    env = {**os.environ, "MINERU_TUI_PAGE_MEMORY_MB": "64"}
    proc = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", "--effort", "low", "mixed.pdf",
                           "-o", "out"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "out" / "mixed" / "mixed.md").read_text()
    assert "Hello from a good page" in md and "Hello from the last page" in md
    assert "page 2 was not read: page 2 cannot be loaded" in proc.stderr
    with open_pdf(tmp_path / "out" / "mixed" / "mixed_layout.pdf") as drawing:
        assert len(drawing) == 3


def dense_text(rows: int = 340, words: int = 30) -> bytes:
    """A page of ``rows`` lines of ``words`` small words (51,000 characters at the defaults):
    PDFium parses it in well under a MiB; reading its text takes tens of MiB."""
    line = b"(" + b" ".join(b"w%03d" % (k % 1000) for k in range(words)) + b") Tj T* "
    return b"BT /F1 2 Tf 2.2 TL 10 780 Td " + line * rows + b"ET\n"


def test_a_page_whose_reading_kills_the_probe_child_is_read_in_the_reading_process(tmp_path, monkeypatch):
    """At effort low the probe's child reads each page after loading it. A page that loads
    within the memory limit but whose reading goes over it (here 16 MiB, a dense text page)
    ends the child after the load passed: the page is not refused, the reading process reads
    it, and the output is that of a run without the probe."""
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.document import to_markdown, to_middle_json
    from mineru_tui.pdf.probe import PageProbe
    from mineru_tui.reader.sources import WHOLE_PAGE_CHILD

    path = tmp_path / "dense.pdf"
    other = GOOD_PAGE.replace(b"(Hello from a good page)", b"(Hello from the last page)")
    path.write_bytes(build_pdf([GOOD_PAGE, dense_text(), other]))
    monkeypatch.setenv("MINERU_TUI_PAGE_MEMORY_MB", "16")
    probe = PageProbe(path, reader=WHOLE_PAGE_CHILD, reading={"classify": True})
    try:
        answers = [probe.read(i, i) for i in range(3)]
        assert answers[0] is not None and answers[2] is not None
        assert answers[1] is None and probe.check(1) is None  # died reading, not loading
    finally:
        probe.close()

    docs = {}
    for probe_on in ("1", "0"):
        monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", probe_on)
        doc = convert(path, ConvertOptions(engine=None, effort="low"))
        docs[probe_on] = (to_markdown(doc), to_middle_json(doc), doc.warnings)
    assert docs["1"] == docs["0"]
    md = docs["1"][0]
    assert "Hello from a good page" in md and "Hello from the last page" in md
    assert md.count("w017") == 340  # every line of the dense page
