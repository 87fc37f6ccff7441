"""Full-size exactness check: numpy engine vs Hugging Face transformers on the same random weights.

Needs the checkpoint left by ``bench/engine.py --keep`` and a Python with torch + transformers
(e.g. a separate venv); runs one small page (120 image tokens) for 6 greedy steps through both and
prints the token ids and the max logit difference.

    .hfvenv/bin/python bench/full_size_check.py [--ckpt CKPT]

(``.hfvenv``: see ``bench/engine.py``; ``--ckpt`` defaults to ``mineru-tui-bench-ckpt`` in the
system temp folder, where ``bench/engine.py --keep`` leaves it.)
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from transformers import GenerationConfig, Qwen2VLForConditionalGeneration

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from engine import page_image  # noqa: E402
from mineru_tui.engines.numpy import load_model  # noqa: E402
from mineru_tui.engines.numpy.decoder import NumpyTextForward  # noqa: E402
from mineru_tui.engines.numpy.model import Model  # noqa: E402

PROMPT = "\nText Recognition:"


class RecordingForward(NumpyTextForward):
    """Keeps the logits of every step."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.logits: list[np.ndarray] = []

    def step(self, *a, **kw):
        out = super().step(*a, **kw)
        if out is not None:
            self.logits.append(out[:, -1].copy())
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-bench-ckpt")
    ap.add_argument("--steps", type=int, default=6)
    args = ap.parse_args()

    base = load_model(args.ckpt)
    rec = RecordingForward(base.checkpoint.weights, base.config.text)
    model = Model(base.checkpoint, base.tokenizer, text=rec)
    image = page_image(336, 280)
    req = model.prepare(image, PROMPT)
    t = time.perf_counter()
    ours = model.generate(image, PROMPT, max_new_tokens=args.steps, stop_ids=[])
    print(f"numpy: {time.perf_counter() - t:.1f} s, prompt {len(req.input_ids)} tokens, ids {ours.token_ids}")

    hf = Qwen2VLForConditionalGeneration.from_pretrained(args.ckpt, dtype=torch.float32, attn_implementation="sdpa").eval()
    ids = torch.tensor(req.input_ids[None])
    gc = GenerationConfig(max_new_tokens=args.steps, do_sample=False, eos_token_id=[10**6], pad_token_id=0,
                          output_logits=True, return_dict_in_generate=True)  # fmt: skip
    t = time.perf_counter()
    with torch.no_grad():
        out = hf.generate(
            input_ids=ids, attention_mask=torch.ones_like(ids), pixel_values=torch.from_numpy(req.pixel_values),
            image_grid_thw=torch.tensor([req.grid_thw]), mm_token_type_ids=torch.tensor(req.mm_token_type_ids[None]),
            generation_config=gc,
        )  # fmt: skip
    hf_ids = out.sequences[0, ids.shape[1] :].tolist()
    print(f"hf:    {time.perf_counter() - t:.1f} s, ids {hf_ids}")
    hf_logits = torch.stack([x[0] for x in out.logits]).numpy()
    n = next((i for i, (a, b) in enumerate(zip(hf_ids, ours.token_ids)) if a != b), len(hf_ids))
    diff = float(np.abs(np.concatenate(rec.logits)[:n] - hf_logits[:n]).max()) if n else float("nan")
    print(f"ids equal: {hf_ids == ours.token_ids}; max |logit diff| over {n} agreeing steps: {diff:.2e}")


if __name__ == "__main__":
    main()
