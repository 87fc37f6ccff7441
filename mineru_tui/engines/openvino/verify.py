"""``mineru-tui bundle verify`` for an OpenVINO bundle: the same teacher-forced comparison with
the numpy engine as for Core ML (``engines/bundle_files/verify.py``): first differing greedy token, share of
equal greedy tokens, largest logit difference. An f32 bundle must agree on every token; an int8
one (bf16 activations where the CPU has them) on at least the int8 floor.
"""

from __future__ import annotations

from collections.abc import Callable

from mineru_tui.engines.bundle_files.verify import DEFAULT_PROMPT, DEFAULT_TOKENS, VerifyReport, teacher_forced
from .bundle import check_openvino_bundle, open_openvino_model
from mineru_tui.engines.qwen2vl.model import Model

from .runtime import WEIGHT_FORMATS, OVTextForward


def verify_openvino_bundle(bundle, model, *, reference: Callable[[], Model], image=None,
                           prompt: str = DEFAULT_PROMPT, max_new_tokens: int = DEFAULT_TOKENS,
                           device: str = "CPU", progress=None) -> VerifyReport:
    """Run the numpy engine (``reference()`` loads it, once the bundle passed its checks) and the
    bundle on one request and compare (teacher-forced)."""
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint, resolve_model

    man = check_openvino_bundle(bundle, load_checkpoint(resolve_model(model)), full=True)
    precision = next(p for p, (dec, _) in WEIGHT_FORMATS.items() if dec == man.weights)
    bundled = open_openvino_model(model, bundle=bundle, precision=precision, device=device)
    assert isinstance(bundled.text, OVTextForward)
    return teacher_forced(reference(), bundled, man.weights, "openvino bundle", image=image,
                          prompt=prompt, max_new_tokens=max_new_tokens, progress=progress)
