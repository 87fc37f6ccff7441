"""What the Core AI engine costs on this machine: decode tok/s at batch 1, vision per grid, and
seconds per page in both stages (layout, then every block) — meant for a Mac with macOS 27+,
runnable anywhere coreai-core installs (on Linux its local runtime is a single-threaded
checker: expect minutes per page at full size).

    python bench/coreai.py --model CKPT [--bundle DIR] [--tokens 128] [--compute gpu] \\
        [--numpy] [--no-pages] [--json coreai-bench.json]

1. the bundle: ``--bundle DIR`` (ours or the MinerU2.5-Pro port's folder), else the model's
   Core AI bundle in the cache folder, built first (``bundle build --target coreai``) when
   missing — in a child process, so the build's memory is not counted;
2. load: opening the engine (the first load of a bundle includes the OS's specialisation, or
   the ODIX lowering on Linux; run twice to see a warm load);
3. vision per grid: the 1036×1036 layout page (5476 patches), a 672×896 crop (3072) and a
   448×112 line (256): best of ``--repeats`` calls each;
4. decode: one text-only request generating ``--tokens`` tokens with the end token ignored,
   tok/s over the decode stage (batch 1, the engine's default);
5. pages: ``bench/pages.py`` with the same engine (its two-column page, 18 blocks, answers of
   realistic length forced token by token), in its own process, and with ``--numpy`` the
   numpy engine beside it in the same run; the table is bench/pages.py's per-stage one.

``--model`` is a checkpoint folder (``bench/engine.py --keep`` makes a random full-size one) or
a repo id. Prints a table, then the JSON (``--json`` writes it too).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GRIDS = {"layout 1036x1036": (1036, 1036), "crop 672x896": (672, 896), "line 448x112": (448, 112)}


def ensure_bundle(model: str, bundle: Path | None) -> Path:
    from mineru_tui.engines.coreai.build import coreai_bundle_dir
    from mineru_tui.engines.coreai.engine import has_bundle

    target = bundle or coreai_bundle_dir(model)
    if not has_bundle(target):
        print(f"bench/coreai.py: building the Core AI bundle into {target} (its own process)", flush=True)
        subprocess.run([sys.executable, "-m", "mineru_tui", "bundle", "build", "--target", "coreai", "--model",
                        model, "--out", str(target)], check=True, cwd=ROOT)
    return target


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def vision_per_grid(model, repeats: int) -> dict:
    from PIL import Image

    out = {}
    for name, size in GRIDS.items():
        pre = model.prepare(Image.new("RGB", size, "white"), "\nText Recognition:")
        out[name] = {"patches": int(pre.pixel_values.shape[0]),
                     "s": round(best(lambda pre=pre: model.vision(pre.pixel_values, [pre.grid_thw]), repeats), 3)}
        print(f"vision {name}: {out[name]}", flush=True)
    return out


def decode_rate(engine, tokens: int) -> dict:
    from mineru_tui.engines.base import Request
    from mineru_tui.engines.events import SequenceDone
    from mineru_tui.engines.params import SamplingParams

    model = engine.model
    stops = model.stop_ids
    model.stop_ids = ()  # the end token ignored: exactly ``tokens`` steps
    try:
        events = list(engine.stream([Request(None, "Write a long story about a lighthouse.",
                                             SamplingParams(no_repeat_ngram_size=0), max_new_tokens=tokens)]))
    finally:
        model.stop_ids = stops
    res = [e.result for e in events if isinstance(e, SequenceDone)][0]
    t = res.timings
    n = len(res.token_ids)
    return {"tokens": n, "prefill_s": round(t.prefill_s, 3), "decode_s": round(t.decode_s, 3),
            "tok_s": round((n - 1) / t.decode_s, 2) if t.decode_s else None}


def pages(ckpt: str, engines: list[str], bundle: Path, compute: str) -> dict:
    out = {}
    for name in engines:
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            path = Path(f.name)
        extra = ["--extra", f"coreai:bundle={bundle}", "--extra", f"coreai:compute={compute}"] if name == "coreai" else []
        r = subprocess.run([sys.executable, str(ROOT / "bench" / "pages.py"), "--ckpt", ckpt, f"--engines={name}",
                            "--quick", "--effort", "high", "--no-bounds", "--json", str(path), *extra], cwd=ROOT)
        if r.returncode == 0 and path.stat().st_size:
            out[name] = json.loads(path.read_text())
        path.unlink(missing_ok=True)
    return out


def table(results: dict) -> None:
    """bench/pages.py's per-stage page table, one column per engine."""
    runs = results.get("pages", {})
    if not runs:
        return
    names = list(runs)
    print("\npage, every block (--effort high): stage  " + "  ".join(f"{n:>10s}" for n in names) + "   (seconds)")
    for stage, col in (("vision", "vision_s"), ("prefill", "prefill_s"), ("decode", "decode_s"), ("wall", "wall_s")):
        cells = []
        for n in names:
            parts = [runs[n].get(k) for k in ("layout", "recognition_b8_continuous")]
            cells.append(f"{sum(p[col] for p in parts if p):10.1f}" if all(parts) else f"{'-':>10s}")
        print(f"    {stage:8s}" + "  ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True, help="checkpoint folder or repo id")
    ap.add_argument("--bundle", type=Path, help="Core AI bundle (ours or the port's folder); default: the cache's")
    ap.add_argument("--tokens", type=int, default=128, help="decode tokens at batch 1")
    ap.add_argument("--repeats", type=int, default=2, help="vision calls per grid (best counts)")
    ap.add_argument("--compute", default="default", help="compute-unit preference: default, gpu, neural-engine, cpu")
    ap.add_argument("--numpy", action="store_true", help="also run the page benchmark with the numpy engine")
    ap.add_argument("--no-pages", action="store_true", help="skip the page benchmark")
    ap.add_argument("--json", type=Path, help="write the numbers here too")
    args = ap.parse_args()

    from mineru_tui.engines import EngineOptions, open_engine
    from mineru_tui.engines.coreai.authoring import version

    bundle = ensure_bundle(args.model, args.bundle)
    results: dict = {"machine": platform.platform(), "processor": platform.processor() or platform.machine(),
                     "python": platform.python_version(), "coreai_core": version(), "bundle": str(bundle),
                     "compute": args.compute}
    t = time.perf_counter()
    engine = open_engine(EngineOptions(engine="coreai", model=args.model,
                                       extra=(("bundle", str(bundle)), ("compute", args.compute))))
    results["load_s"] = round(time.perf_counter() - t, 2)
    print(f"load {results['load_s']} s", flush=True)
    results["vision"] = vision_per_grid(engine.model, args.repeats)
    results["decode_b1"] = decode_rate(engine, args.tokens)
    print(f"decode batch 1: {results['decode_b1']}", flush=True)
    engine.close()
    if not args.no_pages:
        results["pages"] = pages(args.model, ["coreai"] + (["numpy"] if args.numpy else []), bundle, args.compute)
        for name, r in results["pages"].items():
            if "page_s_all_blocks_b8_continuous" in r:
                print(f"{name}: {r['page_s_all_blocks_b8_continuous']} s a page", flush=True)
    table(results)
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
