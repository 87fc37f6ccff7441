"""``mineru-tui bundle verify`` for Core AI bundles: the bundle on the local runtime (Linux) or
the OS framework (macOS 27) against the numpy engine, teacher-forced on the same request
(``engines/bundle_files/verify.py``: first differing step, share of equal greedy tokens, largest
logit difference). A float bundle must agree on every token, an int8 / int4 one reach its floor."""

from __future__ import annotations

from collections.abc import Callable

from mineru_tui.engines.bundle_files.verify import DEFAULT_PROMPT, DEFAULT_TOKENS, VerifyReport, teacher_forced
from .manifest import read_coreai_manifest
from .model import open_coreai_model


def verify_coreai_bundle(bundle, model, *, reference: Callable[[str], object], image=None,
                         prompt: str = DEFAULT_PROMPT, max_new_tokens: int = DEFAULT_TOKENS,
                         progress=None) -> VerifyReport:
    """``reference(model)`` loads the numpy engine's model (through the engine table) once the
    bundle passed its checks; ``model`` None: the checkpoint the bundle was built from."""
    man = read_coreai_manifest(bundle)
    spec = model or man.model
    bundled = open_coreai_model(bundle, spec, vision_fallback=None, full_check=True)
    return teacher_forced(reference(spec), bundled, man.weights, "Core AI bundle",
                          image=image, prompt=prompt, max_new_tokens=max_new_tokens, progress=progress)
