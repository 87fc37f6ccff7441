"""The numpy engine: MinerU2.5 (Qwen2-VL) inference in numpy, the exact reference.

    from mineru_tui.engines.numpy import load_model
    model = load_model()                      # or load_model("path/to/checkpoint" | "org/repo")
    result = model.generate("page.png", "\\nText Recognition:", max_new_tokens=512)

See ``docs/engine.md`` for the batch and streaming forms. Importing this package is cheap: the
model code (and tokenizers / Pillow) load on first use of ``load_model`` / ``Model``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mineru_tui.engines.errors import ImageError, ModelError, PromptError
from mineru_tui.engines.events import Cancelled, Done, Event, GenerationResult, SequenceDone, StageEvent, Timing, TokenEvent

if TYPE_CHECKING:
    from .model import Model, load_model

from mineru_tui.engines.defaults import DEFAULT_MODEL

__all__ = [
    "DEFAULT_MODEL",
    "Cancelled",
    "Done",
    "Event",
    "GenerationResult",
    "ImageError",
    "Model",
    "ModelError",
    "PromptError",
    "SequenceDone",
    "StageEvent",
    "Timing",
    "TokenEvent",
    "load_model",
]


def __getattr__(name: str) -> Any:
    if name in ("Model", "load_model"):
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
