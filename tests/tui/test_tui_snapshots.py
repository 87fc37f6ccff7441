"""SVG snapshots of the app's screens (pytest-textual-snapshot).

The app is fed a fixed story of events (tests/tui_script.py) and draws a fixed page image
(``tui_script.page_image``) in half-blocks: no service, no clock, no temporary paths on
screen, so the screens are the same on every machine. The page view is taken during a page,
after the file and after a restart (pages rebuilt from a real output set, written here by
the real page reader with a scripted engine), at 80x24 and 160x45.

After an intended change of the look, regenerate with
``pytest tests/tui/test_tui_snapshots.py --snapshot-update`` and look at the SVGs
before committing them.
"""

from __future__ import annotations

import pytest
import textual
from tests.tui_script import OUT, ROOT, finish, page_image, story

from mineru_tui.tui.app import WatchApp
from mineru_tui.tui.page_image import load_page_image
from mineru_tui.tui.restore import load_detail
from mineru_tui.watch import events as ev

SIZES = {"80x24": (80, 24), "120x35": (120, 35), "160x45": (160, 45)}
BASELINE_TEXTUAL = "8.2.8"  # the SVGs were made with it; other versions draw slightly differently
pytestmark = pytest.mark.skipif(textual.__version__ != BASELINE_TEXTUAL,
                                reason=f"snapshot baselines are from Textual {BASELINE_TEXTUAL}, "
                                       f"this is {textual.__version__} (regenerate with "
                                       f"--snapshot-update after checking the SVGs)")
sizes = pytest.mark.parametrize("size", list(SIZES))


def fed_app(**kw) -> WatchApp:
    return WatchApp(None, image_loader=page_image, clock=lambda: 0.0, **kw)


async def feed(pilot, events) -> None:
    for e in events:
        pilot.app.feed(e)
    await pilot.pause(0.3)
    pilot.app.clear_notifications()  # toasts time out: not part of a fixed screen


@sizes
def test_page_view_during_a_page(snap_compare, size):
    async def run_before(pilot):
        await feed(pilot, story())
        await pilot.press("2")  # follow mode: page 2, block 3 being read
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZES[size], run_before=run_before)


@sizes
def test_page_view_after_the_file(snap_compare, size):
    async def run_before(pilot):
        await feed(pilot, story())
        await feed(pilot, finish())
        await pilot.press("2", "left_square_bracket", "j", "j", "j", "j")  # page 1, the table
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZES[size], run_before=run_before)


@pytest.fixture(scope="module")
def output_set(tmp_path_factory):
    """A real output set of a one-page scan: the page reader with a scripted engine."""
    from tests.reader.test_pages import page_png, script
    from testkit.scripted_engine import ScriptedEngine

    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.output import write_outputs

    folder = tmp_path_factory.mktemp("restart")
    doc = convert(page_png(folder / "scan.png"),
                  ConvertOptions(engine=ScriptedEngine(script(), max_batch=3)))
    return folder / "scan.png", str(write_outputs(doc, folder / "out", "scan").path)


@sizes
def test_page_view_after_a_restart(snap_compare, size, output_set):
    scan = f"{ROOT}/scan.png"

    async def run_before(pilot):
        await feed(pilot, [ev.Watching(ROOT, OUT, "native", "numpy", ""),
                           ev.FileFinished(scan, "done", output=f"{OUT}/scan", kind="image",
                                           pages=1, seconds=4.2, note="already read")])
        await pilot.pause(0.3)
        await pilot.press("2", "j", "j", "j", "j")  # the table
        await pilot.pause(0.3)

    png, folder = output_set
    app = WatchApp(None, image_loader=lambda path, kind, page: load_page_image(str(png), kind, page),
                   detail_loader=lambda path, output: load_detail(path, folder))
    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)


@sizes
def test_main_screen(snap_compare, size):
    async def run_before(pilot):
        await feed(pilot, story())

    assert snap_compare(fed_app(), terminal_size=SIZES[size], run_before=run_before)


def test_block_with_its_crop(snap_compare):
    async def run_before(pilot):
        await feed(pilot, story())
        await feed(pilot, finish())
        await pilot.press("left_square_bracket", "j", "j", "j", "j", "3")
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZES["160x45"], run_before=run_before)


def test_failed_file_selected(snap_compare):
    async def run_before(pilot):
        await feed(pilot, story())
        await pilot.press("up")
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZES["160x45"], run_before=run_before)


@sizes
def test_help_screen(snap_compare, size):
    async def run_before(pilot):
        await feed(pilot, story())
        await pilot.press("question_mark")
        await pilot.pause(0.3)

    assert snap_compare(fed_app(), terminal_size=SIZES[size], run_before=run_before)
