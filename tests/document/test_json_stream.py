"""JSON written as a stream (document/json_stream.py) is the text ``json.dumps`` gives, and the
output set written page by page is the set the whole-document writers give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mineru_tui.convert import ConvertOptions, convert
from mineru_tui.document import to_content_list, to_markdown, to_middle_json
from mineru_tui.document.json_stream import JsonList, json_chunks
from mineru_tui.document.mineru4 import to_middle_v2, to_structured_content
from mineru_tui.output import dumps_json, write_outputs

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "pdf"

ITEMS = [[], [{}], [[]], [1, "two", None], [{"a": [1, {"b": []}], "é\u202e\n\"": "x\ny"}, [[], {}], 3.5]]
HEADS = [({"pages": None}, "pages"), ({"a": 1, "pages": None, "z": {"k": [1, 2]}}, "pages"),
         ({"first": [], "x": None}, "x")]


@pytest.mark.parametrize("indent", [1, 2])
@pytest.mark.parametrize("items", ITEMS)
def test_a_list_streamed_is_the_text_json_dumps_gives(items, indent):
    assert "".join(json_chunks(iter(items), indent=indent)) == json.dumps(items, ensure_ascii=False, indent=indent)
    for head, key in HEADS:
        whole = json.dumps({**head, key: items}, ensure_ascii=False, indent=indent)
        assert "".join(json_chunks(iter(items), head, key, indent=indent)) == whole


def test_items_are_encoded_one_at_a_time():
    seen = []

    def items():
        for k in range(3):
            seen.append(k)
            yield {"page": k}

    out = JsonList({"pages": None}, "pages")
    it = items()
    assert out.item(next(it)).endswith('"page": 0\n    }') and seen == [0]  # nothing read ahead
    rest = [out.item(v) for v in it] + [out.end()]
    assert "".join([rest[0]]) and seen == [0, 1, 2]


@pytest.mark.parametrize("name", ["multi_page.pdf", "normal_4pages.pdf", "code_and_formula.pdf"])
def test_the_streamed_set_is_what_the_whole_document_writers_give(name, tmp_path):
    source = CORPUS / name
    doc = convert(source, ConvertOptions(effort="low"))
    folder = write_outputs(doc, tmp_path, "d", source=source).path
    assert (folder / "d.md").read_text(encoding="utf-8") == to_markdown(doc)
    assert (folder / "markdown.md").read_text(encoding="utf-8") == to_markdown(doc)
    assert (folder / "d_middle.json").read_text(encoding="utf-8") == dumps_json(to_middle_json(doc))
    assert (folder / "d_content_list.json").read_text(encoding="utf-8") == dumps_json(to_content_list(doc))
    middle = to_middle_v2(doc, source=str(source))
    assert (folder / "middle_json.json").read_text(encoding="utf-8") == dumps_json(middle)
    assert (folder / "structured_content.json").read_text(encoding="utf-8") == \
        dumps_json(to_structured_content(middle))
    assert json.loads((folder / "d_model.json").read_text(encoding="utf-8"))["pages"][0]["page_no"] == 1
