"""The app's code stays readable: short functions, one handler per event type."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

from mineru_tui import events as je
from mineru_tui.tui.state import HANDLERS, DetailLoaded
from mineru_tui.watch import events as ev

TUI = Path(__file__).resolve().parents[2] / "mineru_tui" / "tui"
LONGEST = 60  # lines of one function


def test_no_function_in_the_app_is_over_60_lines():
    long = []
    for path in TUI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > LONGEST:
                    long.append(f"{path.relative_to(TUI)}:{node.name} ({lines} lines)")
    assert long == []


def test_every_event_the_app_shows_has_its_one_handler():
    shown = {ev.Watching, ev.Notice, ev.EngineReady, ev.PauseChanged, ev.FileQueued,
             ev.FileFinished, DetailLoaded, je.FileStarted, je.PageStarted, je.EngineStage,
             je.LayoutDone, je.BlockStarted, je.BlockTokens, je.BlockDone, je.PageDone,
             je.OutputWriting, je.PagesResumed, je.FileDone, je.FileFailed, je.PageSettled}
    assert set(HANDLERS) == shown
    for handler in HANDLERS.values():
        body = ast.parse(textwrap.dedent(inspect.getsource(handler))).body[0]
        assert body.end_lineno - body.lineno + 1 <= 20, handler.__name__
