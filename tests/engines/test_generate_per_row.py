"""Per-row sampling knobs and limits: a mixed batch gives each row exactly the tokens it gets
alone with its own knobs through the single-params path (tiny fixture checkpoint)."""

import numpy as np
import pytest
from PIL import Image

from mineru_tui.engines.numpy import load_model
from mineru_tui.engines.qwen2vl.sampling import LogitsProcessor, SamplingParams
from mineru_tui.reader.tasks import TASKS
from tests import tiny_checkpoint as tc


@pytest.fixture(scope="module")
def model():
    return load_model(tc.TINY_DIR)


@pytest.fixture(scope="module")
def image():
    return Image.fromarray(dict(np.load(tc.REF_NPZ))["pre.image_rgb_u8"])


def _alone(model, img, prompt, params, n):
    return model.generate(img, prompt, max_new_tokens=n, stop_ids=[],
                          no_repeat_ngram_size=params.no_repeat_ngram_size,
                          presence_penalty=params.presence_penalty,
                          frequency_penalty=params.frequency_penalty,
                          repetition_penalty=params.repetition_penalty).token_ids


def test_mixed_knobs_and_limits_match_each_row_alone(model, image):
    # knobs strong enough to change the tiny model's greedy tokens (it repeats a lot)
    knobs = [SamplingParams(100, 0.0, 0.0, 1.0), SamplingParams(3, 0.0, 0.0, 1.0),
             SamplingParams(100, 2.0, 0.5, 1.0), SamplingParams(100, 0.0, 0.0, 1.7)]
    items = [(image, "\nText Recognition:"), (image.crop((0, 0, 200, 56)), "\nTable Recognition:"),
             (image.crop((0, 0, 90, 60)), "\nFormula Recognition:"), (image, "\nLayout Detection:")]
    limits = [14, 9, 16, 5]
    alone = [_alone(model, img, p, k, n) for (img, p), k, n in zip(items, knobs, limits)]
    plain = [_alone(model, img, p, knobs[0], n) for (img, p), n in zip(items, limits)]
    assert all(a != b for a, b in zip(alone[1:], plain[1:]))  # every row's own knob bites
    batch = model.generate_batch(items, sampling=knobs, max_new_tokens=limits, stop_ids=[])
    assert [r.token_ids for r in batch] == alone
    assert [len(r.token_ids) for r in batch] == limits
    assert all(r.finish_reason == "length" for r in batch)


def test_one_params_for_all_rows_is_unchanged(model, image):
    items = [(image, "\nText Recognition:"), (image.crop((0, 0, 90, 60)), "\nTable Recognition:")]
    table = TASKS["table"].sampling
    same = model.generate_batch(items, sampling=[table, table], max_new_tokens=8, stop_ids=[])
    old = model.generate_batch(items, max_new_tokens=8, stop_ids=[], presence_penalty=table.presence_penalty,
                               frequency_penalty=table.frequency_penalty)
    assert [r.token_ids for r in same] == [r.token_ids for r in old]


def test_processor_rows_equal_separate_processors():
    rng = np.random.default_rng(0)
    knobs = [SamplingParams(2, 0.0, 0.0, 1.0), SamplingParams(100, 1.0, 0.05, 1.0),
             SamplingParams(0, 0.0, 0.3, 1.3)]
    mixed = LogitsProcessor(knobs, 3, 7)
    alone = [LogitsProcessor(k, 1, 7) for k in knobs]
    for _ in range(6):
        logits = rng.normal(size=(3, 7)).astype(np.float32)
        out = mixed(logits)
        for b in range(3):
            np.testing.assert_array_equal(out[b], alone[b](logits[b:b + 1])[0])
        toks = rng.integers(0, 7, size=3)
        mixed.append(toks)
        for b in range(3):
            alone[b].append(toks[b:b + 1])
    mixed.keep([2, 0])
    logits = rng.normal(size=(2, 7)).astype(np.float32)
    out = mixed(logits)
    np.testing.assert_array_equal(out[0], alone[2](logits[:1])[0])
    np.testing.assert_array_equal(out[1], alone[0](logits[1:])[0])


def test_bad_per_row_arguments(model, image):
    with pytest.raises(ValueError):
        LogitsProcessor([SamplingParams()], 2, 5)
    with pytest.raises(ValueError):
        model.generate_batch([(image, "\nText Recognition:")], max_new_tokens=[3, 4])
    with pytest.raises(ValueError):
        model.generate_batch([(image, "\nText Recognition:")], max_new_tokens=[0])
