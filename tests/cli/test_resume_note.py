"""`parse -o` of a file whose journal holds finished pages says it resumed (README: "resumed at
page 18 of 20"), on stderr, in one line; `-q` leaves it out."""
from __future__ import annotations

import threading

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.events import PageDone
from mineru_tui.output import journal_path
from mineru_tui.reader import PagesInterrupted
from testkit import pdf_fixtures as pf
from tests.cli_fixtures import cli


def text_pdf(path, pages: int = 4):
    return pf.write_pdf(path, [pf.Page(items=list(pf.text_lines([f"Page {n} has its own words.",
                                                                "A second line follows it."])))
                               for n in range(pages)])


def interrupted_after(pdf, out, pages: int) -> None:
    """Read ``pdf`` at effort low into ``out``'s journal and stop after ``pages`` pages."""
    cancel = threading.Event()

    def on_event(e):
        if isinstance(e, PageDone) and e.page + 1 == pages:
            cancel.set()

    options = ConvertOptions(effort="low", journal=journal_path(out, pdf.stem))
    with pytest.raises(PagesInterrupted):
        convert(pdf, options, on_event=on_event, cancel=cancel)
    assert journal_path(out, pdf.stem).exists()


@pytest.mark.parametrize("quiet", [False, True])
def test_parse_says_it_resumed(tmp_path, quiet):
    pdf, out = text_pdf(tmp_path / "doc.pdf"), tmp_path / "out"
    interrupted_after(pdf, out, 2)
    r = cli("parse", pdf, "--effort", "low", "-o", out, *(["-q"] if quiet else []))
    assert r.exit_code == 0, r.stderr
    notes = [line for line in r.stderr.splitlines() if "resumed" in line]
    assert notes == ([] if quiet else
                     [f"note: {pdf}: resumed at page 3 of 4 (2 pages kept from an earlier run)"])
    assert (out / "doc" / "doc.md").exists() and not journal_path(out, "doc").exists()
