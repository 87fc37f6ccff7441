"""Toasts stay inside the screen's frame: over the Live pane's content, never over a pane's
border, the footer or a hidden scrollbar gutter beside them (which showed the borders under it
as stray "─╯" in tmux). Fed a fixed story (no service, no clock)."""

from __future__ import annotations

import pytest
from tests.tui_script import ROOT, story
from textual.widgets._toast import Toast

from mineru_tui.tui.app import WatchApp
from mineru_tui.watch import events as ev

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("size", [(80, 24), (120, 35), (160, 45)])
async def test_toasts_sit_inside_the_frame_above_the_live_border_and_the_footer(size):
    app = WatchApp(None, clock=lambda: 0.0)
    async with app.run_test(size=size, notifications=True) as pilot:
        for e in story():
            app.feed(e)
        for n in (1, 2, 3):  # three failures in a row: three toasts stacked
            app.feed(ev.FileFinished(f"{ROOT}/bad{n}.docx", ev.FAILED,
                                     "corrupt or truncated zip file: it has no zip directory",
                                     kind="docx"))
        for _ in range(200):  # until the three are drawn (at most ~10 s)
            await pilot.pause(0.05)
            toasts = [t for t in app.screen.walk_children(Toast) if t.region.width]
            if len(toasts) >= 3:
                break
        assert len(toasts) >= 3
        width, height = size
        live = app.query_one("#live").region
        footer = app.query_one("Footer").region
        for toast in toasts:
            r = toast.region
            assert r.width and r.right <= width - 1  # the right border column stays drawn
            assert r.bottom <= footer.y - 1  # the footer and the row above it stay drawn
            if width >= 110:  # a bordered Live pane: its bottom border and sides stay
                assert r.bottom <= live.bottom - 1 and r.x >= live.x + 1
        rack = app.screen.query_one("ToastRack")
        assert rack.styles.scrollbar_size_vertical == 0  # no gutter beside the toasts
