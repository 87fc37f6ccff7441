"""What the app shows fits the terminal: the help at 80x24 needs no scrolling, and a long
Log line wraps at the pane's width (its whole text on screen) at 80x24, 120x35 and 160x45."""

from __future__ import annotations

import pytest

from mineru_tui.tui.app import WatchApp
from mineru_tui.watch import events as ev

pytestmark = pytest.mark.asyncio
SIZES = [(80, 24), (120, 35), (160, 45)]
LONG = ("joined300.pdf: cancelled: 29 pages kept in the journal, the next run resumes at page "
        "30 of 300 (delete OUT/joined300/.journal to start over from the first page)")


def squeezed(text: str) -> str:
    """The text without its spaces and line breaks: wrapping moves them, never the words."""
    return "".join(text.split())


async def test_the_help_fits_80x24_without_scrolling():
    app = WatchApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause(0.1)
        scroll = app.screen.query_one("#help-scroll")
        shown = scroll.scrollable_content_region
        assert scroll.virtual_size.height <= shown.height, (scroll.virtual_size, shown)
        assert scroll.virtual_size.width <= shown.width, (scroll.virtual_size, shown)
        assert scroll.max_scroll_y == 0 and scroll.max_scroll_x == 0
        # the legends at the end are on screen, not below the fold
        rows = [app.screen.query_one("#help-text").render_line(y).text
                for y in range(shown.height)]
        for legend in ("Files", "Live", "Page"):
            assert any(row.lstrip().startswith(legend) for row in rows), rows


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_long_log_line_wraps_with_its_whole_text_on_screen(size):
    app = WatchApp(None)
    async with app.run_test(size=size) as pilot:
        app.feed(ev.Watching("/tmp/qa-watch/pdfs", "/tmp/qa-watch/pdfs-mineru-and-a-long-name",
                             "native", "auto", ""))
        app.feed(ev.Notice(LONG, "warning"))
        await pilot.pause(0.2)
        await pilot.press("4")
        await pilot.pause(0.2)
        log = app.query_one("#log")
        assert log.region.width > 0 and log.max_scroll_x == 0
        rows = [log.render_line(y).text for y in range(log.scrollable_content_region.height)]
        screen = squeezed("".join(rows))
        assert squeezed(f"warning: {LONG}") in screen, rows
        assert squeezed("watching /tmp/qa-watch/pdfs (native events); results in "
                        "/tmp/qa-watch/pdfs-mineru-and-a-long-name") in screen, rows


async def test_log_lines_wrap_again_after_a_resize_and_while_another_tab_shows():
    app = WatchApp(None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.feed(ev.Notice("first: " + LONG, "warning"))
        await pilot.pause(0.2)
        await pilot.press("4")
        await pilot.pause(0.2)
        await pilot.press("1")  # the Log tab hidden: a line arrives meanwhile
        app.feed(ev.Notice("second: " + LONG, "warning"))
        await pilot.pause(0.2)
        await pilot.resize_terminal(160, 45)
        await pilot.press("4")
        await pilot.pause(0.3)
        log = app.query_one("#log")
        assert log.max_scroll_x == 0
        rows = [log.render_line(y).text for y in range(log.scrollable_content_region.height)]
        assert max(len(row.rstrip()) for row in rows) <= log.scrollable_content_region.width
        log.scroll_home(animate=False)
        await pilot.pause(0.1)
        everything = squeezed("".join(log.render_line(y).text for y in range(log.virtual_size.height)))
        for line in log.entries:
            assert squeezed(line) in everything
