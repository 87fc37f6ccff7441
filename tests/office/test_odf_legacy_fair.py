"""The fair scoring rules of bench/odf_legacy_fair.py on the corpus's real groundtruths and
our own output: each rule gives the same canonical form to both ways of writing a thing."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from md_metrics import md_words, words  # noqa: E402
from odf_legacy_fair import (canonical_tables, headings, real_tables,  # noqa: E402
                             strip_labels, without_passages)

from mineru_tui.convert import convert  # noqa: E402
from mineru_tui.document import to_markdown  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "odf_legacy"
GT = CORPUS / "groundtruth"


def _first_table(md: str) -> str:
    """The first table of ``md``: an HTML table, or the first run of pipe-table lines."""
    if "<table" in md:
        return md[md.index("<table"):md.index("</table>") + 8]
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end])


def test_a_merged_cell_counts_once_however_it_is_written():
    repeated = (GT / "docling__legacy_sample.ppt.md").read_text()  # merges written out
    empty = (GT / "docling__odf_presentation_01.odp.md").read_text()  # covered cells empty
    ours = to_markdown(convert(CORPUS / "docling__legacy_sample.ppt"))  # colspan/rowspan
    assert Counter(md_words(repeated))["class1"] == 3
    canon = Counter(md_words(canonical_tables(repeated)))
    assert canon["class1"] == 1 and canon["r4"] == 1
    assert Counter(md_words(canonical_tables(_first_table(repeated)))) == \
        Counter(md_words(canonical_tables(_first_table(ours))))
    assert canonical_tables(empty).count("Class1") == 1


def test_one_cell_tables_are_paragraphs_and_slide_numbers_are_not_headings():
    ods = (GT / "docling__odf_table_with_title_01.ods.md").read_text()
    assert real_tables(ods) == 1  # the lone title cell docling made a table is not one
    assert real_tables(to_markdown(convert(CORPUS / "docling__odf_table_with_title_01.ods"))) == 1
    odp = (GT / "docling__odf_presentation_01.odp.md").read_text()
    assert "# Slide3" in odp and headings(odp) == 2


def test_labels_are_not_words_and_passages_come_out_once():
    ours = to_markdown(convert(CORPUS / "pandoc__list_complex.rtf"))
    assert "- a. Three" in ours
    stripped = md_words(strip_labels(ours))
    assert "a" not in stripped and "ii" not in stripped and stripped[:2] == ["one", "two"]
    assert md_words(strip_labels("Text[^1] here\n\n[^1]: A note.")) == ["text", "here", "a", "note"]
    got = words("the notes on the slide and the notes")
    assert without_passages(got, [words("The notes"), words("absent passage")]) == \
        words("on the slide and the notes")
