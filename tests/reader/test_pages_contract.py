"""Contract: for the same model answers, our page equals mineru-vl-utils' own
``MinerUClient.two_step_extract`` (driven with a scripted client), and our Markdown equals its
``json2md`` up to the differences docs/pages.md lists (applied here as explicit rules)."""

import copy
import re

import pytest
from PIL import Image, ImageDraw

from mineru_tui.convert import ConvertOptions
from mineru_tui.document import Document, to_markdown
from mineru_tui.reader import pipeline, protocol
from mineru_tui.reader.mapping import to_page
from testkit.scripted_engine import ScriptedEngine, layout_line

LAYOUT = "".join([
    layout_line(100, 10, 900, 30, "header"),
    layout_line(100, 40, 900, 70, "doc_title"),
    layout_line(100, 80, 900, 100, "paragraph_title"),
    layout_line(100, 105, 900, 180, "text"),
    layout_line(100, 185, 900, 200, "text", tail="<|txt_contd_tgt|>"),
    layout_line(100, 205, 900, 260, "list"),
    layout_line(110, 206, 890, 230, "list_item"),
    layout_line(110, 232, 890, 258, "list_item"),
    layout_line(100, 265, 900, 330, "equation_block"),
    layout_line(110, 267, 890, 295, "equation"),
    layout_line(110, 298, 890, 328, "equation"),
    layout_line(100, 335, 900, 500, "table", angle="right"),
    layout_line(120, 340, 300, 420, "image"),  # inside the table: masked, token in the answer
    layout_line(100, 505, 900, 520, "table_caption"),
    layout_line(100, 525, 500, 700, "image"),
    layout_line(100, 702, 500, 715, "image_caption"),
    layout_line(520, 525, 900, 700, "chart"),
    layout_line(100, 720, 900, 780, "code"),
    layout_line(100, 785, 900, 800, "ref_text"),
    layout_line(100, 802, 900, 803, "text"),  # a 1-unit strip: padded to 50:1 and upscaled
    layout_line(20, 300, 60, 700, "aside_text", angle="left"),
    layout_line(100, 940, 900, 960, "footer"),
    layout_line(450, 965, 550, 985, "page_number"),
])

TEXT = ["[Non-Text]", "A Study of Pages", "1 Introduction",
        "We read pages with \\[x_1\\] and \\(a \\timesb\\) inline.", "and it goes on",
        "- first item", "- second item", "Table 1: numbers", "Figure 1: a photo",
        "def f():\n    return 1", "[1] A. Author, A paper, 2024.", "thin strip", "side note",
        "Footer text", "7"]
FORMULA = ["x = 1 \\tag{1}", "y = 2 \\tag{2}"]
IMAGE = ["<|class_start|>natural_image<|class_end|><|caption_start|>A cat on a sofa<|caption_end|>"
         "<|content_start|><|content_end|>",
         "<|class_start|>chart<|class_end|><|sub_class_start|>bar_chart<|sub_class_end|><|caption_start|>"
         "Sales<|caption_end|><|content_start|>| Year | Sales |\n| --- | --- |\n| 2020 | 10 |<|content_end|>"]


def _page():
    img = Image.new("RGB", (1224, 1584), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 1500, 40):
        d.line((130, y, 1100, y), fill=(40, 40, 40), width=2)
    d.rectangle((150, 545, 350, 640), fill=(200, 30, 30))
    return img


def _script(table_answer):
    return {"\nLayout Detection:": [LAYOUT], "\nText Recognition:": TEXT,
            "\nFormula Recognition:": FORMULA, "\nTable Recognition:": [table_answer],
            "\nImage Analysis:": IMAGE}


class _Replay:
    """Answers the library's client calls from the same script as the scripted engine."""

    def __init__(self, script):
        self.engine = ScriptedEngine(script)
        self.calls = []

    def predict(self, image, prompt="", sampling_params=None, priority=None):
        return self.batch_predict([image], [prompt], [sampling_params])[0]

    def batch_predict(self, images, prompts="", sampling_params=None, priority=None):
        from mineru_tui.engines.base import Request

        self.calls.append((list(images), list(prompts), list(sampling_params or [])))
        return [self.engine.answer(Request(im, p)).text for im, p in zip(images, prompts)]


def _library(page, script, image_analysis):
    from mineru_vl_utils import MinerUClient

    mc = MinerUClient("http-client", server_url="http://127.0.0.1:9", model_name="x",
                      skip_model_name_checking=True, image_analysis=image_analysis, use_tqdm=False)
    mc.helper.backend = "mineru-tui"  # PIL images to the client, as we hand them to our engine
    replay = _Replay(script)
    mc.client.predict = replay.predict
    mc.client.batch_predict = replay.batch_predict
    return list(mc.two_step_extract(page)), replay


def _ours(page, script, image_analysis):
    engine = ScriptedEngine(script, max_batch=4)
    settings = pipeline.Settings(image_analysis=image_analysis)
    record, blocks = pipeline.read_page(pipeline.PageInput(0, 1, page, page.size), engine, settings,
                                        path="page.png", emit=lambda e: None)
    return record, blocks, engine


@pytest.fixture(autouse=True)
def fixed_table_token(monkeypatch):
    """The library names a picture inside a table with a random token; fix it for both runs."""
    from mineru_vl_utils.post_process import table_image_processor

    monkeypatch.setattr(table_image_processor, "_generate_uid", lambda length=4: "WXYZ")


TOKEN = "[WXYZ]"


def _public(blocks):
    return [{k: v for k, v in b.items() if not k.startswith("_")} for b in blocks]


@pytest.mark.parametrize("image_analysis", [False, True])
def test_our_page_equals_two_step_extract(image_analysis):
    page = _page()
    script = _script(f"<fcel>pic<fcel>{TOKEN}<nl><fcel>\\(a\\)<fcel>2<nl>")
    record, ours, engine = _ours(page, script, image_analysis)
    theirs, replay = _library(page, copy.deepcopy(script), image_analysis)
    assert _public(ours) == _public(theirs)
    # the same crops, prompts and knobs were sent, all blocks of the page batched (max_batch 4)
    [layout_call, *block_calls] = engine.calls
    sent = [r for call in block_calls for r in call]
    assert [len(c) for c in block_calls] == [4] * (len(sent) // 4) + ([len(sent) % 4] if len(sent) % 4 else [])
    their_images, their_prompts, their_params = replay.calls[1]
    assert [r.prompt for r in sent] == their_prompts
    assert [r.image.size for r in sent] == [im.size for im in their_images]
    assert [r.image.tobytes() for r in sent] == [im.tobytes() for im in their_images]
    assert [(r.sampling.presence_penalty, r.sampling.frequency_penalty, r.sampling.no_repeat_ngram_size)
            for r in sent] == [(p.presence_penalty, p.frequency_penalty, p.no_repeat_ngram_size) for p in their_params]
    assert layout_call[0].image.size == (1036, 1036) == replay.calls[0][0][0].size
    assert ("\nImage Analysis:" in their_prompts) == image_analysis
    # the picture inside the table came back as an embedded image in the table HTML
    [table] = [b for b in ours if b["type"] == "table"]
    assert '<img src="data:image/jpeg;base64,' in table["content"] and TOKEN not in table["content"]


def _escape(text):
    """5. Markdown escaping of plain text (the characters our scripted answers use)."""
    text = re.sub(r"([\\\[\]_*])", r"\\\1", text)
    return re.sub(r"^- ", "\\\\- ", text)


def _expected_markdown(theirs):
    """json2md of the library's blocks after the documented differences (docs/pages.md)."""
    from mineru_vl_utils.post_process import json2md

    blocks = []
    for b in copy.deepcopy(theirs):
        t, c = b["type"], b["content"]
        if t in ("header", "footer", "page_number", "aside_text", "page_footnote"):
            continue  # 1. page furniture goes to discarded_blocks, not the Markdown
        if t in ("doc_title", "title"):
            c = f"# {c}"  # 2. titles are headings
        elif t == "paragraph_title":
            c = f"## {c}"
        elif t == "equation":
            c = c.replace("\\[\n", "$$\n").replace("\n\\]", "\n$$")  # 3. display maths as $$
        elif t in ("text", "ref_text") and c:
            parts = re.split(r"\\\((.+?)\\\)", c)  # 4. inline maths as $...$
            c = "".join(f"${p.strip()}$" if k % 2 else _escape(p) for k, p in enumerate(parts))
        elif t == "code":
            c = f"```\n{c}\n```"  # 6. code is fenced
        elif t in ("image", "chart"):
            c = "![](images/image_00%d.jpg)" % (1 + sum(x["type"] in ("image", "chart") for x in blocks))
            # 7. pictures are files; their analysis is the alt text (empty here: no analysis)
        blocks.append({**b, "content": c})
        if t == "table_caption" and len(blocks) > 1 and blocks[-2]["type"] == "table":
            blocks[-2], blocks[-1] = blocks[-1], blocks[-2]  # 8. a table's caption is written above it
    return json2md(blocks)


def test_our_markdown_equals_json2md_up_to_documented_differences():
    page = _page()
    script = _script(f"<fcel>pic<fcel>{TOKEN}<nl><fcel>b<fcel>2<nl>")
    _, ours, _ = _ours(page, script, False)
    theirs, _ = _library(page, copy.deepcopy(script), False)
    doc = Document(backend="vlm")
    doc.pages.append(to_page(ours, 0, page.size, page, doc))
    assert to_markdown(doc).strip() == _expected_markdown(theirs).strip()


def test_convert_options_reach_the_settings(monkeypatch):
    s = pipeline.Settings.from_options(ConvertOptions(mode="text", effort="default", image_analysis=True))
    assert (s.mode, s.effort, s.image_analysis, s.max_new_tokens) == ("text", "medium", True, None)
    monkeypatch.setenv(pipeline.MAX_TOKENS_ENV, "12")
    assert pipeline.Settings.from_options(ConvertOptions()).max_new_tokens == 12
    assert protocol.knobs(None).no_repeat_ngram_size == 100
