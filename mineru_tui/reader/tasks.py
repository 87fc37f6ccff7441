"""MinerU2.5's tasks for ``mineru-tui generate``: each task's prompt and decoding knobs.

They are the page reader's own (:mod:`.protocol`, i.e. mineru-vl-utils' ``DEFAULT_PROMPTS`` and
``DEFAULT_SAMPLING_PARAMS``), looked up under the library's key for the task, so ``generate``
sends a crop exactly as ``parse`` would.
"""

from __future__ import annotations

from dataclasses import dataclass

from mineru_tui.engines.defaults import TASK_NAMES
from mineru_tui.engines.params import SamplingParams

# our task name -> the library's prompt key
LIBRARY_KEYS = {"layout": "[layout]", "text": "[default]", "table": "table",
                "formula": "equation", "image": "image"}


@dataclass(frozen=True)
class Task:
    """One MinerU task: the user prompt and the sampling knobs MinerU uses with it."""

    prompt: str
    sampling: SamplingParams


def _from_library() -> dict[str, Task]:
    from mineru_tui.reader.protocol import helper, knobs

    h = helper(False)
    return {name: Task(h.prompts[key], knobs(h.sampling_params.get(key)))
            for name, key in LIBRARY_KEYS.items()}


TASKS: dict[str, Task] = _from_library()


assert set(LIBRARY_KEYS) == set(TASK_NAMES), "engines/defaults.py TASK_NAMES must list LIBRARY_KEYS"
