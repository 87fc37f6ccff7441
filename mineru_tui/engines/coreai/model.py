"""A Core AI bundle as a ``Model``: the shared host (preprocessing, prompt, M-RoPE, sampling,
streaming, cancel, continuous batching) with its two forward passes run by ``coreai.runtime``.

    model = open_coreai_model(bundle_dir, "path/or/repo")
    model.generate(image, "\\nText Recognition:")

The bundle keeps the Core ML bundle's contract, so the host side is the Core ML one
(``BundleVision`` / ``BundleTextForward``) over :class:`~.runner.CoreAIRunner`s.
"""

from __future__ import annotations

import os
from pathlib import Path

from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.coreml.runtime import BundleTextForward, BundleVision
from .manifest import check_coreai_bundle


def open_coreai_model(bundle: str | os.PathLike[str], model: str | None, *, preference: str = "default",
                      vision_fallback=None, full_check: bool = False):
    """A ``Model`` whose forward passes run in the Core AI ``bundle`` (checked against the
    checkpoint first; ``full_check`` also compares every file's sha256; ``vision_fallback`` as in
    :func:`mineru_tui.engines.coreml.runtime.open_bundle_model`)."""
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint, resolve_model
    from mineru_tui.engines.qwen2vl.model import Model
    from mineru_tui.engines.qwen2vl.tokenizer import Tokenizer
    from .runner import CoreAIRunner

    bundle = Path(bundle).expanduser()
    model_dir = resolve_model(model)
    checkpoint = load_checkpoint(model_dir)
    man = check_coreai_bundle(bundle, checkpoint, full=full_check)
    try:  # files that match the manifest can still be garbage (a tampered asset)
        vision_runner = CoreAIRunner(bundle / "vision.aimodel", man.functions.get("vision.aimodel"),
                                     preference=preference)
        text_runner = CoreAIRunner(bundle / "decoder.aimodel", ["prefill", "decode", "embed"], preference=preference)
    except (BundleError, KeyboardInterrupt, MemoryError):
        raise
    except Exception as e:  # noqa: BLE001 - the runtime raises RuntimeError with multi-line text
        why = " ".join(str(e).split())[:160] or type(e).__name__
        raise BundleError(f"{bundle}: a Core AI asset cannot be loaded ({type(e).__name__}: {why}); "
                          "rebuild the bundle") from None
    cfg = checkpoint.config
    fallback = vision_fallback(checkpoint) if vision_fallback is not None else None
    vision = BundleVision(vision_runner, man, cfg.vision, fallback)
    text = BundleTextForward(text_runner, man, cfg.text)
    return Model(checkpoint, Tokenizer.from_dir(model_dir), vision=vision, text=text)
