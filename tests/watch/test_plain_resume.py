"""`watch --plain` says when a file resumed from its journal (README: `watch` of the same file
resumes after the pages kept, "resumed at page 18 of 20"), or started over and why."""
from __future__ import annotations

from mineru_tui import events as je
from mineru_tui.watch.plain import describe


def test_plain_prints_the_resume_note():
    note = "resumed at page 25 of 100 (24 pages kept from an earlier run)"
    line = describe(je.PagesResumed("/in/big.pdf", 24, 100, 24, note), "/in")
    assert line == f"note: big.pdf: {note}"


def test_plain_prints_a_start_over_too():
    note = "started over: the file changed since the earlier run"
    assert describe(je.PagesResumed("/in/a.pdf", 0, 3, 0, note), "/in") == f"note: a.pdf: {note}"
