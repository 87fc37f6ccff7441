"""A hostile or broken layout answer stays local to its page (issue 19, points 8 and 9)."""

from __future__ import annotations

from PIL import Image

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import to_markdown, to_middle_json
from mineru_tui.reader import protocol
from testkit.scripted_engine import ScriptedEngine, layout_line

LAYOUT = "\nLayout Detection:"


def three_frames(tmp_path):
    tif = tmp_path / "scan.tif"
    frames = [Image.new("RGB", (400, 500), c) for c in ("white", "red", "white")]
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    return tif


def test_a_5000_digit_coordinate_drops_its_box_not_the_file(tmp_path):
    layouts = iter([layout_line(100, 100, 900, 300, "text"),
                    f"<|box_start|>{'9' * 5000} 100 900 300<|box_end|><|ref_start|>text<|ref_end|>"
                    "<|rotate_up|>\n" + layout_line(100, 400, 900, 600, "text"),
                    layout_line(100, 100, 900, 300, "text")])
    n = iter(range(100))

    def answer(req):
        return next(layouts) if req.prompt == LAYOUT else f"text {next(n)}"

    doc = convert(three_frames(tmp_path), ConvertOptions(engine=ScriptedEngine(answer)))
    md = to_markdown(doc)
    assert [md.count(f"text {i}") for i in range(3)] == [1, 1, 1], md
    info = to_middle_json(doc)["pdf_info"]
    assert len(info) == 3 and all("error" not in p for p in info)


def test_blocks_per_page_are_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "MAX_LAYOUT_BLOCKS", 10)
    many = "".join(layout_line(10 + i, 10 + i, 500 + i, 500 + i, "text") for i in range(50))
    engine = ScriptedEngine(lambda req: many if req.prompt == LAYOUT else "x")
    doc = convert(three_frames(tmp_path), ConvertOptions(engine=engine, pages="1"))
    asked = sum(1 for call in engine.calls for r in call if r.prompt != LAYOUT)
    assert asked <= 10
    assert any(w.endswith("page 1: the layout answer has 50 blocks; only the first 10 are read")
               for w in doc.warnings), doc.warnings


def test_any_failure_of_one_page_stays_local(tmp_path, monkeypatch):
    real = protocol.post_process
    calls = iter(range(10))

    def broken(blocks):
        if next(calls) == 1:
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return real(blocks)

    monkeypatch.setattr(protocol, "post_process", broken)
    engine = ScriptedEngine(lambda req: layout_line(100, 100, 900, 300, "text")
                            if req.prompt == LAYOUT else "words")
    doc = convert(three_frames(tmp_path), ConvertOptions(engine=engine))
    info = to_middle_json(doc)["pdf_info"]
    assert [("error" in p) for p in info] == [False, True, False]
    assert info[1]["error"].startswith("internal error while reading this page (ValueError: Exceeds")
