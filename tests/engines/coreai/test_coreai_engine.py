"""The Core AI engine on the real local runtime (coreai-core's Linux wheel): a tiny bundle built
from the checkpoint with ``coreai.authoring``, run through the one engine interface and the
page reader, against the numpy engine. In f32 the tokens are the numpy engine's."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("coreai.runtime")

from mineru_tui.engines import EngineOptions, open_engine  # noqa: E402
from mineru_tui.engines.base import Request  # noqa: E402
from mineru_tui.engines.events import Done, SequenceDone  # noqa: E402
from mineru_tui.engines.params import SamplingParams  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402
from tests.engines.coreai.coreai_bundles import CONTEXT, tiny_coreai_bundle, use_session_cache  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def _png(w: int, h: int, seed: int) -> bytes:
    from PIL import Image

    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(buf, format="PNG")
    return buf.getvalue()


# the oracle image (72 patches → bucket 128), a 56² crop (16 → bucket 64, heavy padding), a
# 224×112 one (128: a bucket exactly), a 196×140 one (140 → bucket 256), text only
REQUESTS = [
    (str(tc.REF_PNG), "\nText Recognition:"),
    (_png(56, 56, 1), "\nFormula Recognition:"),
    (_png(224, 112, 2), "\nTable Recognition:"),
    (_png(196, 140, 3), "\nLayout Detection:"),
    (None, "hello world"),
]
GREEDY = SamplingParams(no_repeat_ngram_size=0)


def _run(engine, n=10):
    reqs = [Request(img, prompt, GREEDY, max_new_tokens=n) for img, prompt in REQUESTS]
    events = list(engine.stream(reqs))
    assert isinstance(events[-1], Done)
    done = {e.seq_index: e.result for e in events if isinstance(e, SequenceDone)}
    return [(done[i].token_ids, done[i].text, done[i].finish_reason) for i in range(len(reqs))]


@pytest.fixture(scope="module")
def numpy_engine():
    eng = open_engine(EngineOptions(engine="numpy", model=str(tc.TINY_DIR)))
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def page_engine():
    use_session_cache()
    eng = open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR),
                                    extra=(("bundle", str(tiny_coreai_bundle(pages=True))),)))
    yield eng
    eng.close()


@pytest.fixture(scope="module")
def coreai_engine():
    use_session_cache()
    eng = open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR),
                                    extra=(("bundle", str(tiny_coreai_bundle())),)))
    yield eng
    eng.close()


def test_f32_tokens_equal_the_numpy_engines_through_the_engine_interface(numpy_engine, coreai_engine):
    assert coreai_engine.name == "coreai"
    ref = _run(numpy_engine)
    got = _run(coreai_engine)
    assert all(len(r[0]) == 10 for r in ref)  # every request really generated
    assert got == ref


def test_continuous_batching_over_per_sequence_states(numpy_engine):
    """Four rows at once, rows refilled as others end (different lengths): each row its own state."""
    use_session_cache()
    eng = open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR),
                                    extra=(("bundle", str(tiny_coreai_bundle())), ("max_batch", "3"))))
    try:
        reqs = [Request(img, p, GREEDY, max_new_tokens=4 + 2 * i) for i, (img, p) in enumerate(REQUESTS)]
        want = {e.seq_index: e.result.token_ids for e in numpy_engine.stream(reqs) if isinstance(e, SequenceDone)}
        got = {e.seq_index: e.result.token_ids for e in eng.stream(reqs) if isinstance(e, SequenceDone)}
    finally:
        eng.close()
    assert got == want and [len(want[i]) for i in range(5)] == [4, 6, 8, 10, 12]


def test_generation_stops_at_the_bundles_fixed_context(coreai_engine):
    """The cache has CONTEXT slots and never grows: a long answer ends there, not in an error."""
    ev = list(coreai_engine.stream([Request(None, "hello", GREEDY, max_new_tokens=4 * CONTEXT)]))
    res = [e.result for e in ev if isinstance(e, SequenceDone)][0]
    assert res.finish_reason == "length" and 0 < len(res.token_ids) < CONTEXT


def test_the_page_reader_gets_the_numpy_engines_document(tmp_path, numpy_engine, page_engine):
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.document import to_markdown
    from mineru_tui.events import BlockDone
    from tests.reader.test_pages_numpy import LayoutThenModel
    from testkit.scripted_engine import layout_line

    layout = (layout_line(80, 60, 920, 200, "title") + layout_line(80, 220, 920, 500, "text")
              + layout_line(80, 520, 920, 700, "table") + layout_line(80, 720, 920, 760, "equation"))
    page = _page(tmp_path / "p.png")
    docs, blocks = [], []
    for engine in (numpy_engine, page_engine):
        events = []
        doc = convert(page, ConvertOptions(engine=LayoutThenModel(engine, layout), extra={"max_new_tokens": 6}),
                      on_event=events.append)
        docs.append(to_markdown(doc))
        blocks.append([(e.finish_reason, e.source) for e in events if isinstance(e, BlockDone)])
    assert len(blocks[0]) == 4 and blocks[0] == blocks[1]
    assert docs[0].strip() and docs[0] == docs[1]
    assert page_engine.model.vision.fallback_images == 0  # the layout page ran in the bundle's 5476 bucket


def _page(path):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (620, 800), "white")
    d = ImageDraw.Draw(img)
    for y in range(60, 760, 24):
        d.line((60, y, 560, y), fill="black", width=3)
    img.save(path)
    return path


def _parse(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_MAX_NEW_TOKENS="4", HF_HUB_OFFLINE="1",
               MINERU_TUI_CACHE=str(cwd / "cache"))
    env.pop("MINERU_TUI_BUNDLE", None)
    return subprocess.run([sys.executable, "-m", "mineru_tui", "parse", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_parse_with_the_coreai_engine_writes_what_numpy_writes(tmp_path):
    png = _page(tmp_path / "scan.png")
    outs = {}
    for name, extra in (("numpy", ()), ("coreai", ("--bundle", tiny_coreai_bundle(pages=True)))):
        r = _parse(png, "-o", tmp_path / name, "--engine", name, "--model", tc.TINY_DIR, *extra, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "" and "Traceback" not in r.stderr
        assert "ODIE" not in r.stderr  # the runtime's load chatter stays off the screen
        outs[name] = tmp_path / name / "scan"
    model = json.loads((outs["coreai"] / "scan_model.json").read_text())
    assert model["engine"] == "coreai"
    assert all(len(p["layout"]["answer"]) > 0 for p in model["pages"])  # the model really answered
    for suffix in ("scan.md", "scan_content_list.json"):
        assert (outs["coreai"] / suffix).read_text() == (outs["numpy"] / suffix).read_text()
    want = json.loads((outs["numpy"] / "scan_model.json").read_text())
    assert [p["layout"] for p in model["pages"]] == [p["layout"] for p in want["pages"]]


def test_engine_option_errors_are_one_line(tmp_path):
    from mineru_tui.engines import EngineError

    cases = (((("compute", "tpu"),), "unknown compute preference"),
             ((("max_batch", "x"),), "whole number"),
             ((("bundle", str(tmp_path / "none")),), "no Core AI bundle at"))
    for extra, words in cases:
        with pytest.raises(EngineError, match=words) as e:
            open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR), extra=extra))
        assert "\n" not in str(e.value)


def test_serve_runs_the_coreai_engine(monkeypatch):
    import httpx
    from mineru_vl_utils.mineru_client import DEFAULT_SAMPLING_PARAMS
    from mineru_vl_utils.vlm_client.http_client import HttpVlmClient

    from mineru_tui.engines.numpy import load_model
    from mineru_tui.reader.tasks import TASKS
    from tests.server_helpers import ServeProcess

    use_session_cache()
    monkeypatch.setenv("MINERU_TUI_BUNDLE", str(tiny_coreai_bundle()))
    server = ServeProcess(max_tokens=8, extra=("--engine", "coreai"))
    try:
        assert httpx.get(server.url + "/health").json()["engine"] == "coreai"
        client = HttpVlmClient(server_url=server.url, allow_truncated_content=True, use_tqdm=False)
        text = client.predict(str(tc.REF_PNG), "\nTable Recognition:", DEFAULT_SAMPLING_PARAMS["table"])
    finally:
        server.stop()
    s = TASKS["table"].sampling
    want = load_model(str(tc.TINY_DIR)).generate(
        str(tc.REF_PNG), "\nTable Recognition:", max_new_tokens=8, no_repeat_ngram_size=s.no_repeat_ngram_size,
        presence_penalty=s.presence_penalty, frequency_penalty=s.frequency_penalty,
        repetition_penalty=s.repetition_penalty)
    assert text and text == want.text  # f32: the numpy engine's answer, through the server
