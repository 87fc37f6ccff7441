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


class _Str(str):
    pass


class _Int(int):
    pass


class _Float(float):
    pass


ODD = [None, True, False, 0, -7, 2**70, 1.5, -0.0, 1e16, 1e-7, float("nan"), float("inf"), -float("inf"),
       "", "é\u202e\x00\x1f\x7f\"\\/\n\t\ud800", _Str("sub"), _Int(5), (1, (2, [])), [[[]], {}],
       {"a": {}, 7: [], 2.5: None, True: 1, False: 2, None: 3, "é": {"x": [1, {"y": "z"}]}},
       {_Str("k"): _Int(1)}, [float("nan"), {"n": -float("inf")}],
       [0.5, -2.25, _Float(3.5), 1, True, None, "s", _Int(2), float("inf"), [1.0, 2.0, 3.0, 4.0]],
       {"bbox": [1.0, 2.0, 3.0, 4.5], "f": _Float(-0.0), "t": (1.5,), "n": None, "b": False}]


@pytest.mark.parametrize("indent", [1, 2, 4])
@pytest.mark.parametrize("value", ODD + [ODD], ids=repr)
def test_dumps_is_json_dumps(value, indent):
    from mineru_tui.document.json_stream import dumps

    assert dumps(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


@pytest.mark.parametrize("value", [{1j: 1}, [object()], {"a": {1, 2}}, b"bytes"], ids=repr)
def test_dumps_refuses_what_json_dumps_refuses(value):
    from mineru_tui.document.json_stream import dumps

    with pytest.raises(TypeError) as ours:
        dumps(value, 2)
    with pytest.raises(TypeError) as theirs:
        json.dumps(value, ensure_ascii=False, indent=2)
    assert str(ours.value) == str(theirs.value)


def test_dumps_is_json_dumps_on_any_json_value():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mineru_tui.document.json_stream import dumps

    leaves = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
    values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=4)
                          | st.dictionaries(st.text() | st.integers(), inner, max_size=4), max_leaves=30)

    @settings(max_examples=300, deadline=None)
    @given(values, st.integers(min_value=0, max_value=3))
    def check(value, indent):
        assert dumps(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)

    check()


def test_remembered_float_texts_are_json_dumps_texts(monkeypatch):
    """Float texts are remembered across calls; a value that came before (0.0 after -0.0,
    a box's number again, NaN) is still written as json.dumps writes it, and the memory
    is emptied when full (kept small here) without changing a text."""
    from mineru_tui.document import json_stream

    monkeypatch.setattr(json_stream, "_FLOAT_TEXTS", {})
    monkeypatch.setattr(json_stream, "_FLOAT_TEXTS_KEPT", 8)
    values = [[-0.0, 0.0, 1.5, -1.5, 1e16, 0.1 + 0.2, float("nan"), float("inf")], -0.0, 0.0, 1.5,
              {"bbox": [0.0, -0.0, 72.25, 72.25], "f": 1e-7}, [x / 7 for x in range(40)], 1e16]
    for _ in range(3):
        for value in values:
            assert json_stream.dumps(value, 2) == json.dumps(value, ensure_ascii=False, indent=2)
    assert 0 < len(json_stream._FLOAT_TEXTS) <= 8 and 0.0 not in json_stream._FLOAT_TEXTS
