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
        --ckpt CKPT [-n 16] [--precisions f32,default,default:bf16,int4,default@int8] [--json out.json]

(``default:bf16``: the default precision with the decoder's activations in bf16, the engine's
``decoder_activations=bf16``; ``default`` quantizes them to int8 at the decoder's matmuls;
``int4``: the decoder's layers in group-wise int4; ``default@int8`` / ``default@bf16``: the
vision tower's activations int8 (VNNI) / bf16, the engine's ``vision_activations``, instead of
this CPU's automatic choice.)

Each run also compares the image embeddings with numpy's, token by token (cosine similarity of
each ``<|image_pad|>`` token's embedding: smallest, 1st percentile, mean). The first request is
the layout pass of ``bench/pages.py``'s page (its 1036×1036 layout image, 1,369 tokens).
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
    """(name, image, prompt): the layout pass of bench/pages.py's page, a page, a text crop, a
    table crop, the verify page, a text-only prompt."""
    from bench.engine import page_image
    from bench.pages import page_image as layout_page
    from mineru_tui.engines.bundle_files.verify import builtin_page
    from mineru_tui.reader import protocol

    page = page_image(672, 896)
    return [
        ("layout image 1036x1036, layout", protocol.layout_request(layout_page(), None).image, "\nLayout Detection:"),
        ("page 672x896, text", page, "\nText Recognition:"),
        ("crop 640x120, text", page.crop((0, 0, 640, 120)), "\nText Recognition:"),
        ("crop 400x300, table", page.crop((100, 200, 500, 500)), "\nTable Recognition:"),
        ("verify page 224x224, formula", builtin_page(), "\nFormula Recognition:"),
        ("text only", None, "Write a short paragraph about document parsing."),
    ]


class _Embeds:
    """Wraps a vision tower: keeps the image embeddings of every call."""

    def __init__(self, inner):
        self.inner = inner
        self.out: list[np.ndarray] = []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __call__(self, *args, **kwargs):
        emb = self.inner(*args, **kwargs)
        self.out.append(np.array(emb, np.float32))
        return emb

    def take(self) -> np.ndarray | None:
        out, self.out = self.out, []
        return np.concatenate(out) if out else None


def cosines(ref: np.ndarray, got: np.ndarray) -> np.ndarray:
    """Cosine similarity of each token's embedding (row) with the reference's."""
    return np.sum(ref * got, axis=1) / (np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1))


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
    ref_model.vision = _Embeds(ref_model.vision)
    refs = []
    for name, image, prompt in requests():
        rec = _Recorder(ref_model.text)
        ref_model.text = rec
        t = time.perf_counter()
        res = ref_model.generate(image, prompt, **knobs)
        ref_model.text = rec.inner
        margins = [float(np.diff(np.sort(lg[0])[-2:])[0]) for lg in rec.logits]
        refs.append((res.token_ids, rec.logits, min(margins), ref_model.vision.take()))
        print(f"numpy: {name}: {len(res.token_ids)} tokens in {time.perf_counter() - t:.1f} s, "
              f"smallest top-2 margin {min(margins):.3g}", flush=True)
    out: dict = {"ckpt": str(args.ckpt), "tokens": args.n, "requests": [r[0] for r in requests()], "runs": {}}
    for run in [p.strip() for p in args.precisions.split(",") if p.strip()]:
        # "default:bf16": the decoder's activations in bf16; "default@int8": the vision tower's in int8
        run_spec, _, vision_acts = run.partition("@")
        precision, _, acts = run_spec.partition(":")
        t = time.perf_counter()
        model = open_openvino_model(str(args.ckpt), precision=precision, progress=lambda s: print(s, file=sys.stderr),
                                    decoder_activations=acts or "int8", vision_activations=vision_acts or "auto")
        print(f"openvino {run}: opened in {time.perf_counter() - t:.1f} s (vision activations "
              f"{model.vision.activations})", flush=True)
        model.vision = _Embeds(model.vision)
        rows = []
        for (name, image, prompt), (ref_ids, ref_logits, margin, ref_emb) in zip(requests(), refs):
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
            emb = model.vision.take()
            if ref_emb is not None and emb is not None:
                emb = emb[-len(ref_emb):]  # the f32 run's free-running call came first
                cos = cosines(ref_emb, emb)
                row.update(embed_tokens=len(cos), embed_cos_min=float(cos.min()), embed_cos_mean=float(cos.mean()),
                           embed_cos_p01=float(np.quantile(cos, 0.01)))
            rows.append(row)
            print(f"openvino {run}: {json.dumps(row)}", flush=True)
        out["runs"][run] = rows
        del model
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
