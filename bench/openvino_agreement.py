"""How closely the OpenVINO engine follows the numpy engine on a full-size checkpoint.

For a fixed set of requests (pages and prompts), the numpy engine (exact against transformers)
generates greedily and its logits are recorded; then the OpenVINO engine runs

* in ``precision=f32``: free-running greedy — its tokens must equal numpy's;
* in each precision: teacher-forced on numpy's tokens (as ``mineru-tui bundle verify`` does),
  reporting the first differing greedy step, the share of equal greedy steps, the largest logit
  difference and numpy's smallest top-1/top-2 margin (how much room the logits leave).

Use a checkpoint with fresh random values per tensor (``bench/engine.py --fresh-weights
--build-only --keep``): the default benchmark checkpoint rotates one pool of values through every
tensor, which makes near-ties everywhere.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/openvino_agreement.py \\
        --ckpt CKPT [-n 16] [--precisions f32,default,default:bf16,int4] [--json out.json]

(``default:bf16``: the default precision with the decoder's activations in bf16, the engine's
``decoder_activations=bf16``; ``default`` quantizes them to int8 at the decoder's matmuls;
``int4``: the decoder's layers in group-wise int4.)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def requests():
    """(name, image, prompt): a page, a text crop, a table crop, the verify page, a text-only prompt."""
    from bench.engine import page_image
    from mineru_tui.engines.bundle_files.verify import builtin_page

    page = page_image(672, 896)
    return [
        ("page 672x896, text", page, "\nText Recognition:"),
        ("crop 640x120, text", page.crop((0, 0, 640, 120)), "\nText Recognition:"),
        ("crop 400x300, table", page.crop((100, 200, 500, 500)), "\nTable Recognition:"),
        ("verify page 224x224, formula", builtin_page(), "\nFormula Recognition:"),
        ("text only", None, "Write a short paragraph about document parsing."),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, required=True)
    ap.add_argument("-n", type=int, default=16, help="tokens per request")
    ap.add_argument("--precisions", default="f32,default")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from mineru_tui.engines.openvino.bundle import open_openvino_model
    from mineru_tui.engines.openvino.runtime import weights_for
    from mineru_tui.engines.bundle_files.verify import _Forced, _Recorder, compare
    from mineru_tui.engines.numpy import load_model

    knobs = dict(max_new_tokens=args.n, no_repeat_ngram_size=0, stop_ids=[])
    ref_model = load_model(args.ckpt)
    refs = []
    for name, image, prompt in requests():
        rec = _Recorder(ref_model.text)
        ref_model.text = rec
        t = time.perf_counter()
        res = ref_model.generate(image, prompt, **knobs)
        ref_model.text = rec.inner
        margins = [float(np.diff(np.sort(lg[0])[-2:])[0]) for lg in rec.logits]
        refs.append((res.token_ids, rec.logits, min(margins)))
        print(f"numpy: {name}: {len(res.token_ids)} tokens in {time.perf_counter() - t:.1f} s, "
              f"smallest top-2 margin {min(margins):.3g}", flush=True)
    out: dict = {"ckpt": str(args.ckpt), "tokens": args.n, "requests": [r[0] for r in requests()], "runs": {}}
    for run in [p.strip() for p in args.precisions.split(",") if p.strip()]:
        precision, _, acts = run.partition(":")  # "default:bf16": the decoder's activations in bf16
        t = time.perf_counter()
        model = open_openvino_model(str(args.ckpt), precision=precision, progress=lambda s: print(s, file=sys.stderr),
                                    decoder_activations=acts or "int8")
        print(f"openvino {run}: opened in {time.perf_counter() - t:.1f} s", flush=True)
        rows = []
        for (name, image, prompt), (ref_ids, ref_logits, margin) in zip(requests(), refs):
            row = {"request": name, "numpy_min_top2_margin": margin}
            if precision == "f32":
                free = model.generate(image, prompt, **knobs)
                row["free_running_tokens_equal"] = free.token_ids == ref_ids
            inner = model.text
            forced = _Forced(inner, ref_logits)
            model.text = forced
            model.generate(image, prompt, **knobs)
            model.text = inner
            rep = compare(ref_logits, forced.logits, weights_for(precision))
            row.update(first_diff=rep.first_diff, equal=rep.equal, steps=rep.steps,
                       max_logit_diff=rep.max_logit_diff, detail=rep.detail)
            rows.append(row)
            print(f"openvino {run}: {json.dumps(row)}", flush=True)
        out["runs"][run] = rows
        del model
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
