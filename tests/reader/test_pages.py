"""The page reader end to end with the scripted engine: images drawn here and PDFs written here,
through convert() and the parse batch (events, failures, cancel, text layer, outputs)."""

import io
import json
import os
import signal
import threading

import pytest
from PIL import Image, ImageDraw

from mineru_tui import interrupts
from mineru_tui.cli.batch import Options, run
from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.errors import ConvertError
from mineru_tui.document import to_content_list, to_markdown, to_middle_json
from mineru_tui.engines.base import EngineError
from mineru_tui.events import (BlockDone, BlockStarted, BlockTokens, FileDone, LayoutDone, PageDone,
                               PageStarted)
from mineru_tui.reader import PagesInterrupted, rebuild
from mineru_tui.reader.calls import is_runaway
from testkit import pdf_fixtures as pf
from testkit.scripted_engine import Answer, ScriptedEngine, layout_line

LAYOUT = "\nLayout Detection:"
TEXT = "\nText Recognition:"
TABLE = "\nTable Recognition:"
FORMULA = "\nFormula Recognition:"

PAGE_LAYOUT = (layout_line(100, 40, 900, 80, "title") + layout_line(100, 100, 900, 300, "text")
               + layout_line(100, 310, 900, 340, "equation") + layout_line(100, 350, 900, 600, "table")
               + layout_line(100, 610, 900, 640, "text", tail="<|txt_contd_tgt|>")
               + layout_line(100, 650, 500, 900, "image") + layout_line(100, 905, 500, 930, "image_caption")
               + layout_line(450, 960, 550, 980, "page_number"))


def page_png(path, size=(850, 1100), color="white"):
    img = Image.new("RGB", size, color)
    ImageDraw.Draw(img).rectangle((100, 720, 400, 960), fill=(30, 120, 200))
    img.save(path)
    return path


def script(**over):
    s = {LAYOUT: [PAGE_LAYOUT], TEXT: ["Intro", "Some text \\(x^2\\) here", "continued", "Figure 1: a cat", "7"],
         FORMULA: ["\\[ E = mc^2 \\]"], TABLE: ["<fcel>a<fcel>b<nl><fcel>1<fcel>2<nl>"]}
    s.update(over)
    return s


def read(path, engine, **kw):
    events = []
    doc = convert(path, ConvertOptions(engine=engine, **kw), on_event=events.append)
    return doc, events


def test_image_page_every_step(tmp_path):
    engine = ScriptedEngine(script(), max_batch=3)
    doc, events = read(page_png(tmp_path / "scan.png"), engine, page_markdown=True)
    assert doc.backend == "vlm" and len(doc.pages) == 1
    md = to_markdown(doc)
    assert md.startswith("# Intro\n\nSome text $x^2$ here continued\n\n$$\nE = mc^2\n$$\n\n<table>")
    assert "![](images/image_001.jpg)\n\nFigure 1: a cat" in md and "7" not in md.split("\n")
    page = to_middle_json(doc)["pdf_info"][0]
    assert page["page_size"] == [850, 1100] and page["page_no"] == 1 and page["mode"] == "two-stage"
    assert [b["type"] for b in page["discarded_blocks"]] == ["page_number"]
    kinds = [b["type"] for b in page["para_blocks"]]
    assert kinds == ["title", "text", "interline_equation", "table", "text", "image"]
    assert page["para_blocks"][4]["merged_into_previous"] and page["para_blocks"][4]["lines"] == []
    assert page["para_blocks"][1]["bbox"] == [85.0, 110.0, 765.0, 330.0]
    assert all(b["source"] == "model" for b in page["para_blocks"][:5])
    assert page["para_blocks"][5]["source"] == "none"  # pictures are not read without --image-analysis
    assert doc.images["image_001.jpg"][:2] == b"\xff\xd8"
    with Image.open(io.BytesIO(doc.images["image_001.jpg"])) as crop:
        assert crop.size == (340, 275) and crop.getpixel((100, 100))[2] > 150  # the blue box
    # one layout call, then the 7 blocks in batches of at most 3, each with its prompt and knobs
    assert [len(c) for c in engine.calls] == [1, 3, 3, 1]
    sent = [r for c in engine.calls[1:] for r in c]
    assert [r.prompt for r in sent] == [TEXT, TEXT, FORMULA, TABLE, TEXT, TEXT, TEXT]
    assert sent[3].sampling.frequency_penalty == 0.005 and sent[0].sampling.frequency_penalty == 0.05
    assert engine.calls[0][0].image.size == (1036, 1036)
    # events: page started, layout done with the blocks, every block started and done, page done
    names = [type(e).__name__ for e in events]
    assert names[0] == "FileStarted" and names[-1] == "FileDone"
    assert names.index("PageStarted") < names.index("LayoutDone") < names.index("BlockStarted")
    layout = next(e for e in events if isinstance(e, LayoutDone))
    assert [b.type for b in layout.blocks][:4] == ["title", "text", "equation", "table"]
    started = {e.block for e in events if isinstance(e, BlockStarted)}
    done = {e.block: e for e in events if isinstance(e, BlockDone)}
    assert started == set(done) and len(done) == 7
    assert done[3].text.startswith("<fcel>") and done[3].finish_reason == "stop"
    assert any(isinstance(e, BlockTokens) and e.block == -1 for e in events)  # the layout streams too
    assert any(isinstance(e, BlockTokens) and e.tokens_per_s > 0 for e in events)
    pd = next(e for e in events if isinstance(e, PageDone))
    assert pd.markdown.strip() == md.strip() and pd.pages == 1
    assert next(e for e in events if isinstance(e, FileDone)).pages == 1


def test_page_markdown_is_rendered_only_when_asked(tmp_path):
    """parse writes the whole document; only the watch app reads each page's Markdown."""
    _, events = read(page_png(tmp_path / "scan.png"), ScriptedEngine(script(), max_batch=3))
    assert [e.markdown for e in events if isinstance(e, PageDone)] == [None]


def test_failing_and_runaway_blocks_are_marked_and_the_page_renders(tmp_path):
    def answer(req):
        if req.prompt == LAYOUT:
            return PAGE_LAYOUT
        if req.prompt == TABLE:
            return Answer("", "error", "the server said 500")
        if req.prompt == FORMULA:
            return Answer("x = " + "1 + " * 40, "length")
        return Answer("word " * 3, "length") if req.image.size[1] > 200 else "ok"

    doc, events = read(page_png(tmp_path / "p.png"), ScriptedEngine(answer))
    blocks = to_middle_json(doc)["pdf_info"][0]["para_blocks"]
    table = next(b for b in blocks if b["type"] == "table")
    assert table["finish_reason"] == "error" and table["error"] == "the server said 500"
    eq = next(b for b in blocks if b["type"] == "interline_equation")
    assert eq["finish_reason"] == "repetition"
    text = blocks[1]
    assert text["finish_reason"] == "length" and "word" in to_markdown(doc)
    assert any("block 4 (table): failed (the server said 500)" in w for w in doc.warnings)
    assert any("ran away" in w for w in doc.warnings)
    assert {e.finish_reason for e in events if isinstance(e, BlockDone)} >= {"error", "repetition", "length"}


def test_runaway_detector():
    assert is_runaway("a table row | 1 | 2 |" + " | 1 | 2 |" * 10)
    assert is_runaway("x" * 20) and not is_runaway("an ordinary sentence that was cut in the mid")


def test_bad_page_never_loses_the_others(tmp_path):
    tif = tmp_path / "scan.tif"
    frames = [Image.new("RGB", (400, 500), c) for c in ("white", "red", "white")]
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    calls = {"n": 0}

    def answer(req):
        if req.prompt == LAYOUT:
            calls["n"] += 1
            if calls["n"] == 2:
                return Answer("", "error", "layout call refused")
            return layout_line(100, 100, 900, 300, "text")
        return f"frame text {calls['n']}"

    doc, events = read(tif, ScriptedEngine(answer))
    assert len(doc.pages) == 3 and [e.page for e in events if isinstance(e, PageDone)] == [0, 1, 2]
    md = to_markdown(doc)
    assert "frame text 1" in md and "frame text 3" in md
    mid = to_middle_json(doc)["pdf_info"][1]
    assert mid["error"] == "the layout call failed: layout call refused" and mid["para_blocks"] == []
    assert any(w.endswith("page 2 was not read: the layout call failed: layout call refused") for w in doc.warnings)
    # --pages picks frames (1-based); every page failing fails the file with one line
    doc, _ = read(tif, ScriptedEngine({LAYOUT: [layout_line(1, 1, 999, 999, "text")], TEXT: ["only"]}), pages="3")
    assert len(doc.pages) == 1 and to_middle_json(doc)["pdf_info"][0]["page_no"] == 3
    with pytest.raises(ConvertError) as e:
        read(tif, ScriptedEngine(lambda r: Answer("", "error", "down")), pages="1")
    assert e.value.reason == "the layout call failed: down"


def test_engine_failure_fails_the_file_in_one_line(tmp_path):
    with pytest.raises(ConvertError) as e:
        read(page_png(tmp_path / "p.png"), ScriptedEngine({}, fail=EngineError("no server answers at http://127.0.0.1:9")))
    assert e.value.reason == "no server answers at http://127.0.0.1:9"
    with pytest.raises(ConvertError) as e:
        read(page_png(tmp_path / "p.png"), None)
    assert "needs the MinerU2.5 model" in e.value.reason


def test_image_inputs_exif_bomb_and_tiny(tmp_path):
    # a JPEG whose EXIF says "rotate 90": the page is read upright (portrait 300x500)
    img = Image.new("RGB", (500, 300), "white")
    exif = Image.Exif()
    exif[0x0112] = 6
    img.save(tmp_path / "photo.jpg", exif=exif)
    engine = ScriptedEngine({LAYOUT: [layout_line(10, 10, 990, 990, "text")], TEXT: ["hello"]})
    doc, _ = read(tmp_path / "photo.jpg", engine)
    assert doc.pages[0].page_size == (300, 500) and engine.calls[1][0].image.size == (294, 490)
    for fmt in ("webp", "bmp"):
        Image.new("RGB", (60, 40), "white").save(tmp_path / f"x.{fmt}")
        doc, _ = read(tmp_path / f"x.{fmt}", ScriptedEngine({LAYOUT: [""]}))
        assert doc.pages[0].page_size == (60, 40) and to_markdown(doc) == ""
    # a 1x1 image: the layout still sees 1036x1036; its one block crop is upscaled to 28 px
    Image.new("RGB", (1, 1), "black").save(tmp_path / "dot.png")
    engine = ScriptedEngine({LAYOUT: [layout_line(0, 0, 1000, 1000, "text")], TEXT: ["dot"]})
    doc, _ = read(tmp_path / "dot.png", engine)
    assert to_markdown(doc).strip() == "dot" and engine.calls[1][0].image.size == (28, 28)
    # a BMP header declaring 20000 x 20000 pixels is refused before anything is decoded
    bmp = bytearray(b"BM" + (0).to_bytes(4, "little") + b"\0\0\0\0" + (54).to_bytes(4, "little"))
    bmp += (40).to_bytes(4, "little") + (20000).to_bytes(4, "little") + (20000).to_bytes(4, "little")
    bmp += (1).to_bytes(2, "little") + (24).to_bytes(2, "little") + bytes(24)
    (tmp_path / "bomb.bmp").write_bytes(bytes(bmp) + bytes(100))
    with pytest.raises(ConvertError) as e:
        read(tmp_path / "bomb.bmp", ScriptedEngine({}))
    assert e.value.reason.startswith("refused:") and "bomb" in e.value.reason and "\n" not in e.value.reason
    bmp[18:26] = (11000).to_bytes(4, "little") * 2  # over our 100 MP limit, under Pillow's
    (tmp_path / "bomb.bmp").write_bytes(bytes(bmp) + bytes(100))
    with pytest.raises(ConvertError) as e:
        read(tmp_path / "bomb.bmp", ScriptedEngine({}))
    assert "11000x11000 pixels is over the limit of 100 megapixels" in e.value.reason


def test_text_mode_is_one_pass_per_page(tmp_path):
    engine = ScriptedEngine({TEXT: ["First paragraph.\n\nSecond \\(y\\) paragraph."]})
    doc, _ = read(page_png(tmp_path / "p.png"), engine, mode="text")
    assert [len(c) for c in engine.calls] == [1] and engine.calls[0][0].prompt == TEXT
    assert to_markdown(doc) == "First paragraph.\n\nSecond $y$ paragraph.\n"


def _cancel_on_page_two(doc_pages):
    cancel = threading.Event()
    state = {"layouts": 0}

    def answer(req):
        if req.prompt == LAYOUT:
            state["layouts"] += 1
            return layout_line(100, 100, 900, 300, "text") + layout_line(100, 400, 900, 600, "text")
        return "a long answer " * 5

    def on_token(ev):
        if state["layouts"] == 2 and ev.n_generated == 3:
            cancel.set()

    return ScriptedEngine(answer, on_token=on_token), cancel


def test_cancel_stops_between_tokens_and_keeps_finished_pages(tmp_path):
    tif = tmp_path / "three.tif"
    frames = [Image.new("RGB", (300, 400), "white") for _ in range(3)]
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    engine, cancel = _cancel_on_page_two(3)
    with pytest.raises(PagesInterrupted) as e:
        convert(tif, ConvertOptions(engine=engine), cancel=cancel)
    assert len(e.value.document.pages) == 1 and "a long answer" in to_markdown(e.value.document)


def test_ctrl_c_in_parse_exits_130_and_writes_finished_pages(tmp_path, monkeypatch):
    tif = tmp_path / "three.tif"
    frames = [Image.new("RGB", (300, 400), "white") for _ in range(3)]
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    engine, _ = _cancel_on_page_two(3)
    engine.on_token = lambda ev: (engine.calls and len([c for c in engine.calls if c[0].prompt == LAYOUT]) == 2
                                  and ev.n_generated == 3 and os.kill(os.getpid(), signal.SIGINT))
    previous = signal.getsignal(signal.SIGINT)
    assert interrupts.install()
    monkeypatch.setattr(interrupts, "_received", None)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = run([tif], Options(out_dir=tmp_path / "out", reading=ConvertOptions(engine=engine)), out, err)
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        interrupts._installed = False
    assert code == 130, err.getvalue()
    assert "interrupted; 1 finished page written to" in err.getvalue()
    data = json.loads((tmp_path / "out" / "three" / "three_middle.json").read_text())
    assert len(data["pdf_info"]) == 1
    assert engine.closed


def test_outputs_model_json_rebuild_and_layout_pdf(tmp_path):
    png = page_png(tmp_path / "scan.png")
    engine = ScriptedEngine(script())
    out, err = io.StringIO(), io.StringIO()
    code = run([png], Options(out_dir=tmp_path / "out", reading=ConvertOptions(engine=engine)), out, err)
    assert code == 0, err.getvalue()
    folder = tmp_path / "out" / "scan"
    names = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    assert names == ["images", "markdown.md", "middle_json.json", "model_output.json", "scan.md",
                     "scan_content_list.json", "scan_layout.pdf", "scan_middle.json", "scan_model.json",
                     "structured_content.json"]  # MinerU 3.x's set and MinerU 4's
    model = json.loads((folder / "scan_model.json").read_text())
    assert model["pages"][0]["layout"]["answer"] == PAGE_LAYOUT and model["kind"] == "image"
    assert model["engine"] == "scripted" and model["pages"][0]["blocks"][3]["content"].startswith("<fcel>")
    again = rebuild(folder / "scan_model.json", source=png)
    assert to_markdown(again) == (folder / "scan.md").read_text()
    assert to_content_list(again) == json.loads((folder / "scan_content_list.json").read_text())
    import pypdfium2 as pdfium

    layout = pdfium.PdfDocument(str(folder / "scan_layout.pdf"))
    assert len(layout) == 1
    layout.close()


# ---------------------------------------------------------------------------------------
# PDFs (written here, with a real text layer)

LINES = ["the text layer of this page carries every word of the paragraph",
         "so the default effort takes the words from the PDF and not the model",
         "while the table below is still read by the model as MinerU does it"]


def text_pdf(path, pages=1):
    items = pf.text_lines(LINES, x=72, top=720, size=12)
    return pf.write_pdf(path, [pf.Page(items=list(items)) for _ in range(pages)])


PDF_LAYOUT = layout_line(100, 70, 950, 200, "text") + layout_line(100, 500, 900, 700, "table")


def test_pdf_default_effort_takes_text_from_the_text_layer(tmp_path):
    pdf = text_pdf(tmp_path / "paper.pdf")
    engine = ScriptedEngine({LAYOUT: [PDF_LAYOUT], TABLE: ["<fcel>t<nl>"], TEXT: ["MODEL TEXT"]})
    doc, events = read(pdf, engine)
    page = to_middle_json(doc)["pdf_info"][0]
    assert page["text_layer"]["use_text_layer"] is True and page["text_layer"]["reason"]
    assert page["page_size"] == [612, 792]
    text = page["para_blocks"][0]
    assert text["source"] == "text_layer" and "carries every word" in to_markdown(doc)
    assert "MODEL TEXT" not in to_markdown(doc)
    assert [r.prompt for c in engine.calls for r in c] == [LAYOUT, TABLE]  # the text never went to the model
    assert any(isinstance(e, BlockDone) and e.source == "text_layer" for e in events)
    assert engine.calls[0][0].image.size == (1036, 1036)
    # effort high: the model reads every block
    engine = ScriptedEngine({LAYOUT: [PDF_LAYOUT], TABLE: ["<fcel>t<nl>"], TEXT: ["MODEL TEXT"]})
    doc, _ = read(pdf, engine, effort="high")
    assert "MODEL TEXT" in to_markdown(doc) and [r.prompt for c in engine.calls for r in c] == [LAYOUT, TEXT, TABLE]
    # effort low: no model at all, marked as such in the middle JSON; its normal behaviour
    # is not a warning
    doc, _ = read(pdf, None, effort="low")
    assert "carries every word" in to_markdown(doc)
    assert doc.warnings == []
    assert to_middle_json(doc)["pdf_info"][0]["mode"] == "text-layer"
    # an engine was picked (auto) but never ran: _model.json names none
    doc, _ = read(pdf, ScriptedEngine({}), effort="low")
    model = json.loads(doc.extra_outputs["_model.json"]())
    assert model["effort"] == "low" and model["engine"] is None and model["model"] is None
    assert "carries every word" in to_markdown(rebuild(model, source=pdf))


def test_pdf_pages_rotation_and_scanned_pages(tmp_path):
    rotated = pf.Page(rotate=90, items=list(pf.text_lines(LINES)))
    scan = pf.Page(items=[pf.Image(0, 0, 612, 792)])
    pdf = pf.write_pdf(tmp_path / "mixed.pdf", [pf.Page(items=list(pf.text_lines(LINES))), rotated, scan])
    engine = ScriptedEngine({LAYOUT: [layout_line(100, 70, 950, 200, "text")], TEXT: ["read by the model"]})
    doc, events = read(pdf, engine, pages="2-3")
    info = to_middle_json(doc)["pdf_info"]
    assert [p["page_no"] for p in info] == [2, 3] and info[0]["page_size"] == [792, 612]
    assert [e.pages for e in events if isinstance(e, PageStarted)] == [2, 2]
    assert info[1]["text_layer"]["use_text_layer"] is False  # the scanned page goes to the model
    assert info[1]["para_blocks"][0]["source"] == "model"
    doc, _ = read(pdf, None, effort="low")
    assert any("page 3 was not read: the model is needed" in w for w in doc.warnings)
    with pytest.raises(ConvertError):
        read(tmp_path / "none.pdf" if False else pf.write_pdf(tmp_path / "s.pdf", [scan]), None, effort="low")


def test_pages_failing_for_one_reason_give_one_warning(tmp_path):
    text = pf.Page(items=list(pf.text_lines(LINES)))
    scan = pf.Page(items=[pf.Image(0, 0, 612, 792)])
    pdf = pf.write_pdf(tmp_path / "mostly-scanned.pdf", [text, scan, scan, scan, text, scan])
    doc, _ = read(pdf, None, effort="low")
    failed = [w for w in doc.warnings if "were not read" in w or "was not read" in w]
    assert len(failed) == 1 and "pages 2-4, 6 were not read: the model is needed" in failed[0]
    assert len(doc.pages) == 6 and "carries every word" in to_markdown(doc)


def test_cross_page_paragraph_and_table_merge(tmp_path):
    tif = tmp_path / "two.tif"
    frames = [Image.new("RGB", (850, 1100), "white") for _ in range(2)]
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    layouts = [layout_line(100, 100, 900, 300, "text") + layout_line(100, 400, 900, 950, "table")
               + layout_line(450, 960, 550, 980, "page_number"),
               layout_line(100, 50, 900, 300, "table") + layout_line(100, 400, 900, 600, "text")]
    engine = ScriptedEngine({LAYOUT: layouts, TEXT: ["A sentence that goes on", "7", "and ends here."],
                             TABLE: ["<fcel>h1<fcel>h2<nl><fcel>1<fcel>2<nl>", "<fcel>h1<fcel>h2<nl><fcel>3<fcel>4<nl>"]})
    doc, _ = read(tif, engine)
    md = to_markdown(doc)
    assert md.count("<table>") == 1
    assert "<tr><td>1</td><td>2</td></tr><tr><td>3</td><td>4</td></tr></table>" in md
    info = to_middle_json(doc)["pdf_info"]
    assert info[1]["para_blocks"][0]["merged_into_previous"]
    # the paragraph before the table on page 1 does not continue onto page 2 (a table is in between
    # and page 2 starts with a table), so only the table joined
    assert "A sentence that goes on" in md and "and ends here." in md


def test_cross_page_paragraph(tmp_path):
    tif = tmp_path / "two.tif"
    frames = [Image.new("RGB", (850, 1100), "white") for _ in range(2)]
    frames[0].save(tif, save_all=True, append_images=frames[1:])
    layouts = [layout_line(100, 700, 900, 950, "text") + layout_line(450, 960, 550, 980, "page_number"),
               layout_line(100, 50, 900, 300, "text")]
    engine = ScriptedEngine({LAYOUT: layouts, TEXT: ["A sentence that goes", "7", "on and ends here."]})
    doc, _ = read(tif, engine)
    assert to_markdown(doc) == "A sentence that goes on and ends here.\n"
    engine = ScriptedEngine({LAYOUT: layouts, TEXT: ["A sentence that ends.", "7", "New one."]})
    doc, _ = read(tif, engine)
    assert to_markdown(doc) == "A sentence that ends.\n\nNew one.\n"


def test_text_layer_scripts_become_styled_spans():
    from mineru_vl_utils.structs import ContentBlock

    from mineru_tui.document import Document
    from mineru_tui.reader.mapping import to_page

    b = ContentBlock("text", [0.1, 0.1, 0.9, 0.2], angle=0, content="E=mc<sup>2</sup> and H<sub>2</sub>O")
    b["_source"] = "text_layer"
    m = ContentBlock("text", [0.1, 0.3, 0.9, 0.4], angle=0, content="model <sup>x</sup> \\(y\\)")
    doc = Document(backend="vlm")
    doc.pages.append(to_page([b, m], 0, (612, 792), None, doc))
    spans = doc.pages[0].para_blocks[0].lines[0].spans
    assert [(s.content, sorted(s.style)) for s in spans] == [
        ("E=mc", []), ("2", ["superscript"]), (" and H", []), ("2", ["subscript"]), ("O", [])]
    assert to_markdown(doc) == ("E=mc<sup>2</sup> and H<sub>2</sub>O\n\n"
                                "model \\<sup\\>x\\</sup\\> $y$\n")


def test_rebuild_a_pdf_with_its_pictures(tmp_path):
    pdf = pf.write_pdf(tmp_path / "fig.pdf", [pf.Page(items=[pf.Image(72, 400, 300, 300)] + pf.text_lines(LINES))] * 2)
    layout = layout_line(100, 70, 950, 200, "text") + layout_line(110, 120, 620, 500, "image")
    engine = ScriptedEngine({LAYOUT: [layout], TEXT: ["x"]})
    out, err = io.StringIO(), io.StringIO()
    assert run([pdf], Options(out_dir=tmp_path / "out", reading=ConvertOptions(engine=engine)), out, err) == 0
    folder = tmp_path / "out" / "fig"
    again = rebuild(folder / "fig_model.json", source=pdf)
    assert to_markdown(again) == (folder / "fig.md").read_text()
    assert sorted(again.images) == sorted(p.name for p in (folder / "images").iterdir())
    assert again.images["image_001.jpg"] == (folder / "images" / "image_001.jpg").read_bytes()


def _parse(*args, cwd):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-m", "mineru_tui", "parse", *map(str, args)], cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=str(root), HF_HUB_OFFLINE="1"),
                          capture_output=True, text=True, timeout=120)


def test_cli_effort_low_pages_and_usage_errors(tmp_path):
    pdf = text_pdf(tmp_path / "paper.pdf", pages=3)
    r = _parse(pdf, "--effort", "low", "--pages", "2-3", "--model", tmp_path / "no-model", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("carries every word") == 2  # two pages, no model needed
    assert "content cut" not in r.stderr and "warning" not in r.stderr  # its normal behaviour
    r = _parse(pdf, "--pages", "4-2", "--effort", "low", cwd=tmp_path)  # caught before reading
    assert r.returncode == 2 and r.stdout == "" and "the range 4-2 runs backwards" in r.stderr
    r = _parse(pdf, "--pages", "4", "--effort", "low", cwd=tmp_path)  # past the end: that file fails
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    r = _parse(pdf, "--effort", "max", cwd=tmp_path)
    assert r.returncode == 2 and "--effort" in r.stderr
    # no model where one is needed: one line naming the problem, exit 1
    png = page_png(tmp_path / "scan.png")
    r = _parse(png, "--model", tmp_path / "no-model", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [f"error: {png}: {tmp_path / 'no-model'}: no such directory "
                                             "(and not a Hugging Face repo id like "
                                             "opendatalab/MinerU2.5-Pro-2605-1.2B): pass --model "
                                             "with the model's folder, or run `mineru-tui model "
                                             "fetch` once"]


def test_an_unusable_layout_answer_keeps_the_text_layer_with_a_warning(tmp_path):
    text = pf.Page(items=list(pf.text_lines(LINES)))
    scan = pf.Page(items=[pf.Image(0, 0, 612, 792)])
    pdf = pf.write_pdf(tmp_path / "paper.pdf", [text, scan])
    for answer in (Answer("<|box_start|>12 3", finish_reason="length"), Answer("no layout here")):
        engine = ScriptedEngine(lambda r, a=answer: a if r.prompt == LAYOUT else Answer("MODEL"))
        doc, _ = read(pdf, engine)
        assert "carries every word" in to_markdown(doc)  # page 1's text layer, not nothing
        info = to_middle_json(doc)["pdf_info"]
        assert info[0]["fallback"] == "text_layer" and info[0]["layout_unusable"]
        assert {b["source"] for b in info[0]["para_blocks"]} == {"text_layer"}
        assert info[1]["para_blocks"] == [] and "left empty" in info[1]["warnings"][0]
        warnings = [w for w in doc.warnings if w.startswith("content cut: page ")]
        assert len(warnings) == 2 and "page 1: " in warnings[0] and "text layer instead" in warnings[0]
        assert "page 2: " in warnings[1] and "the page is left empty" in warnings[1]
    # shown by parse without -v, and the model JSON rebuilds the same page
    out, err = io.StringIO(), io.StringIO()
    assert run([pdf], Options(out_dir=tmp_path / "out", reading=ConvertOptions(engine=engine)), out, err) == 0
    assert "page 1: no block could be read from the layout answer; read from the PDF's own text layer" in err.getvalue()
    assert "page 2: no block could be read" in err.getvalue()
    folder = tmp_path / "out" / "paper"
    again = rebuild(folder / "paper_model.json", source=pdf)
    assert to_markdown(again) == (folder / "paper.md").read_text() != ""


def test_a_file_whose_every_page_is_empty_says_so(tmp_path):
    scan = pf.Page(items=[pf.Image(0, 0, 612, 792)])
    pdf = pf.write_pdf(tmp_path / "scans.pdf", [scan, scan])
    engine = ScriptedEngine(lambda r: Answer("garbage"))
    out, err = io.StringIO(), io.StringIO()
    assert run([pdf], Options(reading=ConvertOptions(engine=engine)), out, err) == 0
    assert "nothing was read: every page came out empty" in err.getvalue()
    assert err.getvalue().count("the page is left empty") == 2


def test_a_blank_page_is_an_empty_page_not_a_scan(tmp_path):
    text = pf.Page(items=list(pf.text_lines(LINES)))
    pdf = pf.write_pdf(tmp_path / "with-blank.pdf", [text, pf.Page(items=[]), text])
    engine = ScriptedEngine({LAYOUT: [PDF_LAYOUT], TABLE: ["<fcel>t<nl>"], TEXT: ["MODEL TEXT"]})
    doc, events = read(pdf, engine)
    assert [r.prompt for c in engine.calls for r in c].count(LAYOUT) == 2  # no layout pass on it
    info = to_middle_json(doc)["pdf_info"]
    assert info[1]["blank"] is True and info[1]["para_blocks"] == []
    assert doc.warnings == []
    doc, _ = read(pdf, None, effort="low")  # no "needs the model" for it
    assert doc.warnings == [] and to_markdown(doc).count("carries every word") == 2
    blank = pf.write_pdf(tmp_path / "blank.pdf", [pf.Page(items=[])])
    for engine, effort in ((None, "low"), (ScriptedEngine({}), "medium")):
        doc, _ = read(blank, engine, effort=effort)
        assert doc.warnings == ["content cut: nothing was read: every page is blank"]


def test_effort_low_never_gives_an_empty_page_without_a_warning(tmp_path):
    # only a diagonal watermark: characters enough, but none read as text
    mark = pf.Page(items=[pf.Text(100, 200, "DRAFT COPY DO NOT DISTRIBUTE " * 3, 30, angle=45)])
    pdf = pf.write_pdf(tmp_path / "watermark.pdf", [pf.Page(items=list(pf.text_lines(LINES))), mark])
    doc, _ = read(pdf, None, effort="low")
    assert any("page 2 was not read: the model is needed (its text layer gave no readable text)" in w
               for w in doc.warnings)


def test_an_empty_text_mode_answer_and_a_blank_page_are_rebuilt_the_same(tmp_path):
    text = pf.Page(items=list(pf.text_lines(LINES)))
    pdf = pf.write_pdf(tmp_path / "paper.pdf", [text, pf.Page(items=[])])
    engine = ScriptedEngine(lambda r: Answer(" \n"))
    doc, _ = read(pdf, engine, mode="text")
    assert "carries every word" in to_markdown(doc)
    assert [w for w in doc.warnings if "page" in w] == [
        "content cut: page 1: the text answer was empty; read from the PDF's own text layer instead"]
    assert [len(c) for c in engine.calls] == [1]  # the blank page cost no pass
    out, err = io.StringIO(), io.StringIO()
    options = Options(out_dir=tmp_path / "out", reading=ConvertOptions(engine=engine, mode="text"))
    assert run([pdf], options, out, err) == 0
    folder = tmp_path / "out" / "paper"
    again = rebuild(folder / "paper_model.json", source=pdf)
    assert to_markdown(again) == (folder / "paper.md").read_text()
    assert to_middle_json(again)["pdf_info"][1]["blank"] is True
