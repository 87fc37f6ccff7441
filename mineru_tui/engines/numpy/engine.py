"""The numpy engine: the host's engine (``qwen2vl/engine.py``) over numpy's forward passes, the
exact reference."""

from __future__ import annotations

from mineru_tui.console import one_line
from mineru_tui.engines.base import EngineError, EngineOptions
from mineru_tui.engines.qwen2vl.engine import DEFAULT_MAX_BATCH, HostEngine, model_spec


class NumpyEngine(HostEngine):
    """Runs requests on a loaded numpy :class:`~mineru_tui.engines.numpy.model.Model`."""

    name = "numpy"


def open_engine(options: EngineOptions) -> NumpyEngine:
    """Load the checkpoint the options name (EngineError with the model's one-line message)."""
    from mineru_tui.engines.errors import ModelError
    from mineru_tui.engines.numpy import load_model

    spec = model_spec(options)
    extra = dict(options.extra)
    try:
        max_batch = int(extra.get("max_batch", DEFAULT_MAX_BATCH))
    except ValueError:
        raise EngineError(f"max_batch must be a whole number, got {extra['max_batch']!r}") from None
    try:
        model = load_model(spec)
    except ModelError as e:
        raise EngineError(one_line(str(e))) from None
    return NumpyEngine(model, spec, max_batch)
