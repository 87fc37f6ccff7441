"""Finished pages are kept in a journal beside the output set, and a later run resumes after
them with the same outputs (reader/journal.py): after a cancel, a SIGKILL, a torn last record;
changed bytes or settings start over and say so."""

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.events import PageDone, PagesResumed
from mineru_tui.output import journal_path, write_outputs
from mineru_tui.reader import PagesInterrupted
from mineru_tui.reader.journal import Journal, read_records
from testkit import pdf_fixtures as pf
from testkit.scripted_engine import ScriptedEngine, layout_line
from testkit.output_sets import output_set

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = (layout_line(100, 40, 900, 80, "title") + layout_line(100, 100, 900, 300, "text")
          + layout_line(100, 350, 900, 600, "table") + layout_line(100, 650, 500, 900, "image")
          + layout_line(100, 905, 500, 930, "image_caption"))


def answer(request) -> str:
    if "Layout" in request.prompt:
        return LAYOUT
    if "Table" in request.prompt:
        return "<fcel>a<fcel>b<nl><fcel>1<fcel>2<nl>"
    return f"words {len(request.prompt)}"


def mixed_pdf(path: Path, pages: int = 6) -> Path:
    """Text pages, scans (an image only) and a blank page, in turn."""
    kinds = [pf.Page(items=list(pf.text_lines([f"Page {n} carries its own words in a line.",
                                               "A second line of plain text follows here."])))
             if n % 3 == 0 else pf.Page(items=[pf.Image(0, 0, 612, 792)]) if n % 3 == 1 else pf.Page()
             for n in range(pages)]
    return pf.write_pdf(path, kinds)


def run(pdf: Path, out: Path, engine=None, cancel_after: int | None = None, **kw):
    """Read ``pdf`` as ``parse -o out`` does; returns (doc or None when cancelled, events)."""
    events, cancel = [], threading.Event()

    def on_event(e):
        events.append(e)
        if cancel_after is not None and isinstance(e, PageDone) and e.page + 1 == cancel_after:
            cancel.set()

    options = ConvertOptions(engine=engine, journal=journal_path(out, pdf.stem), **kw)
    try:
        doc = convert(pdf, options, on_event=on_event, cancel=cancel)
    except PagesInterrupted:
        return None, events
    write_outputs(doc, out, pdf.stem, source=pdf)
    return doc, events


def model_prompts(engine) -> int:
    return sum(1 for call in engine.calls for r in call if "Layout" in r.prompt)


@pytest.mark.parametrize("effort", ["medium", "low"])
def test_cancel_then_resume_reads_only_the_rest_and_writes_the_same_set(tmp_path, effort):
    pdf = mixed_pdf(tmp_path / "doc.pdf")
    engine = ScriptedEngine(answer) if effort != "low" else None
    whole, _ = run(pdf, tmp_path / "whole", engine, effort=effort)
    assert not journal_path(tmp_path / "whole", "doc").exists()  # removed once the set is written
    expected = output_set(tmp_path / "whole" / "doc")

    out = tmp_path / "resumed"
    first = ScriptedEngine(answer) if engine else None
    doc, _ = run(pdf, out, first, cancel_after=4, effort=effort)
    assert doc is None and journal_path(out, "doc").exists()
    second = ScriptedEngine(answer) if engine else None
    doc, events = run(pdf, out, second, effort=effort)
    [note] = [e for e in events if isinstance(e, PagesResumed)]
    if engine:
        assert (note.page, note.kept, note.pages) == (4, 4, 6)
        assert note.note == "resumed at page 5 of 6 (4 pages kept from an earlier run)"
    else:  # the scans failed (they need the model): failed pages are not kept, but tried again
        assert (note.page, note.kept, note.pages) == (1, 3, 6)
        assert note.note == "resumed at page 2 of 6 (3 pages kept from an earlier run)"
    if engine:  # pages 5 and 6: a scan (one layout call) and a blank page (none)
        assert model_prompts(first) == 3 and model_prompts(second) == 1
    assert [e.page for e in events if isinstance(e, PageDone)] == list(range(6))
    assert output_set(out / "doc") == expected
    assert not journal_path(out, "doc").exists()


def test_torn_last_record_is_dropped_and_the_page_read_again(tmp_path):
    pdf = mixed_pdf(tmp_path / "doc.pdf", 3)
    out = tmp_path / "out"
    run(pdf, out, ScriptedEngine(answer), cancel_after=2)
    journal = journal_path(out, "doc")
    lines = journal.read_bytes().splitlines(keepends=True)
    assert len(lines) == 3  # the header and two pages
    journal.write_bytes(b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2])  # cut mid-record
    engine = ScriptedEngine(answer)
    doc, events = run(pdf, out, engine)
    [note] = [e for e in events if isinstance(e, PagesResumed)]
    assert note.kept == 1 and note.page == 1
    assert model_prompts(engine) == 1  # page 2 (a scan) again; page 3 is blank
    whole, _ = run(pdf, tmp_path / "whole", ScriptedEngine(answer))
    assert output_set(out / "doc") == output_set(tmp_path / "whole" / "doc")


def test_a_damaged_record_ends_what_is_read(tmp_path):
    path = tmp_path / "j"
    ident = {"sha256": "x", "effort": "medium", "mode": "two-stage"}
    j = Journal.open(path, ident)
    j.keep(0, {"a": 1})
    j.keep(1, {"a": 2})
    j.keep(2, {"a": 3})
    j.close()
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"a": 2', '"a": 9')  # a bit flip the CRC catches
    path.write_text("".join(lines))
    again = Journal.open(path, ident)
    assert again.done == {0: {"a": 1}} and again.note is None
    again.close()
    assert len(path.read_text().splitlines()) == 2  # cut back to the last whole record


def test_changed_settings_or_bytes_start_over_and_say_so(tmp_path):
    pdf = mixed_pdf(tmp_path / "doc.pdf", 4)
    out = tmp_path / "out"
    run(pdf, out, ScriptedEngine(answer), cancel_after=3)
    engine = ScriptedEngine(answer)
    doc, events = run(pdf, out, engine, effort="high")
    [note] = [e for e in events if isinstance(e, PagesResumed)]
    assert note.kept == 0 and note.note == "started over: the reading settings changed (effort medium → high)"
    assert model_prompts(engine) == 3  # every page again (two text pages, a scan; one is blank)

    run(pdf, out, ScriptedEngine(answer), cancel_after=2)
    mixed_pdf(pdf, 5)  # the file is replaced by another
    doc, events = run(pdf, out, ScriptedEngine(answer))
    [note] = [e for e in events if isinstance(e, PagesResumed)]
    assert note.note == "started over: the file changed since the earlier run" and len(doc.pages) == 5


KILLER = """
import os, signal, sys
from pathlib import Path
from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.events import PageDone
from mineru_tui.output import journal_path, write_outputs
from tests.reader.test_journal import answer
from testkit.scripted_engine import ScriptedEngine

pdf, out, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
engine = ScriptedEngine(answer)

def on_event(e):
    if isinstance(e, PageDone) and e.page + 1 == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)  # as a power cut would: nothing runs after it

doc = convert(pdf, ConvertOptions(engine=engine, journal=journal_path(out, pdf.stem)), on_event=on_event)
write_outputs(doc, out, pdf.stem, source=pdf)
print(sum(1 for call in engine.calls for r in call if "Layout" in r.prompt))
"""


def test_sigkill_keeps_every_finished_page(tmp_path):
    pdf = mixed_pdf(tmp_path / "doc.pdf", 5)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    killed = subprocess.run([sys.executable, "-c", KILLER, str(pdf), str(out), "2"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL
    resumed = subprocess.run([sys.executable, "-c", KILLER, str(pdf), str(out), "0"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split() == ["2"]  # pages 3-5: blank (no call), text and scan (a layout call each)
    whole, _ = run(pdf, tmp_path / "whole", ScriptedEngine(answer))
    assert output_set(out / "doc") == output_set(tmp_path / "whole" / "doc")


def test_restore_shows_pages_from_disk_without_the_source(tmp_path):
    from mineru_tui.tui.restore import load_detail

    pdf = mixed_pdf(tmp_path / "doc.pdf", 4)
    out = tmp_path / "out"
    events = []
    options = ConvertOptions(engine=ScriptedEngine(answer), page_markdown=True, journal=journal_path(out, "doc"))
    doc = convert(pdf, options, on_event=events.append)
    write_outputs(doc, out, "doc", source=pdf)
    shown = {e.page: e.markdown for e in events if isinstance(e, PageDone)}
    pdf.unlink()  # nothing can be rendered or re-read: the records carry each page's Markdown
    detail = load_detail(str(pdf), str(out / "doc"))
    assert [p.markdown for p in detail.pages] == [shown[k] for k in range(4)]

    # a file cut off mid-way: its pages from the journal beside the (missing) set
    pdf = mixed_pdf(tmp_path / "doc2.pdf", 4)
    run(pdf, out, ScriptedEngine(answer), cancel_after=2, page_markdown=True)
    detail = load_detail(str(pdf), str(out / "doc2"))
    assert len(detail.pages) == 2 and "words" in detail.pages[0].markdown


@pytest.mark.parametrize("probe", ["1", "0"])
def test_a_resumed_effort_low_run_takes_its_kept_pages_back_unread(tmp_path, monkeypatch, probe):
    """The journal keeps each finished page itself: a resumed run at effort low reads only
    the pages not kept from the text layer (in the page probe's child, or here without the
    probe), and writes what an uninterrupted run writes."""
    from mineru_tui.pdf.probe import PageProbe
    from mineru_tui.reader import outcomes

    monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", probe)
    pdf = pf.joined_pdf(tmp_path / "long.pdf", 12)  # the corpus's born-digital pages
    run(pdf, tmp_path / "whole", effort="low")
    out = tmp_path / "resumed"
    doc, _ = run(pdf, out, cancel_after=7, effort="low")
    assert doc is None
    kept = read_records(journal_path(out, "long"))
    assert len(kept) >= 5
    read = set()
    real = outcomes.text_layer_blocks

    def counted(pdf_page, **kw):
        read.add(pdf_page.number)
        return real(pdf_page, **kw)

    real_read = PageProbe.read

    def asked(self, index, ordinal, ahead=None):
        read.add(index + 1)
        return real_read(self, index, ordinal, ahead)

    monkeypatch.setattr(outcomes, "text_layer_blocks", counted)
    monkeypatch.setattr(PageProbe, "read", asked)
    doc, events = run(pdf, out, effort="low")
    [note] = [e for e in events if isinstance(e, PagesResumed)]
    assert note.kept == len(kept)
    assert read == {n + 1 for n in range(12) if n not in kept}  # none of the kept pages
    assert output_set(out / "long") == output_set(tmp_path / "whole" / "long")


def test_finished_pages_leave_memory(tmp_path):
    """At effort low a finished page goes to disk: after a 30-page file only the few pages the
    store keeps are alive, and the document still gives every page."""
    import gc

    from mineru_tui.document import Page
    from mineru_tui.document.page_store import CACHED, PageStore

    pdf = pf.joined_pdf(tmp_path / "long.pdf", 30)
    gc.collect()
    before = sum(1 for o in gc.get_objects() if type(o) is Page)
    doc = convert(pdf, ConvertOptions(effort="low"))
    gc.collect()
    assert isinstance(doc.pages, PageStore) and len(doc.pages) == 30
    assert sum(1 for o in gc.get_objects() if type(o) is Page) - before <= CACHED + 2
    assert [p.page_idx for p in doc.pages] == list(range(30))


def test_a_kept_page_holding_anything_else_is_read_again(tmp_path, monkeypatch):
    """The journal is read as untrusted: a page form that would make another class (here a
    journal line rewritten with a valid CRC) is not loaded; that page is read again."""
    import base64
    import json
    import pickle

    from mineru_tui.reader import journal as journal_module, outcomes

    pdf = pf.joined_pdf(tmp_path / "long.pdf", 6)
    run(pdf, tmp_path / "whole", effort="low")
    out = tmp_path / "resumed"
    run(pdf, out, cancel_after=3, effort="low")
    path = journal_path(out, "long")
    lines = path.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[1])
    from mineru_tui.document import Page

    other = Page(entry["page"], extra={"where": Path("elsewhere")})  # a class not of the model
    entry["form"] = base64.b64encode(pickle.dumps(other)).decode("ascii")
    entry["form_crc"] = journal_module._form_crc(entry["form"], entry["warnings"])
    lines[1] = json.dumps(entry, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = set()
    real = outcomes.text_layer_blocks
    monkeypatch.setattr(outcomes, "text_layer_blocks",
                        lambda pdf_page, **kw: read.add(pdf_page.number) or real(pdf_page, **kw))
    run(pdf, out, effort="low")
    assert entry["page"] + 1 in read
    assert output_set(out / "long") == output_set(tmp_path / "whole" / "long")


def test_pages_kept_in_a_quick_run_are_flushed_to_disk_together(tmp_path, monkeypatch):
    """A page kept within SYNC_SECONDS of the last flush waits for the next flush (a page
    read in milliseconds pays no fsync of its own); a page kept later, and close(), flush.
    The clock is the test's own."""
    from mineru_tui.reader import journal as journal_module

    now = [1000.0]
    synced = []
    monkeypatch.setattr(journal_module.time, "monotonic", lambda: now[0])
    real_fsync = os.fsync
    monkeypatch.setattr(journal_module.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    path = tmp_path / "j"
    j = Journal.open(path, {"sha256": "x", "effort": "low", "mode": "two-stage"})
    j.keep(0, {"a": 0})
    created = len(synced)  # the new file's header (and its folder, where the system allows)
    for n in range(1, 5):
        j.keep(n, {"a": n})
    assert len(synced) == created  # all written, none flushed on its own yet
    assert read_records(path) == {n: {"a": n} for n in range(5)}  # a kill loses nothing
    now[0] += journal_module.SYNC_SECONDS
    j.keep(5, {"a": 5})
    assert len(synced) == created + 1  # a quarter second on: this page flushes them all
    j.keep(6, {"a": 6})
    j.close()
    assert len(synced) == created + 2  # what close() found unflushed
    again = Journal.open(path, {"sha256": "x", "effort": "low", "mode": "two-stage"})
    assert again.done == {n: {"a": n} for n in range(7)}
    again.remove()
    assert len(synced) == created + 2 and not path.exists()  # removed, not flushed first


def test_the_first_page_kept_is_flushed_to_disk_as_it_is_kept(tmp_path, monkeypatch):
    """The journal's creation is not a flush of any page: the first page kept (a model page
    may take a minute to read) is on disk when keep() returns, not only with the next one."""
    from mineru_tui.reader import journal as journal_module

    path = tmp_path / "j"
    on_disk = []  # the journal's size at each flush of it
    real_fsync = os.fsync

    def fsync(fd):
        if path.exists() and os.fstat(fd).st_ino == path.stat().st_ino:
            on_disk.append(os.fstat(fd).st_size)
        return real_fsync(fd)

    monkeypatch.setattr(journal_module.os, "fsync", fsync)
    j = Journal.open(path, {"sha256": "x", "effort": "high", "mode": "two-stage"})
    j.keep(0, {"a": 0})
    assert on_disk and on_disk[-1] == path.stat().st_size  # the page's line flushed
    j.close()
