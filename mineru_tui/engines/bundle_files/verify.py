"""``mineru-tui bundle verify``: the bundle against the numpy engine on the same request.

1. The numpy engine (fp32, exact against transformers) generates greedily; the logits of every
   step are recorded.
2. The bundle runs the same request *teacher-forced*: its logits are recorded, but the host loop
   is handed the reference logits, so it feeds the reference's tokens and both runs see the
   same context at every step (a single early difference would otherwise change everything
   after it).

Reported: the first step whose greedy (argmax) token differs, the share of steps whose greedy
tokens agree, the largest absolute logit difference. Decoding knobs are neutral (no n-gram ban,
no penalties) so that greedy = argmax of the raw logits. Pass: an fp16 bundle must agree on every
token; a quantised one must reach :data:`AGREEMENT_FLOOR` (measured, docs/coreml.md).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

# Least share of equal greedy tokens (teacher-forced) a quantised bundle must keep. Measured on
# the tiny random checkpoint (tests/engines/coreml/test_bundles_verify.py) and the full-size random one
# (docs/coreml.md); random weights have tiny top-1 margins, so a real checkpoint does better.
AGREEMENT_FLOOR = {"fp16": 1.0, "int8": 0.6, "int4": 0.2}
DEFAULT_PROMPT = "\nText Recognition:"
DEFAULT_TOKENS = 16


def builtin_page(width: int = 224, height: int = 224):
    """The built-in request image: a small page with a heading, text lines and a rule (PIL)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(img)
    d.text((12, 10), "MinerU 2.5 test page", fill="black")
    for i, line in enumerate(["Core ML bundle check:", "x = (a + b) / 2", "Table 1. Results", "| 1 | 2 | 3 |"]):
        d.text((12, 40 + 22 * i), line, fill=(20, 20, 20))
    d.line((12, 150, width - 12, 150), fill="black", width=2)
    d.rectangle((12, 165, 90, 210), outline="black")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


class _Recorder:
    """Wraps a TextForward: records the logits of every call that returns some."""

    def __init__(self, inner):
        self.inner = inner
        self.logits: list[np.ndarray] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def step(self, *args, **kwargs):
        out = self.inner.step(*args, **kwargs)
        if out is not None:
            self.logits.append(np.array(out[:, -1], np.float32))
        return out


class _Forced(_Recorder):
    """Records the bundle's logits, returns the reference's (teacher forcing through the host loop)."""

    def __init__(self, inner, reference: list[np.ndarray]):
        super().__init__(inner)
        self.reference = reference

    def step(self, *args, **kwargs):
        out = self.inner.step(*args, **kwargs)
        if out is None:
            return None
        k = len(self.logits)
        self.logits.append(np.array(out[:, -1], np.float32))
        if k >= len(self.reference):  # the reference stopped; keep the bundle's own
            return out
        return self.reference[k][:, None, :]


@dataclass
class VerifyReport:
    weights: str
    steps: int
    equal: int
    first_diff: int | None  # step index (0 = the token after the prompt), None when all agree
    max_logit_diff: float
    detail: str = ""
    tokens: list[int] = field(default_factory=list)

    @property
    def agreement(self) -> float:
        return self.equal / self.steps if self.steps else 0.0

    @property
    def floor(self) -> float:
        return AGREEMENT_FLOOR.get(self.weights, 1.0)

    @property
    def passed(self) -> bool:
        return self.steps > 0 and self.agreement >= self.floor

    def lines(self) -> list[str]:
        fd = "none" if self.first_diff is None else f"step {self.first_diff} of {self.steps} {self.detail}"
        need = "every greedy token" if self.floor >= 1.0 else f"at least {self.floor:.0%} equal greedy tokens"
        return [
            f"first differing token: {fd}",
            f"equal greedy tokens: {self.equal}/{self.steps} ({self.agreement:.1%})",
            f"largest logit difference: {self.max_logit_diff:.4g}",
            f"result: {'PASS' if self.passed else 'FAIL'} ({self.weights} bundle needs {need})",
        ]


def compare(ref: list[np.ndarray], got: list[np.ndarray], weights: str, decode=None) -> VerifyReport:
    """Metrics over the steps both runs produced (logits [1, V] per step)."""
    n = min(len(ref), len(got))
    equal, first, max_diff, detail = 0, None, 0.0, ""
    tokens = []
    for k in range(n):
        r, g = ref[k][0], got[k][0]
        max_diff = max(max_diff, float(np.max(np.abs(r - g))))
        tr, tg = int(np.argmax(r)), int(np.argmax(g))
        tokens.append(tr)
        if tr == tg:
            equal += 1
        elif first is None:
            first = k
            top2 = np.sort(r)[-2:]
            names = (f" {decode([tr])!r} / {decode([tg])!r}") if decode else ""
            detail = f"(numpy {tr}, bundle {tg}{names}; numpy top-2 margin {top2[1] - top2[0]:.4g})"
    return VerifyReport(weights, n, equal, first, max_diff, detail, tokens)


def teacher_forced(reference, bundled, weights: str, label: str, *, image, prompt: str,
                   max_new_tokens: int, progress=None) -> VerifyReport:
    """The numpy ``reference`` generates; ``bundled`` (a Core ML or OpenVINO model) is then fed
    the reference's tokens on the same request, and their logits are compared step by step."""
    say = progress or (lambda s: None)
    image = builtin_page() if image is None else image
    knobs = dict(max_new_tokens=max_new_tokens, no_repeat_ngram_size=0)
    rec = _Recorder(reference.text)
    reference.text = rec
    say("numpy engine: generating")
    res = reference.generate(image, prompt, **knobs)
    say(f"numpy engine: {len(res.token_ids)} tokens ({res.finish_reason})")
    forced = _Forced(bundled.text, rec.logits)
    bundled.text = forced
    say(f"{label}: same request, teacher-forced")
    bundled.generate(image, prompt, **knobs)
    decode = getattr(reference.tokenizer, "decode", None)
    return compare(rec.logits, forced.logits, weights, decode)
