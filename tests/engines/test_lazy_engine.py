"""LazyEngine, the wrapper ``parse`` and ``watch`` get from the engine table: it forwards every
attribute of the interface, so a refilling engine behind it still gets a page's blocks in one
stream, and it remembers why it could not open."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

import mineru_tui.engines as engines
from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import to_markdown
from mineru_tui.engines import EngineError, EngineOptions, LazyEngine
from testkit.scripted_engine import ScriptedEngine, layout_line

LAYOUT = "\nLayout Detection:"
TEXT = "\nText Recognition:"
BLOCKS = 5


class RefillingEngine(ScriptedEngine):
    """A scripted engine that says it refills its rows: it takes any number of requests per call
    (the scripted replay itself has no rows to refill; what is checked is what it is handed)."""

    continuous_batching = True

    def stream(self, requests, *, cancel=None):
        limit, self.max_batch = self.max_batch, max(self.max_batch, len(requests))
        try:
            yield from super().stream(requests, cancel=cancel)
        finally:
            self.max_batch = limit


def _page(tmp_path):
    img = Image.new("RGB", (850, 1100), "white")
    ImageDraw.Draw(img).text((100, 100), "a page", fill="black")
    img.save(tmp_path / "scan.png")
    return tmp_path / "scan.png"


def _script():
    layout = "".join(layout_line(100, 60 + 150 * i, 900, 180 + 150 * i, "text") for i in range(BLOCKS))
    return {LAYOUT: [layout], TEXT: [f"line {i}" for i in range(BLOCKS)]}


def _wrapped(monkeypatch, inner):
    opened = []

    def open_engine(options):
        opened.append(options)
        return inner

    monkeypatch.setattr(engines, "open_engine", open_engine)
    return LazyEngine(EngineOptions(engine="numpy")), opened


def test_a_page_through_convert_reaches_a_refilling_engine_in_one_stream(monkeypatch, tmp_path):
    inner = RefillingEngine(_script(), max_batch=2)
    lazy, opened = _wrapped(monkeypatch, inner)
    assert not lazy.opened and lazy.name == "numpy"  # nothing opens before a page needs the model
    doc = convert(_page(tmp_path), ConvertOptions(engine=lazy))
    assert len(opened) == 1 and lazy.opened and lazy.continuous_batching and lazy.max_batch == 2
    # the layout call, then all five blocks in one refilling stream, not chunks of 2, 2 and 1
    assert [len(c) for c in inner.calls] == [1, BLOCKS]
    assert [r.prompt for r in inner.calls[1]] == [TEXT] * BLOCKS
    assert to_markdown(doc).strip().split("\n\n") == [f"line {i}" for i in range(BLOCKS)]


def test_a_fixed_batch_engine_behind_it_still_gets_chunks(monkeypatch, tmp_path):
    inner = ScriptedEngine(_script(), max_batch=2)
    lazy, _ = _wrapped(monkeypatch, inner)
    convert(_page(tmp_path), ConvertOptions(engine=lazy))
    assert not lazy.continuous_batching
    assert [len(c) for c in inner.calls] == [1, 2, 2, 1]


def test_it_remembers_why_it_could_not_open(monkeypatch):
    def open_engine(options):
        raise EngineError("no model at /nowhere")

    monkeypatch.setattr(engines, "open_engine", open_engine)
    lazy = LazyEngine(EngineOptions(engine="numpy"))
    assert lazy.open_error is None
    with pytest.raises(EngineError):
        lazy.get()
    assert lazy.open_error == "no model at /nowhere" and not lazy.opened
    monkeypatch.setattr(engines, "open_engine", lambda options: ScriptedEngine({}))
    assert lazy.get().name == "scripted" and lazy.open_error is None
