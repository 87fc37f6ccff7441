"""At effort low each PDF page is parsed once: the page probe's child loads it under the limits
and reads it whole, and the reading process keeps the finished page (reader/whole_page.py).

Every test compares with the same reading done in this process (``MINERU_TUI_PAGE_PROBE=0``,
or :func:`read_whole` called here): the child changes where a page is read, never what it gives.
"""

from __future__ import annotations

import os
import pickle
import signal
from pathlib import Path

import pytest
from tests.hostile_pdfs import GOOD_PAGE, bomb_content, build_pdf

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import Document, to_markdown
from mineru_tui.document.page_store import PageStore
from mineru_tui.events import BlockDone, LayoutDone, PageDone
from mineru_tui.output import write_outputs
from mineru_tui.pdf import open_pdf
from mineru_tui.pdf.probe import PageProbe
from mineru_tui.pdf.reader import PdfPage
from mineru_tui.reader import outcomes, pipeline, sources, whole_page
from testkit import pdf_fixtures as pf
from testkit.output_sets import output_set

ROOT = Path(__file__).resolve().parents[2]
CHILD = sources.WHOLE_PAGE_CHILD
OTHER_PAGE = GOOD_PAGE.replace(b"(Hello from a good page)", b"(Hello from the last page)")


def _loads_here(monkeypatch) -> list[int]:
    """The pages this process loads (PdfPage.raw loading a page), as a list that fills."""
    loaded = []
    real = PdfPage.raw.fget

    def raw(self):
        if self._page is None:
            loaded.append(self.number)
        return real(self)

    monkeypatch.setattr(PdfPage, "raw", property(raw))
    return loaded


def _parse(pdf: Path, out: Path, monkeypatch, probe: str, **kw) -> tuple[dict, list]:
    """``parse --effort low -o out`` of ``pdf``: (the output set, the warnings)."""
    monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", probe)
    doc = convert(pdf, ConvertOptions(engine=None, effort="low", **kw))
    write_outputs(doc, out, pdf.stem, source=pdf)
    return output_set(out / pdf.stem), list(doc.warnings)


def _unmapped_pdf(path: Path) -> Path:
    """A page whose sidebar font maps to nothing (left out with a warning), then two pages
    with a running footer (furniture) and one blank page."""
    body = pf.text_lines(["the text layer of this page carries every word of the paragraph",
                          "so the low effort reads it even when a sidebar cannot be mapped"])
    sidebar = [pf.Text(400 + 20 * k, 500 - 14 * k, (pf.UNMAPPED + " ") * 12, size=10) for k in range(3)]
    foot = [pf.Page(items=body + [pf.Text(300, 30, f"Chapter one page {n}", size=9)]) for n in (7, 8)]
    return pf.write_pdf(path, [pf.Page(items=body + sidebar), *foot, pf.Page()])


@pytest.mark.parametrize("pages", [None, "2-4"])
def test_the_child_reads_every_page_and_the_set_is_the_same(tmp_path, monkeypatch, pages):
    """A joined born-digital PDF (tables, furniture, several fonts) and a page with unmapped
    characters: with the probe the reading process loads no page, and writes what it
    writes reading every page itself, warnings included."""
    for pdf in (pf.joined_pdf(tmp_path / "long.pdf", 6), _unmapped_pdf(tmp_path / "unmapped.pdf")):
        alone = _parse(pdf, tmp_path / "alone", monkeypatch, "0", pages=pages)
        loaded = _loads_here(monkeypatch)
        assert _parse(pdf, tmp_path / "child", monkeypatch, "1", pages=pages) == alone
        assert loaded == []
    assert any("no Unicode mapping and were left out" in w for w in alone[1]) == (pages is None)


def test_each_page_is_parsed_once_and_the_next_is_read_ahead(tmp_path, monkeypatch):
    """Through the page source: one child loads each page once and reads it; while this
    process keeps a page, the child has been asked for the next (not for a kept one)."""
    pdf = pf.joined_pdf(tmp_path / "long.pdf", 5)
    loaded = _loads_here(monkeypatch)  # this process
    total, items, close = sources.open_source(pdf, "pdf", None, pipeline.Settings(effort="low"),
                                              classify=True, kept={3: {"page_size": [1, 1]}})
    asked_ahead = []
    try:
        for item in items:
            if isinstance(item, sources.Unread):
                got = whole_page.read(item)
                assert got.page is None and got.record["page_no"] == item.number
                probe = item.pdf.probe()
                asked_ahead.append(probe._ahead and probe._ahead[0])
        assert probe._child is not None and probe._child.poll() is None  # the one child, alive
    finally:
        close()
    assert total == 5 and loaded == []
    assert asked_ahead == [1, 2, None, None]  # page 4 (index 3) is kept: not asked for


def test_a_page_read_in_the_child_equals_the_page_read_here(tmp_path):
    """The page, its record, warnings, furniture marks and the store's copy of its form are
    those of the same page read here: a page with unmapped characters left out (a warning),
    two with a running footer, a blank one."""
    pdf = _unmapped_pdf(tmp_path / "unmapped.pdf")
    store = PageStore(tmp_path)
    here = []
    with open_pdf(pdf) as doc:
        doc.read_in_probe(CHILD, {"classify": True})
        for n, page in enumerate(doc):
            there = whole_page.read(sources.Unread(n, page.number, page, doc, True))
            assert there.page is None  # read in the child
            here.append(whole_page.read_whole(page, n, True))
            assert (there.record, there.warnings, there.marks, there.page_idx, there.extra) == \
                (here[-1].record, here[-1].warnings, here[-1].marks, here[-1].page_idx, here[-1].extra)
            store.append_form(there.form, there.page_idx, there.extra)
    assert list(store) == [h.page for h in here]
    assert store.heads() == [(h.page_idx, h.extra) for h in here]
    store.close()
    assert [bool(h.warnings) for h in here] == [True, False, False, False]
    footer = (("bottom", "chapter one page #"), False)  # a running footer's candidate
    assert [footer in h.marks for h in here] == [False, True, True, False]


def test_the_child_opens_a_pdf_with_its_password(tmp_path):
    path = pf.write_pdf(tmp_path / "secret.pdf", [pf.Page(items=pf.text_lines(["Top secret text"]))],
                        user_password="s3cret")
    with open_pdf(path, password="s3cret") as doc:
        doc.read_in_probe(CHILD, {"classify": True})
        data = doc.probe().read(0, 0)
    assert data is not None
    page = whole_page.from_bytes(data)
    store = PageStore(tmp_path)
    store.append_form(page.form, page.page_idx, page.extra)
    assert "Top secret text" in to_markdown(Document(pages=[store[0]]))
    store.close()


def test_watch_gets_each_page_s_markdown_from_the_child(tmp_path, monkeypatch):
    """``page_markdown`` (watch): each page's Markdown and its block events are those of the
    page read here."""
    pdf = _unmapped_pdf(tmp_path / "unmapped.pdf")
    seen = {}
    for probe in ("0", "1"):
        monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", probe)
        events = []
        convert(pdf, ConvertOptions(engine=None, effort="low", page_markdown=True), on_event=events.append)
        seen[probe] = [e.markdown if isinstance(e, PageDone) else e for e in events
                       if isinstance(e, (PageDone, LayoutDone, BlockDone))]
    assert seen["1"] == seen["0"]
    markdown = [e for e in seen["1"] if isinstance(e, str)]
    assert len(markdown) == 4 and "carries every word" in markdown[0]
    assert any(isinstance(e, BlockDone) for e in seen["1"])


def test_a_mineru_tui_folder_in_the_working_directory_is_not_the_child(tmp_path, monkeypatch):
    """``python -m`` would import a ``mineru_tui/`` in the working directory first; the child
    comes from this installation (here the folder's child would end at once)."""
    fake = tmp_path / "cwd" / "mineru_tui"
    for sub in ("", "pdf", "reader"):
        (fake / sub).mkdir(parents=True, exist_ok=True)
        (fake / sub / "__init__.py").write_text("")
    for child in ("pdf/probe_child.py", "reader/whole_page.py"):
        (fake / child).write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path / "cwd")
    path = tmp_path / "one.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE]))
    for reader in (CHILD, "mineru_tui.pdf.probe_child"):
        probe = PageProbe(path, reader=reader, reading={"classify": True})
        try:
            assert probe.check(0) is None
            assert reader != CHILD or whole_page.from_bytes(probe.read(0, 0)).record["page_no"] == 1
        finally:
            probe.close()


def test_ctrl_c_is_left_to_the_reading_process(tmp_path):
    """The terminal sends Ctrl-C to the child too: it goes on (the reading process stops it
    when it stops), so the page it was reading is not taken for one that killed it."""
    path = tmp_path / "two.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, OTHER_PAGE]))
    probe = PageProbe(path, reader=CHILD, reading={"classify": True})
    try:
        assert probe.read(0, 0) is not None
        pid = probe._child.pid
        os.kill(pid, signal.SIGINT)
        assert whole_page.from_bytes(probe.read(1, 1)).record["page_no"] == 2
        assert probe._child.pid == pid
    finally:
        probe.close()


# -- what the child may do wrong ------------------------------------------------------------


MISBEHAVING = "tests.reader.probe_children"


def _children(monkeypatch) -> None:
    """Let the children import tests/ (they run from this checkout's root)."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _probe(path: Path, act: str, monkeypatch, **kw) -> PageProbe:
    monkeypatch.setenv("PROBE_CHILD_ACT", act)
    return PageProbe(path, reader=MISBEHAVING, reading={"classify": True}, **kw)


@pytest.mark.parametrize("act", ["die", "memory", "garbage", "not a page"])
def test_a_child_that_fails_after_the_load_leaves_the_page_to_this_process(tmp_path, monkeypatch, act):
    """Killed, out of memory, or saying something else after the load passed: the page is not
    refused, this process reads it (and loads it: the load passed in the child), and the
    next page goes to the child again."""
    _children(monkeypatch)
    path = tmp_path / "three.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, GOOD_PAGE, OTHER_PAGE]))
    probe = _probe(path, act, monkeypatch)
    try:
        assert probe.read(0, 0) is not None
        answer = probe.read(1, 1)
        if act == "not a page":
            assert answer is not None
            with pytest.raises(pickle.UnpicklingError):
                whole_page.from_bytes(answer)
        else:
            assert answer is None
        assert probe.check(1) is None  # loaded within the limits: not refused
        assert whole_page.from_bytes(probe.read(2, 2)).record["mode"] == "text-layer"
    finally:
        probe.close()


def test_a_page_the_child_could_not_read_is_read_here_through_parse(tmp_path, monkeypatch):
    _children(monkeypatch)
    path = tmp_path / "three.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, OTHER_PAGE, GOOD_PAGE]))
    alone = _parse(path, tmp_path / "alone", monkeypatch, "0")
    monkeypatch.setattr(sources, "WHOLE_PAGE_CHILD", MISBEHAVING)
    monkeypatch.setenv("PROBE_CHILD_ACT", "die")
    loaded = _loads_here(monkeypatch)
    assert _parse(path, tmp_path / "child", monkeypatch, "1") == alone
    assert loaded == [2]  # only the page whose reading killed the child
    assert "Hello from the last page" in alone[0]["three.md"].decode()


def test_a_child_that_never_answers_the_load_is_stopped_at_the_time_limit(tmp_path, monkeypatch):
    """The load's answer keeps its time limit (here 0.5 s; the child never answers)."""
    _children(monkeypatch)
    monkeypatch.setenv("PROBE_CHILD_PAGE", "0")
    path = tmp_path / "one.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE]))
    probe = _probe(path, "silent", monkeypatch, seconds=0.5)
    try:
        assert probe.read(0, 0) is None
        assert probe.check(0) == "its content takes longer than 0.5 s to parse"
        assert probe._child is None  # stopped, and not started again to ask twice
    finally:
        probe.close()


def test_a_load_over_the_time_limit_is_refused_however_late_its_answer_is_looked_at(
        tmp_path, monkeypatch):
    """The time limit counts from the question, for a page asked ahead too: a load that took
    longer is refused even when this process looks at its answer only after it came (it
    kept the page before for longer than the limit), as when it waits for the answer."""
    import select

    _children(monkeypatch)
    path = tmp_path / "three.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, GOOD_PAGE, OTHER_PAGE]))
    probe = _probe(path, "slow", monkeypatch)  # page 2's load takes 2 s more
    try:
        assert probe.read(0, 0, ahead=(1, 1)) is not None
        probe.seconds = 0.5  # (page 1 had the default limit: the child's start is in it)
        select.select([probe._answers.fd], [], [])  # page 2's answer has come: then look
        assert probe.read(1, 1) is None
        assert probe.check(1) == "its content takes longer than 0.5 s to parse"
        assert whole_page.from_bytes(probe.read(2, 2)).record["page_no"] == 3
    finally:
        probe.close()


def test_a_refused_page_is_refused_once_with_its_line(tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_PAGE_MEMORY_MB", "64")
    path = tmp_path / "bomb.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, bomb_content(8 << 20)]))
    with open_pdf(path) as doc:
        doc.read_in_probe(CHILD, {"classify": True})
        probe = doc.probe()
        assert probe.read(1, 1) is None
        assert probe._child is None  # the bomb killed it
        assert probe.check(1).startswith("its content cannot be parsed within 64 MiB")
        assert probe._child is None  # not asked again
        page = doc.page(1)
        got = whole_page.read(sources.Unread(1, 2, page, doc, True))
        assert got.record["error"].startswith("page 2 cannot be loaded: its content cannot be parsed")


def test_a_page_asked_ahead_keeps_its_answer_for_when_it_is_asked_for(tmp_path, monkeypatch):
    """The next page is asked for while this one is kept (``ahead``). Its answer waits in
    order behind other questions: here the page asked ahead is a bomb that kills the child
    while a load-only question for another page comes first; the bomb is refused, the other
    page loads (a new child), and the page after the bomb is read."""
    monkeypatch.setenv("MINERU_TUI_PAGE_MEMORY_MB", "64")
    path = tmp_path / "bomb.pdf"
    path.write_bytes(build_pdf([GOOD_PAGE, bomb_content(8 << 20), OTHER_PAGE, GOOD_PAGE]))
    probe = PageProbe(path, reader=CHILD, reading={"classify": True})
    try:
        assert whole_page.from_bytes(probe.read(0, 0, ahead=(1, 1))).record["mode"] == "text-layer"
        assert probe.check(3) is None
        assert probe.read(1, 1, ahead=(2, 2)) is None
        assert probe.check(1).startswith("its content cannot be parsed within 64 MiB")
        third = whole_page.from_bytes(probe.read(2, 2, ahead=(3, 3)))
        assert third.ordinal == 2 and third.record["page_no"] == 3
        assert whole_page.from_bytes(probe.read(3, 3)).record["page_no"] == 4
    finally:
        probe.close()


# -- a MemoryError in the child is the child's limit, not the page's -------------------------


def test_a_memory_error_while_isolated_ends_the_child_instead_of_failing_the_page(tmp_path, monkeypatch):
    pdf = pf.write_pdf(tmp_path / "one.pdf", [pf.Page(items=pf.text_lines(["Some words on a page"]))])

    def no_memory(*a, **kw):
        raise MemoryError

    with open_pdf(pdf) as doc:
        monkeypatch.setenv("MINERU_TUI_PAGE_PROBE", "0")
        page = doc.page(0)
        monkeypatch.setattr(outcomes, "text_layer_blocks", no_memory)
        with pytest.raises(MemoryError):
            whole_page.read_whole(page, 0, True, isolated=True)
        here = whole_page.read_whole(page, 0, True)
        assert here.record["error"] == "MemoryError while reading this page"
        monkeypatch.setattr(sources, "classify_page", no_memory)
        with pytest.raises(MemoryError):
            sources.prepare_pdf_page(page, 0, classify=True, render=False, isolated=True)
        item = sources.prepare_pdf_page(page, 0, classify=True, render=False)
        assert item.decision["reason"] == "classification failed (MemoryError)"


def test_child_bytes_hold_plain_data_only(tmp_path):
    """What comes from the child is unpickled as plain data: a pickle that would call a
    function is refused, on arrival and when a kept form is loaded from the store."""

    class Call:
        def __reduce__(self):
            return (os.getpid, ())

    with pytest.raises(pickle.UnpicklingError):
        whole_page.from_bytes(pickle.dumps((0, {}, b"", [], None, 0, {"x": Call()})))
    store = PageStore(tmp_path)
    store.append_form(pickle.dumps(Call()), 0, {})
    with pytest.raises(pickle.UnpicklingError):
        store[0]
    store.close()
