"""Test doubles for the watch tests: a scripted page reader that runs in the reader process.

``convert`` has the signature of :func:`mineru_tui.convert.convert`. Office files go to the
real one; a PDF or image is "read" by a script that emits exactly the job events the page
reader emits (FileStarted, PageStarted, EngineStage, LayoutDone, BlockStarted, BlockTokens,
BlockDone, PageDone) and returns a real Document, so everything after ``convert`` (the pipe,
the lanes, the manifest, the output writer, the app) is the real code.

Knobs (environment, read in the reader process):
  MINERU_TEST_PAGES        pages per file (default 2)
  MINERU_TEST_TOKEN_DELAY  seconds per token (default 0)
  MINERU_TEST_GIL_MS       hold the GIL this long per token, like Core ML's predict (default 0)
"""

from __future__ import annotations

import math
import os
import re
import time
from pathlib import Path

from mineru_tui import events as je
from mineru_tui.errors import ConvertError
from mineru_tui.convert import convert as real_convert
from mineru_tui.detect import OFFICE_KINDS, detect
from mineru_tui.document import Document, Page, text_block, text_span, title_block

BLOCKS = [("title", (0.1, 0.05, 0.9, 0.1), "Scripted page {n}"),
          ("text", (0.1, 0.15, 0.9, 0.5), "The quick brown fox jumps over the lazy dog"),
          ("text", (0.1, 0.55, 0.9, 0.9), "Second paragraph of page {n}")]


_PATTERN = re.compile(r"(a+)+$")
_LENGTH: dict[float, int] = {}  # hold in ms -> number of a's (calibrated once per process)


def _match_seconds(n: int) -> float:
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        _PATTERN.match("a" * n + "b")
        best = min(best, time.perf_counter() - t0)
    return best


def hold_gil(ms: float) -> None:
    """Hold the GIL for about ``ms`` milliseconds in ONE C call, as Core ML's ``predict``
    does: ``re`` never releases the GIL while matching, and ``(a+)+$`` against ``a...ab``
    backtracks through 2**n paths (each extra ``a`` doubles the time). The length whose
    time is nearest to ``ms`` is found once, by measuring."""
    if ms <= 0:
        return
    n = _LENGTH.get(ms)
    if n is None:
        n, best = 12, float("inf")
        for k in range(12, 34):
            t = _match_seconds(k) * 1000
            if abs(math.log(t / ms)) < abs(math.log(best / ms)):
                n, best = k, t
            if t > ms:
                break
        _LENGTH[ms] = n
    _PATTERN.match("a" * n + "b")


def convert(path, options=None, *, detected=None, on_event=None, cancel=None) -> Document:
    det = detected or detect(Path(path))
    if det.kind in OFFICE_KINDS:
        return real_convert(path, options, detected=det, on_event=on_event, cancel=cancel)
    emit = on_event or (lambda e: None)
    p = str(path)
    pages = int(os.environ.get("MINERU_TEST_PAGES", "2"))
    delay = float(os.environ.get("MINERU_TEST_TOKEN_DELAY", "0"))
    gil_ms = float(os.environ.get("MINERU_TEST_GIL_MS", "0"))
    deaf = os.environ.get("MINERU_TEST_DEAF") == "1"  # a reader that never looks at cancel
    emit(je.FileStarted(p, det.kind))
    doc = Document(backend="vlm")
    for n in range(pages):
        emit(je.PageStarted(p, n, pages))
        emit(je.EngineStage(p, n, "vision", 0.25, 1024))
        emit(je.EngineStage(p, n, "prefill", 0.05, 1100))
        infos = tuple(je.BlockInfo(i, t, box, source="text_layer" if i == 2 else "model")
                      for i, (t, box, _) in enumerate(BLOCKS))
        emit(je.LayoutDone(p, n, infos))
        blocks = []
        for i, (kind, _box, template) in enumerate(BLOCKS):
            text = template.format(n=n + 1)
            emit(je.BlockStarted(p, n, i, len(BLOCKS), kind))
            done = ""
            for k, word in enumerate(text.split(" ")):
                if cancel is not None and cancel.is_set() and not deaf:
                    raise ConvertError("cancelled")
                hold_gil(gil_ms)
                if delay:
                    time.sleep(delay)
                piece = word if k == 0 else " " + word
                done += piece
                emit(je.BlockTokens(p, n, i, piece, k + 1, 20.0 + k))
            emit(je.BlockDone(p, n, i, kind, done, infos[i].source, "stop"))
            spans = [text_span(done)]
            blocks.append(title_block(spans, 1) if kind == "title" else text_block(spans))
        page = Page(n, blocks)
        doc.pages.append(page)
        md = f"# Scripted page {n + 1}\n\nThe quick brown fox jumps over the lazy dog\n\n" \
             f"Second paragraph of page {n + 1}\n"
        emit(je.PageDone(p, n, pages, md, 0.5))
    emit(je.FileDone(p, det.kind, pages, 0.5 * pages))
    return doc


# A page layout MinerU2.5 could answer (0-1000 coordinates), and the texts of its blocks.
LAYOUT_ANSWER = ("<|box_start|>100 40 900 90<|box_end|><|ref_start|>title<|ref_end|><|rotate_up|>\n"
                 "<|box_start|>100 120 900 400<|box_end|><|ref_start|>text<|ref_end|><|rotate_up|>\n"
                 "<|box_start|>100 450 900 700<|box_end|><|ref_start|>table<|ref_end|>"
                 "<|rotate_up|>\n")


def read_with_script(path, options=None, *, detected=None, on_event=None, cancel=None):
    """The real page reader (real events, real ``_model.json``), its engine scripted: the
    converter for tests that restart the app on a real output set. Office files: the real
    reader too."""
    from dataclasses import replace

    from testkit.scripted_engine import ScriptedEngine

    from mineru_tui.convert import ConvertOptions

    det = detected or detect(Path(path))
    if det.kind not in OFFICE_KINDS:
        engine = ScriptedEngine({"\nLayout Detection:": [LAYOUT_ANSWER],
                                 "\nText Recognition:": ["Scripted title", "Scripted paragraph."],
                                 "\nTable Recognition:": ["<fcel>a<fcel>b<nl>"]})
        options = replace(options or ConvertOptions(), engine=engine, effort="high")
    return real_convert(path, options, detected=det, on_event=on_event, cancel=cancel)
