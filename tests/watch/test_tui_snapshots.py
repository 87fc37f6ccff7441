"""SVG snapshots of the app's screens (pytest-textual-snapshot).

The app is fed a fixed story of events (tests/tui_script.py): no service, no clock, no
temporary paths, so the screens are the same on every machine. After an intended change of
the look, regenerate with ``pytest tests/watch/test_tui_snapshots.py --snapshot-update`` and look
at the SVGs before committing them.
"""

from __future__ import annotations

import pytest
import textual
from tests.tui_script import story

from mineru_tui.tui.app import WatchApp

SIZE = (130, 40)
BASELINE_TEXTUAL = "8.2.8"  # the SVGs were made with it; other versions draw slightly differently
pytestmark = pytest.mark.skipif(textual.__version__ != BASELINE_TEXTUAL,
                                reason=f"snapshot baselines are from Textual {BASELINE_TEXTUAL}, "
                                       f"this is {textual.__version__} (regenerate with "
                                       f"--snapshot-update after checking the SVGs)")


def fed_app() -> WatchApp:
    return WatchApp(None)


async def feed_story(pilot) -> None:
    for e in story():
        pilot.app.feed(e)
    await pilot.pause(0.3)


def test_main_screen(snap_compare):
    async def run_before(pilot):
        await feed_story(pilot)
        await pilot.press("j", "j")  # the PDF being read
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZE, run_before=run_before)


def test_failed_file_selected(snap_compare):
    async def run_before(pilot):
        await feed_story(pilot)
        await pilot.press("j")
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZE, run_before=run_before)


def test_page_preview_with_a_block_selected(snap_compare):
    async def run_before(pilot):
        await feed_story(pilot)
        await pilot.press("j", "j", "enter", "enter", "j", "j", "enter")
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZE, run_before=run_before)


def test_help_screen(snap_compare):
    async def run_before(pilot):
        await feed_story(pilot)
        await pilot.press("question_mark")
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZE, run_before=run_before)


def test_main_screen_in_a_small_terminal(snap_compare):
    async def run_before(pilot):
        await feed_story(pilot)

    assert snap_compare(fed_app(), terminal_size=(80, 24), run_before=run_before)
