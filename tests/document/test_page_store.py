"""A document's pages on disk, loaded one at a time (document/page_store.py)."""

from __future__ import annotations

import gc
import os
import pickle

import pytest

from mineru_tui.document import Block, BlockType, Line, Page, Span, Table, Cell, text_block, text_span
from mineru_tui.document.page_store import CACHED, PageStore, dump_page, load_page


def page(i: int) -> Page:
    table = Block(BlockType.TABLE, blocks=[Block(BlockType.TABLE_BODY, lines=[Line([Span(
        "table", table=Table([[Cell([text_block([text_span(f"cell {i}")])], header=True)]]))])])])
    return Page(i, [text_block([text_span(f"words of page {i}", style={"bold"})], bbox=[1.0, 2.0, 3.0, 4.0]),
                    table],
                [Block(BlockType.PAGE_NUMBER, lines=[Line([text_span(str(i + 1))])])],
                page_size=(612.0, 792.0), extra={"page_no": i + 1, "mode": "text-layer"})


def test_a_page_comes_back_equal():
    p = page(3)
    again = load_page(dump_page(p))
    assert again == p and again is not p
    assert again.page_size == (612.0, 792.0) and again.para_blocks[0].lines[0].spans[0].style == {"bold"}


class Boom:
    def __reduce__(self):
        return (os.system, ("echo never",))


def test_the_form_makes_nothing_but_pages():
    """A store or journal file written by someone else runs no code when read."""
    with pytest.raises(pickle.UnpicklingError):
        load_page(pickle.dumps(Boom()))
    with pytest.raises(pickle.UnpicklingError):
        load_page(pickle.dumps({"not": "a page"}))


def test_the_store_is_a_sequence_of_pages_kept_on_disk(tmp_path):
    store = PageStore(tmp_path)
    for i in range(10):
        store.append(page(i))
    assert len(store) == 10 and [p.page_idx for p in store] == list(range(10))
    assert store[-1] == page(9) and [p.page_idx for p in store[2:4]] == [2, 3]
    assert store.heads()[4] == (4, {"page_no": 5, "mode": "text-layer"})
    changed = store[5]
    changed.para_blocks.pop()
    store[5] = changed
    for i in range(10):  # the cache is gone over: page 5 comes from disk
        store[i]
    assert len(store[5].para_blocks) == 1 and len(store[6].para_blocks) == 2
    title = Block(BlockType.TITLE, lines=[Line([text_span("words of page 7")])], level=2)
    store.amend(7, [(0, title)])
    assert store[7].para_blocks[0] is title and store[7].para_blocks[1].type == BlockType.TABLE
    [file] = tmp_path.iterdir()
    store.close()
    assert not file.exists()


def test_a_change_redone_when_a_page_is_read_then_its_amends(tmp_path):
    """A pass over every page can leave a change to be made again whenever a page is read
    (redo) instead of writing the page back; amended blocks count positions after it, and
    putting the page back ends it (the page written holds the change)."""
    store = PageStore(tmp_path)
    for i in range(CACHED + 4):
        store.append(page(i))
    made = []

    def to_furniture(p):  # what the furniture pass does: the first para block discarded
        made.append(p.page_idx)
        p.discarded_blocks.append(p.para_blocks.pop(0))

    store.redo(2, to_furniture)
    title = Block(BlockType.TITLE, lines=[Line([text_span("a heading")])], level=1)
    store.amend(2, [(0, title)])  # position 0 after the change: the table's place
    for _ in range(2):  # read, then read again from disk after the cache went over the rest
        for p in store:
            assert p.para_blocks == ([title] if p.page_idx == 2 else page(p.page_idx).para_blocks)
        assert [b.type for b in store[2].discarded_blocks] == [BlockType.PAGE_NUMBER, BlockType.TEXT]
    assert made == [2, 2, 2]  # per load from disk (page 2 was loaded three times), never twice on one
    store[2] = store[2]  # written back with the change: not made again when read from disk
    for i in range(len(store)):
        store[i]
    assert len(made) == 3 and len(store[2].discarded_blocks) == 2 and store[2].para_blocks == [title]


def pages_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Page)


def test_only_a_few_pages_are_in_memory(tmp_path):
    before = pages_alive()
    store = PageStore(tmp_path)
    for i in range(50):
        store.append(page(i))
    for _ in store:  # every page loaded in turn
        pass
    assert pages_alive() - before <= CACHED
    del store
    gc.collect()
    assert not any(tmp_path.iterdir())  # the file goes with the store
