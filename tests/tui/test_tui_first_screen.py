"""The first screen's hint points at the Files pane where it is: on the left from 110 columns,
on top (a tab) below, as at 80×24."""
from __future__ import annotations

import pytest

from mineru_tui.tui.app import WatchApp
from mineru_tui.tui.widgets.markdown_pane import MarkdownPane

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("size", [(80, 24), (160, 45)])
async def test_the_empty_app_names_the_files_pane_not_a_side(size):
    app = WatchApp(None)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        hint = app.query_one(MarkdownPane).text
        assert "Files dropped into the watched folder" in hint
        assert "Files pane" in hint and "on the left" not in hint
