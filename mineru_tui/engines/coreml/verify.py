"""``mineru-tui bundle verify`` for a Core ML bundle: the bundle against the numpy engine on the
same request, teacher-forced (the comparison itself: ``engines/bundle_files/verify.py``)."""

from __future__ import annotations

from collections.abc import Callable

from mineru_tui.engines.bundle_files.verify import DEFAULT_PROMPT, DEFAULT_TOKENS, VerifyReport, teacher_forced

from mineru_tui.engines.qwen2vl.model import Model

from .runtime import BundleTextForward, open_bundle_model


def verify_bundle(bundle, model, *, reference: Callable[[], Model], image=None, prompt: str = DEFAULT_PROMPT,
                  max_new_tokens: int = DEFAULT_TOKENS, backend: str = "auto", progress=None) -> VerifyReport:
    """Run both engines on one request and compare (see the module docstring); ``reference()``
    loads the numpy engine's model once the bundle passed its checks."""
    bundled = open_bundle_model(bundle, model, backend=backend, vision_fallback=None, full_check=True)
    assert isinstance(bundled.text, BundleTextForward)
    return teacher_forced(reference(), bundled, _weights_of(bundle), "bundle", image=image,
                          prompt=prompt, max_new_tokens=max_new_tokens, progress=progress)


def _weights_of(bundle) -> str:
    from mineru_tui.engines.bundle_files.manifest import Manifest

    return Manifest.read(bundle).weights
