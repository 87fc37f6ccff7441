"""Page images in the app (issue 29): one renderer thread for the selected PDF, the newest
page asked for wins — holding ``]`` never queues a render per key, and the app settles on
the last page asked for."""

from __future__ import annotations

import threading
import time

import pytest

from mineru_tui.pdf import reader as pdf_reader
from mineru_tui.tui.app import WatchApp
from mineru_tui.tui.state import DetailLoaded, PageRow
from mineru_tui.watch import events as ev
from testkit.pdf_fixtures import Page, Text, write_pdf

PAGES = 40
pytestmark = pytest.mark.asyncio
WAIT = 60.0  # seconds to give up (a loaded machine); never a pass condition


async def until(pilot, condition) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await pilot.pause(0.05)


async def test_holding_the_page_key_renders_only_the_newest_page(tmp_path, monkeypatch):
    pdf = write_pdf(tmp_path / "long.pdf",
                    [Page(items=[Text(72, 700, f"Page {i + 1} of the long file.")])
                     for i in range(PAGES)])
    path = str(pdf)
    renders: list[tuple[int, int]] = []  # (page, thread) of every render
    gate = threading.Event()
    real = pdf_reader.PdfPage.render

    def render(page, *args, **kwargs):
        renders.append((page.index, threading.get_ident()))
        if page.index != 0:
            gate.wait(WAIT)  # a slow render: the keys keep coming meanwhile
        return real(page, *args, **kwargs)

    monkeypatch.setattr(pdf_reader.PdfPage, "render", render)
    pages = tuple(PageRow(i, status="done", markdown=f"Page {i + 1}") for i in range(PAGES))
    app = WatchApp(None, detail_loader=lambda p, out: DetailLoaded(p, pages))
    async with app.run_test(size=(120, 35)) as pilot:
        app.feed(ev.FileFinished(path, ev.DONE, output=str(tmp_path / "out"), kind="pdf",
                                 pages=PAGES, seconds=1.0, note="already read"))
        await until(pilot, lambda: path in app.board.files
                    and app.board.files[path].detail == "loaded")
        app.select_file(path)
        await pilot.press("2")
        await until(pilot, lambda: (path, 0) in app._images)  # the first page at once
        assert app._images[(path, 0)] is not None
        await pilot.press(*["right_square_bracket"] * 30)  # key repeat while a render is slow
        assert app.sel_page == 30
        await until(pilot, lambda: len(renders) >= 2)
        gate.set()
        await until(pilot, lambda: (path, 30) in app._images)
        await pilot.pause(0.2)
        # page 0, the one render that had started when the keys came, then only the newest
        assert [p for p, _ in renders][0] == 0 and renders[-1][0] == 30 and len(renders) <= 3
        assert len({t for _, t in renders}) == 1  # one thread renders (PDFium's owner)
        assert app.sel_page == 30 and app._images[(path, 30)] is not None
        renderer = app._previews[1]
    # quit: the renderer's thread has ended and closed the PDF before the app returns (no
    # PDFium finaliser or killed thread printing on the restored terminal)
    assert not renderer._thread.is_alive()
