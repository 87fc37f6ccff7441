"""The page reader on the real numpy engine with the tiny random checkpoint: the answers are
noise, but every piece of plumbing (crops through real preprocessing, per-row knobs, events,
outputs, exit codes) must hold. Answers are capped at a few tokens to stay quick."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

from PIL import Image, ImageDraw

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import to_markdown
from mineru_tui.engines import EngineOptions, open_engine
from mineru_tui.events import BlockDone
from testkit import pdf_fixtures as pf
from tests import tiny_checkpoint as tc
from testkit.scripted_engine import layout_line

ROOT = Path(__file__).resolve().parents[2]
CAP = "4"


def _parse(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_MAX_NEW_TOKENS=CAP, HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "mineru_tui", "parse", *map(str, args), "--engine", "numpy",
                           "--model", str(tc.TINY_DIR)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def _page(path):
    img = Image.new("RGB", (620, 800), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 760, 24):
        d.line((60, y, 560, y), fill="black", width=3)
    img.save(path)
    return path


def test_parse_image_and_pdf_with_the_tiny_model(tmp_path):
    png = _page(tmp_path / "scan.png")
    pdf = pf.write_pdf(tmp_path / "paper.pdf", [pf.Page(items=pf.text_lines(["a line of text"] * 8))] * 2)
    r = _parse(png, pdf, "-o", tmp_path / "out", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    for stem, pages in (("scan", 1), ("paper", 2)):
        folder = tmp_path / "out" / stem
        middle = json.loads((folder / f"{stem}_middle.json").read_text())
        assert middle["_backend"] == "vlm" and len(middle["pdf_info"]) == pages
        model = json.loads((folder / f"{stem}_model.json").read_text())
        assert model["engine"] == "numpy" and model["max_new_tokens"] == int(CAP)
        assert all(len(p["layout"]["answer"]) > 0 for p in model["pages"])  # the model really answered
        json.loads((folder / f"{stem}_content_list.json").read_text())
        (folder / f"{stem}.md").read_text()
        assert (folder / f"{stem}_layout.pdf").read_bytes().startswith(b"%PDF")
    # the noise never parses as a layout: the PDF keeps its text layer, the scan is empty,
    # and both say so on stderr without -v
    assert "a line of text" in (tmp_path / "out" / "paper" / "paper.md").read_text()
    assert r.stderr.count("read from the PDF's own text layer instead") == 2
    assert "scan.png: content cut: page 1: " in r.stderr and "the page is left empty" in r.stderr
    assert "scan.png: content cut: nothing was read: every page came out empty" in r.stderr
    # text mode on stdout: one pass per page, the noise goes to stdout, exit 0
    r = _parse(png, "--mode", "text", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


class LayoutThenModel:
    """A real numpy engine whose layout answer is fixed (the tiny model's would be noise), so
    the block crops go through real preprocessing and a real mixed-knob batch."""

    def __init__(self, engine, layout):
        self.engine, self.layout = engine, layout
        self.name, self.model_id, self.max_batch = engine.name, engine.model_id, 4

    def stream(self, requests, *, cancel=None):
        from testkit.scripted_engine import ScriptedEngine

        if requests[0].prompt == "\nLayout Detection:":  # the whole layout, whatever the cap
            uncapped = [dataclasses.replace(r, max_new_tokens=None) for r in requests]
            return ScriptedEngine(lambda r: self.layout).stream(uncapped, cancel=cancel)
        return self.engine.stream(requests, cancel=cancel)

    def close(self):
        self.engine.close()


def test_blocks_go_through_the_numpy_engine(tmp_path):
    layout = (layout_line(80, 60, 920, 200, "title") + layout_line(80, 220, 920, 500, "text")
              + layout_line(80, 520, 920, 700, "table") + layout_line(80, 720, 920, 760, "equation")
              + layout_line(80, 780, 920, 781, "text"))
    engine = LayoutThenModel(open_engine(EngineOptions(engine="numpy", model=str(tc.TINY_DIR))), layout)
    events = []
    doc = convert(_page(tmp_path / "p.png"), ConvertOptions(engine=engine, extra={"max_new_tokens": 3}),
                  on_event=events.append)
    done = [e for e in events if isinstance(e, BlockDone)]
    assert len(done) == 5 and all(e.finish_reason in ("stop", "length") for e in done)
    assert all(e.source == "model" for e in done)
    assert len(doc.pages) == 1 and isinstance(to_markdown(doc), str)


class Refilling(LayoutThenModel):
    """The same with the numpy engine's continuous batching at 2 rows, counting stream calls."""

    continuous_batching = True

    def __init__(self, engine, layout):
        super().__init__(engine, layout)
        self.max_batch = engine.max_batch = 2
        self.sizes = []

    def stream(self, requests, *, cancel=None):
        self.sizes.append(len(requests))
        return super().stream(requests, cancel=cancel)


def test_a_pages_blocks_go_in_one_stream_and_refill_the_rows(tmp_path):
    from mineru_tui.events import BlockStarted

    layout = "".join(layout_line(80, 60 + 90 * k, 920, 130 + 90 * k, "text") for k in range(5))
    engine = Refilling(open_engine(EngineOptions(engine="numpy", model=str(tc.TINY_DIR))), layout)
    events = []
    convert(_page(tmp_path / "p.png"), ConvertOptions(engine=engine, extra={"max_new_tokens": 3}),
            on_event=events.append)
    assert engine.sizes == [1, 5]  # the layout, then every block in one stream at 2 rows
    order = [(type(e).__name__, e.block) for e in events if isinstance(e, (BlockStarted, BlockDone))]
    # equal answers (3 tokens): blocks join two by two as the previous two end
    assert order == [("BlockStarted", 0), ("BlockStarted", 1), ("BlockDone", 0), ("BlockDone", 1),
                     ("BlockStarted", 2), ("BlockStarted", 3), ("BlockDone", 2), ("BlockDone", 3),
                     ("BlockStarted", 4), ("BlockDone", 4)]
