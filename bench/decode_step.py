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
import functools
import importlib.util
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@functools.cache
def _engine_bench():
    """This checkout's ``bench/engine.py``, even when ``PYTHONPATH`` names another checkout for
    the engine's code (whose ``bench`` package may be older)."""
    spec = importlib.util.spec_from_file_location("bench_engine_here", REPO / "bench" / "engine.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bare_ms(model, context: int, room: int, steps: int = 40) -> float:
    """Median ms of ``steps`` decode steps at batch 1, ``context`` cached tokens and ``room``
    empty slots (``bench/engine.py``'s decode rows)."""
    return round(_engine_bench().decode_steps(model, 1, context, steps, room)["ms_per_step_median"], 2)


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
    from mineru_tui.engines.openvino.bundle import open_openvino_model

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
