"""MinerU2.5's host-side protocol, taken from ``mineru-vl-utils`` (pinned) rather than rewritten.

The library's :class:`MinerUClientHelper` prepares the 1036x1036 layout image, parses the
layout grammar (boxes, types, angles, ``txt_contd_tgt``, de-duplication, blocks inside
tables), cuts and rotates the crops with the 28-px / 50:1 rules, picks each block type's
prompt and sampling knobs, masks images inside tables, and post-processes the answers (OTSL to
HTML, formula and text fixes, equation blocks, ``[Non-Text]``, image analysis). Our code only
drives our engine with what it prepares. Its core imports no torch (``docs/pages.md``).

The library logs through loguru; :func:`capture_warnings` turns those records into our page
warnings instead of letting them reach stderr.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from mineru_tui.engines.base import Request
from mineru_tui.engines.params import SamplingParams

LAYOUT_PROMPT_KEY = "[layout]"
TEXT_RECOGNITION = "\nText Recognition:"

# MinerUClient's post-processing settings (its constructor defaults); the contract test builds
# the library's own client with the same ones.
CLIENT_SETTINGS: dict[str, Any] = dict(
    layout_image_size=(1036, 1036), min_image_edge=28, max_image_edge_ratio=50,
    simple_post_process=False, handle_equation_block=True, abandon_list=False,
    abandon_paratext=False, enable_table_formula_eq_wrap=False,
)


@lru_cache(maxsize=2)
def helper(image_analysis: bool):
    """The library's helper, set up as ``MinerUClient`` sets it up (PIL images, not PNG bytes)."""
    from mineru_vl_utils.mineru_client import (DEFAULT_PROMPTS, DEFAULT_SAMPLING_PARAMS,
                                               MinerUClientHelper)

    _route_loguru()
    return MinerUClientHelper(
        backend="mineru-tui",  # anything but "http-client": crops stay PIL images
        prompts=DEFAULT_PROMPTS, sampling_params=DEFAULT_SAMPLING_PARAMS,
        image_analysis=image_analysis, debug=False, enable_cross_page_table_merge=False,
        **CLIENT_SETTINGS,
    )


def knobs(params) -> SamplingParams:
    """The library's sampling params for a prompt as our engine's knobs (greedy decoding:
    MinerU's temperature 0 / top_k 1 everywhere)."""
    if params is None:
        return SamplingParams()
    return SamplingParams(
        no_repeat_ngram_size=100 if params.no_repeat_ngram_size is None else int(params.no_repeat_ngram_size),
        presence_penalty=float(params.presence_penalty or 0.0),
        frequency_penalty=float(params.frequency_penalty or 0.0),
        repetition_penalty=float(params.repetition_penalty or 1.0),
    )


def layout_request(page_image, max_new_tokens: int | None) -> Request:
    """The layout call for a page: the page squeezed to 1036x1036 with MinerU's prompt."""
    h = helper(False)
    prompt = h.prompts.get(LAYOUT_PROMPT_KEY) or h.prompts["[default]"]
    params = h.sampling_params.get(LAYOUT_PROMPT_KEY) or h.sampling_params.get("[default]")
    return Request(h.prepare_for_layout(page_image), prompt, knobs(params), max_new_tokens)


def text_request(page_image, max_new_tokens: int | None) -> Request:
    """``--mode text``: the whole page read with "Text Recognition:" (default knobs)."""
    h = helper(False)
    from mineru_vl_utils.vlm_client.utils import get_rgb_image

    img = h.resize_by_need(get_rgb_image(page_image))
    return Request(img, h.prompts["[default]"], knobs(h.sampling_params.get("[default]")), max_new_tokens)


# Blocks one page's layout may have: real pages have tens, a dense one a few hundred. The
# library de-duplicates boxes pairwise (quadratic), so a 62,500-box answer from a hostile
# server would take minutes; beyond this the rest of the answer is dropped with a warning.
MAX_LAYOUT_BLOCKS = 1000
_BOX_START = "<|box_start|>"
# Coordinates are 0-1000; a number of 5 or more digits is out of range. Python refuses to
# parse one of more than 4,300 digits (ValueError), so it never reaches the library.
_LONG_NUMBER = re.compile(r"\d{5,}")


def parse_layout(answer: str, max_blocks: int | None = None) -> list:
    """The layout answer as the library's ``ContentBlock`` list (reading order).

    Bounded before the library sees it: a coordinate of 5 or more digits becomes an
    out-of-range box (dropped with the library's own warning), and only the first
    ``max_blocks`` boxes are kept (a page warning says how many were dropped).
    """
    max_blocks = max_blocks or MAX_LAYOUT_BLOCKS
    answer = _LONG_NUMBER.sub("1001", answer)
    starts = answer.count(_BOX_START)
    if starts > max_blocks:
        cut = -1
        for _ in range(max_blocks + 1):
            cut = answer.index(_BOX_START, cut + 1)
        answer = answer[:cut]
        _warn(f"the layout answer has {starts:,} blocks; only the first {max_blocks:,} are read")
    return helper(False).parse_layout_output(answer)


def _warn(message: str) -> None:
    """A page warning, as the library's logged warnings become (see capture_warnings)."""
    target = getattr(_capture, "warnings", None)
    if target is not None:
        target.append(message)


def block_requests(page_image, blocks: list, image_analysis: bool,
                   max_new_tokens: int | None) -> tuple[list[Request], list[int]]:
    """Crops, prompts and knobs for every block the model must read, and their indices.

    ``blocks`` is changed in place as the library does (captions inside pictures dropped,
    images inside tables flagged, table-image tokens recorded).
    """
    crops, prompts, params, indices = helper(image_analysis).prepare_for_extract(
        page_image, blocks, None, image_analysis)
    reqs = [Request(c, p, knobs(s), max_new_tokens) for c, p, s in zip(crops, prompts, params)]
    return reqs, indices


def post_process(blocks: list) -> list:
    """The library's post-processing (with its own fallback to the raw blocks on failure)."""
    return helper(False).post_process(blocks)


def content_block(d: dict):
    """A ``ContentBlock`` rebuilt from its JSON form (``<stem>_model.json``)."""
    from mineru_vl_utils.structs import ContentBlock

    b = ContentBlock(d["type"], list(d["bbox"]), angle=d.get("angle"), content=d.get("content"),
                     merge_prev=bool(d.get("merge_prev", False)) if d["type"] == "text" else False)
    for k, v in d.items():
        if k not in ("type", "bbox", "angle", "content", "merge_prev"):
            b[k] = v
    return b


# ---------------------------------------------------------------------------------------
# loguru → our warnings

_capture = threading.local()


def _sink(message) -> None:
    record = message.record
    if record["level"].no < 30:  # below WARNING
        return
    target = getattr(_capture, "warnings", None)
    if target is not None:
        target.append(" ".join(str(record["message"]).split())[:300])


@lru_cache(maxsize=1)
def _route_loguru() -> None:
    """Send the library's log records to :func:`capture_warnings` lists, not to stderr."""
    from loguru import logger

    with contextlib.suppress(ValueError):
        logger.remove(0)  # loguru's default stderr handler (only if nobody removed it yet)
    logger.add(_sink, level="WARNING", format="{message}")


@contextlib.contextmanager
def capture_warnings() -> Iterator[list[str]]:
    """Collect the library's warnings logged in this thread while the block runs."""
    _route_loguru()
    previous = getattr(_capture, "warnings", None)
    _capture.warnings = found = []
    try:
        yield found
    finally:
        _capture.warnings = previous
