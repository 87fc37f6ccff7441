"""The OpenVINO engine's decode step at batch 1, bare and through the generation loop.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/decode_step.py --ckpt CKPT \\
        [--precision default|int4] [--rounds 3] [--json out.json]

* bare steps (``TextForward.step`` + the host's sampling, as ``bench/engine.py``'s decode rows)
  at ``--context`` cached tokens, median of 40 steps, in a cache with 40 empty slots ("tight")
  and with 1024 ("room1024": what a cache allocated for a whole answer up front holds);
  ``--rounds`` times, taking turns;
* ``generate()`` on a text-only prompt of ≈ 2000 tokens, ``--tokens`` tokens forced (no stop):
  the loop's own decode rate, with its own cache policy.

Run it from another checkout (``PYTHONPATH=OTHER``) for a before/after in the same minutes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def bare_ms(model, context: int, room: int, steps: int = 40) -> float:
    """Median ms of ``steps`` decode steps at ``context`` cached tokens, ``room`` empty slots."""
    from mineru_tui.engines.numpy.rope import mrope_cos_sin
    from mineru_tui.engines.numpy.sampling import LogitsProcessor, SamplingParams, greedy

    text, tc = model.text, model.config.text
    cache = text.new_cache(1, context + room)
    rng = np.random.default_rng(1)
    cache.k[:, :, :, :context] = rng.standard_normal((1, 1, 1, context, tc.head_dim), dtype=np.float32)
    cache.v[:, :, :, :context] = rng.standard_normal((1, 1, 1, context, tc.head_dim), dtype=np.float32)
    proc = LogitsProcessor(SamplingParams(), 1, tc.vocab_size)
    tokens, times = rng.integers(0, 3000, 1), []
    for s in range(steps):
        t = time.perf_counter()
        slot = context + s
        cos, sin = mrope_cos_sin(np.full(1, slot), tc.head_dim, tc.rope_theta, tc.mrope_section)
        logits = text.step(text.embed(tokens[:, None]), cos[:, None], sin[:, None],
                           np.zeros((1, 1, slot + 1), np.float32), slot, cache)
        tokens = greedy(proc(logits[:, -1]))
        proc.append(tokens)
        times.append(time.perf_counter() - t)
    return round(1e3 * float(np.median(times[2:])), 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, required=True)
    ap.add_argument("--precision", default="default")
    ap.add_argument("--context", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))  # after PYTHONPATH: another checkout given there wins
    import mineru_tui
    from mineru_tui.bundles.openvino.bundle import open_openvino_model

    model = open_openvino_model(str(args.ckpt), precision=args.precision, save=True)
    res: dict = {"code": str(Path(mineru_tui.__file__).parent), "precision": args.precision,
                 "context": args.context, "bare_ms_tight": [], "bare_ms_room1024": []}
    for _ in range(args.rounds):
        res["bare_ms_tight"].append(bare_ms(model, args.context, 40))
        res["bare_ms_room1024"].append(bare_ms(model, args.context, 1024))
    prompt = " ".join(f"w{i % 97}" for i in range(700))
    r = model.generate(None, prompt, max_new_tokens=args.tokens, stop_ids=[])
    res.update(generate_prompt_tokens=r.prompt_tokens, generate_tokens_per_s=round(r.timings.decode_tokens_per_s, 2),
               best_tight_tokens_per_s=round(1e3 / min(res["bare_ms_tight"]), 1))
    print(json.dumps(res), flush=True)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
