"""One page through the model: layout, crops, recognition, post-processing.

:func:`read_page` is MinerU's ``two_step_extract`` driven through our engine (the steps are
``mineru-vl-utils``' own, see :mod:`.protocol`), plus what MinerU's hybrid backend adds on PDFs:
on a page whose text layer is usable (effort ``medium``), text-like blocks take their text
from the PDF instead of the model. ``--mode text`` is one "Text Recognition:" pass over the
whole page. The result is the post-processed block list and a record of the raw answers
(``<stem>_model.json``) from which the page can be rebuilt without the model.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from mineru_tui.events import BlockDone, BlockInfo, LayoutDone
from mineru_tui.reader import calls, protocol

MAX_TOKENS_ENV = "MINERU_TUI_MAX_NEW_TOKENS"  # cap every generation (quick runs and tests)
EFFORTS = ("low", "medium", "high")


class PageFailed(Exception):
    """This page cannot be read (its layout call failed...): one line; other pages go on."""


class PageCancelled(Exception):
    """The cancel flag was seen while this page was being read."""


@dataclass
class Settings:
    """How pages are read (from ``ConvertOptions``)."""

    mode: str = "two-stage"  # two-stage | text
    effort: str = "medium"  # low (text layer only) | medium | high (model reads everything)
    image_analysis: bool = False
    max_new_tokens: int | None = None

    @classmethod
    def from_options(cls, options) -> Settings:
        effort = {"default": "medium"}.get(options.effort, options.effort)
        cap = options.extra.get("max_new_tokens") if options.extra else None
        if cap is None and os.environ.get(MAX_TOKENS_ENV, "").strip():
            try:
                cap = int(os.environ[MAX_TOKENS_ENV])
            except ValueError:
                raise PageFailed(f"{MAX_TOKENS_ENV} must be a whole number") from None
        return cls(options.mode, effort, bool(options.image_analysis), int(cap) if cap else None)


@dataclass
class PageInput:
    """A page ready to read: its image, its size in page units and, for PDFs, the page."""

    ordinal: int  # 0-based among the pages read
    number: int  # 1-based in the file
    image: object  # PIL RGB image
    page_size: tuple[float, float]  # PDF points, or pixels for images
    pdf_page: object | None = None
    decision: dict | None = None  # {"use_text_layer": bool, "reason": str} (PDF pages)
    blank: bool = False  # a PDF page that draws nothing: empty, not a scan
    record: dict | None = None  # the record it was read with, when rebuilt from _model.json


def read_page(inp: PageInput, engine, settings: Settings, *, path: str, emit: Callable,
              cancel=None) -> tuple[dict, list]:
    """Read one page; returns (record for ``_model.json``, post-processed blocks)."""
    t0 = time.perf_counter()
    with protocol.capture_warnings() as warnings:
        if settings.mode == "text":
            record, blocks = _text_mode(inp, engine, settings, path, emit, cancel)
        else:
            record, blocks = _two_stage(inp, engine, settings, path, emit, cancel)
    record.update(page_idx=inp.ordinal, page_no=inp.number, image_size=list(inp.image.size),
                  page_size=list(inp.page_size), mode=settings.mode, decision=inp.decision,
                  warnings=list(warnings), seconds=round(time.perf_counter() - t0, 3))
    return record, blocks


def _layout(inp, engine, settings, path, emit, cancel) -> calls.Answer:
    req = protocol.layout_request(inp.image, settings.max_new_tokens)
    [ans] = calls.run(engine, [req], path=path, page=inp.ordinal, blocks=[-1], types=["layout"],
                      total_blocks=0, emit=emit, cancel=cancel)
    if ans.finish_reason == "cancelled":
        raise PageCancelled()
    if ans.finish_reason == "error":
        raise PageFailed(f"the layout call failed: {ans.error or 'engine error'}")
    return ans


def _two_stage(inp, engine, settings, path, emit, cancel):
    layout = _layout(inp, engine, settings, path, emit, cancel)
    blocks = protocol.parse_layout(layout.text)
    if not blocks:  # the page reader falls back on the text layer, or an empty page
        emit(LayoutDone(path, inp.ordinal, ()))
        return ({"layout": {"answer": layout.text, "finish_reason": layout.finish_reason,
                            "tokens": layout.tokens},
                 "blocks": [], "layout_unusable": _unusable_why(layout)}, [])
    requests, indices = protocol.block_requests(inp.image, blocks, settings.image_analysis,
                                                settings.max_new_tokens)
    for b in blocks:
        b["_source"] = "none"  # not read: containers, pictures without --image-analysis...
    for i in indices:
        blocks[i]["_source"] = "model"
    use_layer = (inp.pdf_page is not None and settings.effort == "medium"
                 and bool(inp.decision and inp.decision.get("use_text_layer")))
    if use_layer:
        requests, indices = _fill_from_text_layer(inp, blocks, requests, indices)
    emit(LayoutDone(path, inp.ordinal, tuple(
        BlockInfo(i, b["type"], tuple(b["bbox"]), b.get("angle") or 0, b["_source"]) for i, b in enumerate(blocks))))
    for i, b in enumerate(blocks):
        if b["_source"] == "text_layer":
            emit(BlockDone(path, inp.ordinal, i, b["type"], b["content"] or "", "text_layer", "text_layer"))

    def block_done(k: int, a: calls.Answer) -> None:  # as each block ends, not when the page does
        b = blocks[indices[k]]
        b.content = None if a.finish_reason in ("error", "cancelled") else a.text
        b["_finish"] = a.finish_reason
        if a.error:
            b["_error"] = a.error
        emit(BlockDone(path, inp.ordinal, indices[k], b["type"], a.text, "model", a.finish_reason))

    answers = calls.run(engine, requests, path=path, page=inp.ordinal, blocks=indices,
                        types=[blocks[i]["type"] for i in indices], total_blocks=len(blocks),
                        emit=emit, cancel=cancel, on_answer=block_done)
    for k, a in enumerate(answers):
        if "_finish" not in blocks[indices[k]]:  # never started (cancelled before its turn)
            block_done(k, a)
    if any(a.finish_reason == "cancelled" for a in answers):
        raise PageCancelled()
    record = {"layout": {"answer": layout.text, "finish_reason": layout.finish_reason, "tokens": layout.tokens},
              "blocks": copy.deepcopy([dict(b) for b in blocks])}
    return record, protocol.post_process(blocks)


def _unusable_why(layout: calls.Answer) -> str:
    """Why a layout answer gave no block, in a few words for a warning."""
    if layout.finish_reason in ("length", "repetition"):
        return "the layout answer was cut at the length limit before any block"
    if not layout.text.strip():
        return "the layout answer was empty"
    return "no block could be read from the layout answer"


def _fill_from_text_layer(inp, blocks, requests, indices):
    """Text-like blocks take the PDF's characters; those without usable text stay with the model."""
    from mineru_tui.pdf.blocks_text import TEXT_LAYER_TYPES, text_for_blocks

    wanted = [k for k, i in enumerate(indices) if blocks[i]["type"] in TEXT_LAYER_TYPES]
    if not wanted:
        return requests, indices
    texts = text_for_blocks(inp.pdf_page, [(blocks[indices[k]]["type"], list(blocks[indices[k]]["bbox"]))
                                                    for k in wanted], inp.image.size)
    filled = set()
    for k, text in zip(wanted, texts):
        if text is not None:
            b = blocks[indices[k]]
            b.content = text
            b["_source"] = "text_layer"
            b["_finish"] = "text_layer"
            filled.add(k)
    keep = [k for k in range(len(indices)) if k not in filled]
    return [requests[k] for k in keep], [indices[k] for k in keep]


def _text_mode(inp, engine, settings, path, emit, cancel):
    """One "Text Recognition:" pass over the whole page: paragraphs in reading order."""
    from mineru_vl_utils.structs import ContentBlock

    req = protocol.text_request(inp.image, settings.max_new_tokens)
    emit(LayoutDone(path, inp.ordinal, (BlockInfo(0, "text", (0.0, 0.0, 1.0, 1.0), 0, "model"),)))
    [ans] = calls.run(engine, [req], path=path, page=inp.ordinal, blocks=[0], types=["text"],
                      total_blocks=1, emit=emit, cancel=cancel)
    emit(BlockDone(path, inp.ordinal, 0, "text", ans.text, "model", ans.finish_reason))
    if ans.finish_reason == "cancelled":
        raise PageCancelled()
    if ans.finish_reason == "error":
        raise PageFailed(f"the text call failed: {ans.error or 'engine error'}")
    paragraphs = [p.strip() for p in ans.text.split("\n\n") if p.strip()]
    if not paragraphs:  # the page reader falls back on the text layer, or an empty page
        return ({"text": {"answer": ans.text, "finish_reason": ans.finish_reason, "tokens": ans.tokens},
                 "blocks": [], "layout_unusable": "the text answer was empty"}, [])
    blocks = []
    for p in paragraphs:
        b = ContentBlock("text", [0.0, 0.0, 1.0, 1.0], angle=0, content=p)
        b["_source"] = "model"
        b["_finish"] = ans.finish_reason
        blocks.append(b)
    record = {"text": {"answer": ans.text, "finish_reason": ans.finish_reason, "tokens": ans.tokens},
              "blocks": copy.deepcopy([dict(b) for b in blocks])}
    return record, protocol.post_process(blocks)


def rebuild_blocks(record: dict) -> list:
    """The post-processed blocks of a page from its ``_model.json`` record (no model)."""
    blocks = [protocol.content_block(d) for d in record.get("blocks", [])]
    return protocol.post_process(blocks)
