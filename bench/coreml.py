"""Speed of the Core ML engine on a Mac: tokens/s and seconds per page (run it on macOS 15+).

    mineru-tui bundle build --model MODEL            # once (minutes; any OS)
    python bench/coreml.py --model MODEL [--bundle DIR] [--image PAGE.png] [--tokens 256] [--numpy]

Measures, in this process (no worker process, so the timings are Core ML's own):
* load: opening the bundle (the first run also compiles it into the cache: reported separately);
* a layout pass: the page resized to 1036x1036 (1369 image tokens, as MinerU does) with the
  layout prompt: vision s, prefill s, decode tok/s, total s;
* a text-recognition crop (the top third of the page): the same numbers;
* s/page = layout pass + crop (one block; a real page has several crops).
Stopping is disabled so every run decodes --tokens tokens (random-weight checkpoints never
stop). ``--numpy`` also runs the numpy engine on the same requests, side by side.
``--compute-units`` picks ALL (default), CPU_AND_NE, CPU_AND_GPU or CPU_ONLY.
Prints a JSON object per engine on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _page(path: str | None):
    from PIL import Image

    if path:
        return Image.open(path).convert("RGB")
    from mineru_tui.engines.bundle_files.verify import builtin_page
    import io

    return Image.open(io.BytesIO(builtin_page(816, 1056))).convert("RGB")  # a letter page at 96 dpi


def _run(model, image, prompt: str, tokens: int) -> dict:
    t = time.perf_counter()
    res = model.generate(image, prompt, max_new_tokens=tokens, stop_ids=[], no_repeat_ngram_size=0)
    total = time.perf_counter() - t
    tm = res.timings
    return {"total_s": round(total, 2), "vision_s": round(tm.vision_s, 2), "image_tokens": tm.vision_tokens,
            "prefill_s": round(tm.prefill_s, 2), "prefill_tokens": tm.prefill_tokens,
            "prefill_tok_s": round(tm.prefill_tokens_per_s, 1), "decode_tokens": tm.decode_tokens,
            "decode_tok_s": round(tm.decode_tokens_per_s, 1), "first_token_s": round(tm.first_token_s, 2)}


def bench(model, page, tokens: int) -> dict:
    from PIL import Image

    layout_img = page.resize((1036, 1036), Image.BICUBIC)
    crop = page.crop((0, 0, page.width, page.height // 3))
    out = {"layout": _run(model, layout_img, "\nLayout Detection:", tokens),
           "text_crop": _run(model, crop, "\nText Recognition:", tokens)}
    out["s_per_page_one_block"] = round(out["layout"]["total_s"] + out["text_crop"]["total_s"], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="opendatalab/MinerU2.5-Pro-2605-1.2B")
    ap.add_argument("--bundle", default=None, help="bundle folder (default: the cache folder of --model)")
    ap.add_argument("--image", default=None, help="a page image (default: the built-in test page)")
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--compute-units", default="ALL")
    ap.add_argument("--numpy", action="store_true", help="also run the numpy engine")
    args = ap.parse_args()
    if sys.platform != "darwin":
        sys.exit("error: bench/coreml.py measures Core ML and needs macOS 15+; "
                 "on Linux use `mineru-tui bundle verify` and bench/coreml_build.py")
    from mineru_tui.engines.bundle_files.locations import default_bundle_dir
    from mineru_tui.engines.coreml.runtime import compiled_path, open_bundle_model
    from mineru_tui.engines.bundle_files.manifest import Manifest

    bundle = Path(args.bundle) if args.bundle else default_bundle_dir(args.model)
    man = Manifest.read(bundle)
    cold = not compiled_path(bundle, man, "decoder.mlpackage").exists()
    t = time.perf_counter()
    model = open_bundle_model(bundle, args.model, backend="coreml", compute_units=args.compute_units)
    load_s = time.perf_counter() - t
    page = _page(args.image)
    _run(model, page.crop((0, 0, 224, 224)), "\nText Recognition:", 4)  # warm-up (Core ML specialises on first use)
    row = {"engine": "coreml", "weights": man.weights, "compute_units": args.compute_units,
           "load_s": round(load_s, 2), "load_included_compile": cold, **bench(model, page, args.tokens)}
    print(json.dumps(row), flush=True)
    if args.numpy:
        from mineru_tui.engines.numpy import load_model

        ref = load_model(args.model)
        print(json.dumps({"engine": "numpy", **bench(ref, page, args.tokens)}), flush=True)


if __name__ == "__main__":
    main()
