"""The numpy model: the host's :class:`~mineru_tui.engines.qwen2vl.model.Model` with numpy's
forward passes (``vision.py``, ``decoder.py``) — the exact reference.

    from mineru_tui.engines.numpy import load_model
    model = load_model()                      # or load_model("path/to/checkpoint" | "org/repo")
    result = model.generate("page.png", "\\nText Recognition:", max_new_tokens=512)
"""

from __future__ import annotations

import os
from collections.abc import Callable

from mineru_tui.engines.qwen2vl.checkpoint import DEFAULT_MODEL, Checkpoint, load_checkpoint, resolve_model
from mineru_tui.engines.qwen2vl.kv_cache import TextForward
from mineru_tui.engines.qwen2vl.model import Model as HostModel
from mineru_tui.engines.qwen2vl.tokenizer import Tokenizer

from .decoder import NumpyTextForward
from .vision import VisionTower


class Model(HostModel):
    """The host's model; a forward pass not given is numpy's (tests swap one for a recorder)."""

    def __init__(self, checkpoint: Checkpoint, tokenizer: Tokenizer, vision: Callable | None = None,
                 text: TextForward | None = None):
        vision = vision if vision is not None else VisionTower(checkpoint.weights, checkpoint.config.vision)
        text = text if text is not None else NumpyTextForward(checkpoint.weights, checkpoint.config.text)
        super().__init__(checkpoint, tokenizer, vision, text)


def load_model(path_or_repo_id: str | os.PathLike[str] = DEFAULT_MODEL) -> Model:
    """Load a checkpoint directory or Hugging Face repo id (resolved via its cache).

    Raises ModelError (one line) when the model cannot be found or is not a usable checkpoint.
    """
    model_dir = resolve_model(path_or_repo_id)
    checkpoint = load_checkpoint(model_dir)
    tokenizer = Tokenizer.from_dir(model_dir)
    return Model(checkpoint, tokenizer)
