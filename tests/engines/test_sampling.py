"""sampling.py: each knob changes greedy output on crafted logits; generated tokens only."""

import numpy as np
import pytest

from mineru_tui.engines.qwen2vl.sampling import LogitsProcessor, SamplingParams, greedy

V = 6


def _proc(**kw):
    p = LogitsProcessor(SamplingParams(**{"no_repeat_ngram_size": 0, **kw}), batch=2, vocab=V)
    return p


def test_defaults_are_a_no_op_below_n():
    p = LogitsProcessor(SamplingParams(), 1, V)
    p.append(np.array([3]))
    logits = np.arange(V, dtype=np.float32)[None]
    np.testing.assert_array_equal(p(logits), logits)


def test_repetition_penalty_hf_rule():
    p = _proc(repetition_penalty=2.0)
    p.append(np.array([1, 4]))
    logits = np.array([[0.0, 3.0, 2.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, -1.0, -1.2]], np.float32)
    out = p(logits)
    assert out[0, 1] == 1.5 and out[1, 4] == -2.0  # positive divided, negative multiplied
    assert greedy(logits).tolist() == [1, 0] and greedy(out).tolist() == [2, 0]
    np.testing.assert_array_equal(np.delete(out[0], 1), np.delete(logits[0], 1))


def test_frequency_and_presence_penalties_openai_rule():
    p = _proc(frequency_penalty=0.5, presence_penalty=0.25)
    for t in ([2, 0], [2, 0], [5, 0]):
        p.append(np.array(t))
    logits = np.zeros((2, V), np.float32)
    logits[0, 2] = 1.0  # seen twice: 1 - 2*0.5 - 0.25 = -0.25
    out = p(logits)
    assert out[0, 2] == pytest.approx(-0.25) and out[0, 5] == pytest.approx(-0.75) and out[1, 0] == pytest.approx(-1.75)
    assert greedy(logits)[0] == 2 and greedy(out)[0] == 0
    only_presence = _proc(presence_penalty=1.0)
    only_presence.append(np.array([2, 2]))
    assert only_presence(logits)[0, 2] == 0.0


def test_no_repeat_ngram_hf_rule():
    p = LogitsProcessor(SamplingParams(no_repeat_ngram_size=3), 1, V)
    for t in [1, 2, 3, 1, 2]:  # 3-gram (1, 2, 3) seen; last two are (1, 2) -> 3 banned
        p.append(np.array([t]))
    logits = np.zeros((1, V), np.float32)
    logits[0, 3] = 5.0
    out = p(logits)
    assert out[0, 3] == -np.inf and np.isfinite(np.delete(out[0], 3)).all()
    assert greedy(logits)[0] == 3 and greedy(out)[0] != 3
    assert p.banned_ngram_tokens(0) == [3]


def test_no_repeat_ngram_size_one_bans_every_generated_token():
    p = LogitsProcessor(SamplingParams(no_repeat_ngram_size=1), 1, V)
    p.append(np.array([4]))
    p.append(np.array([0]))
    assert sorted(p.banned_ngram_tokens(0)) == [0, 4]


def test_state_follows_batch_compaction():
    p = _proc(frequency_penalty=1.0)
    p.append(np.array([1, 2]))
    p.keep([1])
    out = p(np.zeros((1, V), np.float32))
    assert out[0, 2] == -1.0 and out[0, 1] == 0.0
    assert p.generated == [[2]]


def test_invalid_repetition_penalty():
    with pytest.raises(ValueError):
        LogitsProcessor(SamplingParams(repetition_penalty=0.0), 1, V)
