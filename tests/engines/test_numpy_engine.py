"""engines/numpy/engine.py (the host's engine, qwen2vl/engine.py, over numpy's passes): the numpy Model
behind the Engine interface (tiny checkpoint)."""

import threading

import numpy as np
import pytest
from PIL import Image

from mineru_tui.engines import EngineError, EngineOptions, LazyEngine, Request, open_engine
from mineru_tui.engines.events import Done, SequenceDone, StageEvent, TokenEvent
from mineru_tui.engines.params import SamplingParams
from mineru_tui.reader.tasks import TASKS
from tests import tiny_checkpoint as tc


@pytest.fixture(scope="module")
def engine():
    return open_engine(EngineOptions(engine="numpy", model=str(tc.TINY_DIR)))


@pytest.fixture(scope="module")
def image():
    return Image.fromarray(dict(np.load(tc.REF_NPZ))["pre.image_rgb_u8"])


def test_requests_keep_their_knobs_limits_and_indices(engine, image):
    reqs = [Request(image, TASKS["text"].prompt, TASKS["text"].sampling, 6),
            Request(Image.new("RGB", (600, 2)), TASKS["text"].prompt, SamplingParams(), 5),  # too thin to read
            Request(image.crop((0, 0, 90, 60)), TASKS["table"].prompt, SamplingParams(3), 4)]
    events = list(engine.stream(reqs))
    done = events[-1]
    assert isinstance(done, Done) and len(done.results) == 3
    bad = done.results[1]
    assert bad.finish_reason == "error" and "too small" in bad.error and "\n" not in bad.error
    for i in (0, 2):
        toks = [e for e in events if isinstance(e, TokenEvent) and e.seq_index == i]
        assert [e.token_id for e in toks] == done.results[i].token_ids
    assert {e.seq_index for e in events if isinstance(e, SequenceDone)} == {0, 1, 2}
    assert any(isinstance(e, StageEvent) and e.stage == "vision" and e.done for e in events)
    # each row equals the model alone with the same knobs and limit
    m = engine.model
    for i, (r, n) in enumerate(((reqs[0], 6), (reqs[2], 4))):
        alone = m.generate(r.image, r.prompt, max_new_tokens=n, **vars(r.sampling))
        assert done.results[0 if i == 0 else 2].token_ids == alone.token_ids


def test_cancel_between_tokens(engine, image):
    cancel = threading.Event()
    out = []
    for ev in engine.stream([Request(image, TASKS["text"].prompt, SamplingParams(), 50)], cancel=cancel):
        out.append(ev)
        if isinstance(ev, TokenEvent) and ev.n_generated == 2:
            cancel.set()
    assert out[-1].results[0].finish_reason == "cancelled" and len(out[-1].results[0].token_ids) == 2


def test_model_errors_are_engine_errors(tmp_path, monkeypatch):
    with pytest.raises(EngineError) as e:
        open_engine(EngineOptions(engine="numpy", model=str(tmp_path / "nowhere")))
    assert "\n" not in str(e.value)
    monkeypatch.setenv("MINERU_TUI_MODEL", str(tc.TINY_DIR))
    lazy = LazyEngine(EngineOptions(engine="numpy"))
    assert not lazy.opened and lazy.max_batch == 8 and lazy.opened
    assert lazy.model_id == str(tc.TINY_DIR)
    lazy.close()
