"""MinerU2.5's task prompts and their decoding knobs (``mineru-vl-protocol.md`` §1.1, §2.1).

A recognition call sends one crop with the prompt of its block type; the layout call sends the
whole page with the layout prompt. Every prompt starts with a newline (it follows
``<|vision_end|>`` directly in the chat template).
"""

from __future__ import annotations

from dataclasses import dataclass

from mineru_tui.engines.defaults import TASK_NAMES
from mineru_tui.engines.numpy.sampling import SamplingParams


@dataclass(frozen=True)
class Task:
    """One MinerU task: the user prompt and the sampling knobs MinerU uses with it."""

    prompt: str
    sampling: SamplingParams


# MinerU's per-key overrides; temperature 0 / top_k 1 everywhere, i.e. greedy.
TASKS: dict[str, Task] = {
    "layout": Task("\nLayout Detection:", SamplingParams(100, 0.0, 0.0, 1.0)),
    "text": Task("\nText Recognition:", SamplingParams(100, 1.0, 0.05, 1.0)),
    "table": Task("\nTable Recognition:", SamplingParams(100, 1.0, 0.005, 1.0)),
    "formula": Task("\nFormula Recognition:", SamplingParams(100, 1.0, 0.05, 1.0)),
    "image": Task("\nImage Analysis:", SamplingParams(100, 1.0, 0.05, 1.0)),
}

assert set(TASKS) == set(TASK_NAMES), "reader/defaults.py TASK_NAMES must list the TASKS keys"
