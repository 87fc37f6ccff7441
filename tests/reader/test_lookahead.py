"""Pages batched across the document (reader/lookahead.py): with an engine that refills its
rows, the next pages' layout requests join each page's stream, and the document, the events
and the answers are those of reading pages one by one."""

from __future__ import annotations

import dataclasses

from PIL import Image

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import to_content_list, to_markdown, to_middle_json
from mineru_tui.reader import lookahead
from testkit.scripted_engine import ScriptedEngine, layout_line

LAYOUT = "\nLayout Detection:"
TEXT = "\nText Recognition:"
PAGES = 7


def _tiff(path):
    """A multi-page scan: frames of different shades (each page its own image)."""
    frames = [Image.new("RGB", (600, 800), (250 - 10 * i, 250, 250)) for i in range(PAGES)]
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def _engine():
    # page i has i % 3 + 1 text blocks: a page given another page's layout would show it
    layouts = ["".join(layout_line(100, 100 + 200 * k, 900, 250 + 200 * k, "text") for k in range(i % 3 + 1))
               for i in range(PAGES)]
    texts = [f"page {i + 1} block {k + 1}" for i in range(PAGES) for k in range(i % 3 + 1)]
    engine = ScriptedEngine({LAYOUT: layouts, TEXT: texts}, max_batch=64)
    engine.continuous_batching = True
    return engine


def _events(events):
    """The events without their timings (seconds, rates, image-token counts of a stage)."""
    out = []
    for ev in events:
        d = {k: v for k, v in dataclasses.asdict(ev).items() if k not in ("seconds", "tokens_per_s", "tokens")}
        out.append((type(ev).__name__, tuple(sorted((k, repr(v)) for k, v in d.items()))))
    return out


def _read(path, monkeypatch, cross: bool):
    engine = _engine()
    if not cross:
        monkeypatch.setattr(lookahead, "applies", lambda engine, settings: False)  # one by one
    events = []
    doc = convert(path, ConvertOptions(engine=engine, page_markdown=True), on_event=events.append)
    monkeypatch.undo()
    return doc, events, engine


def test_layouts_of_next_pages_join_the_stream_and_nothing_else_changes(tmp_path, monkeypatch):
    path = _tiff(tmp_path / "scan.tif")
    alone, alone_events, alone_engine = _read(path, monkeypatch, cross=False)
    joined, joined_events, joined_engine = _read(path, monkeypatch, cross=True)
    # one by one: a layout call, then the page's blocks, page after page
    assert [len(c) for c in alone_engine.calls] == [n for i in range(PAGES) for n in (1, i % 3 + 1)]
    # batched across: page 1's layout call carries the next four pages' layouts; a page's
    # blocks carry the layout of a page that came within four of it; the layouts run ahead
    # are given back when their page is read, not run again
    calls = [[r.prompt for r in c] for c in joined_engine.calls]
    assert calls[0] == [LAYOUT] * 5
    assert calls[1] == [TEXT]  # page 1's block (pages 2-5 are asked already)
    assert calls[2] == [TEXT] * 2 + [LAYOUT]  # page 2's blocks, page 6's layout
    assert calls[3] == [TEXT] * 3 + [LAYOUT]  # page 3's blocks, page 7's layout
    assert calls[4:] == [[TEXT] * (i % 3 + 1) for i in range(3, PAGES)]
    assert sum(p == LAYOUT for c in calls for p in c) == PAGES  # every layout asked once
    # the same document, the same events in the same order
    assert to_markdown(joined) == to_markdown(alone)
    assert to_content_list(joined) == to_content_list(alone)
    assert to_middle_json(joined)["pdf_info"] == to_middle_json(alone)["pdf_info"]
    assert _events(joined_events) == _events(alone_events)
    assert "page 7 block 1" in to_markdown(joined) and "page 6 block 3" in to_markdown(joined)


def test_no_cross_page_batching_without_continuous_batching(tmp_path):
    engine = ScriptedEngine({LAYOUT: [layout_line(100, 100, 900, 250, "text")], TEXT: ["x"]}, max_batch=8)
    convert(_tiff(tmp_path / "scan.tif"), ConvertOptions(engine=engine))
    assert [len(c) for c in engine.calls] == [1, 1] * PAGES  # fixed chunks, page by page
