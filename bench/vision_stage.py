"""The vision stage alone: the 1036x1036 layout image (5,476 patches, 1,369 tokens) through one
engine's vision tower, best of a few rounds, beside its compute bound; for OpenVINO also the
kernels its CPU plugin picked (``PERF_COUNT``), seconds per kind of layer.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/vision_stage.py \\
        --ckpt CKPT --engine openvino [--extra precision=f32] [--rounds 3] [--crops] [--json out.json]

``--crops`` also times the 17 block crops of ``bench/pages.py``'s page (10,436 patches) through one
vision call per round, grouped as the engine groups them, after the layout image's rounds.

A CPU without AMX can be emulated on one with it by capping oneDNN inside OpenVINO:
``ONEDNN_MAX_CPU_ISA=AVX2`` (or ``AVX512_CORE``, ``AVX512_CORE_VNNI``, ``AVX512_CORE_BF16``) in
the environment. The kernel names printed (``brgemm_avx2_f32`` …) show whether the cap took effect.
``--extra vision_activations=int8`` forces the vision tower's int8 activations (VNNI), which the
engine picks by itself only on a CPU with VNNI and no AMX; ``ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16``
makes the default's bf16 run without AMX (as on an AMD Zen 4), ``ONEDNN_VERBOSE=all`` shows the
int8 kernels (``brgemm:avx512_core_vnni``).
It is an emulation: the plugin still sees the real CPU's features when it chooses precisions
(so use ``--extra precision=f32`` under an AVX2 cap: bf16 and int8-weight kernels are refused
there), and caches, clocks and memory stay this machine's. ``bench/no_amx.py -- CMD`` is the
closer one: every program then sees no AMX in CPUID and ``/proc/cpuinfo``, the plugin too.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def layout_inputs(ckpt: Path):
    """(pixel_values, grids) of the layout image of bench/pages.py's page, as the engine makes them."""
    from bench.pages import page_image
    from mineru_tui.engines.qwen2vl.config import load_preprocessor_config
    from mineru_tui.engines.qwen2vl.preprocess import preprocess_image
    from mineru_tui.reader import protocol

    img = preprocess_image(protocol.layout_request(page_image(), None).image, load_preprocessor_config(ckpt))
    return img.pixel_values, [img.grid_thw]


def crop_inputs(ckpt: Path):
    """(pixel_values, grids) of the block crops of bench/pages.py's page, as the page reader makes them."""
    import numpy as np

    from bench.pages import layout_answer, page_image
    from mineru_tui.engines.qwen2vl.config import load_preprocessor_config
    from mineru_tui.engines.qwen2vl.preprocess import preprocess_image
    from mineru_tui.reader import protocol

    requests, _ = protocol.block_requests(page_image(), protocol.parse_layout(layout_answer()), False, None)
    cfg = load_preprocessor_config(ckpt)
    imgs = [preprocess_image(r.image, cfg) for r in requests]
    return np.concatenate([i.pixel_values for i in imgs]), [i.grid_thw for i in imgs]


def timed_calls(vision, px, grids, rounds: int, label: str, cpu: list[float] | None = None) -> list[float]:
    """Seconds of ``rounds`` calls of ``vision`` on (px, grids), each printed as it ends; the
    process's CPU seconds of each call are appended to ``cpu`` (steadier than wall time on a
    shared machine: other jobs' time is not counted)."""
    times = []
    for _ in range(rounds):
        c, t = time.process_time(), time.perf_counter()
        vision(px, grids)
        times.append(time.perf_counter() - t)
        if cpu is not None:
            cpu.append(time.process_time() - c)
        print(f"{label}: {times[-1]:.2f} s" + (f" ({cpu[-1]:.1f} CPU-s)" if cpu is not None else ""), flush=True)
    return times


def kernels(bundle: Path, config: dict, px, grids, cfg) -> list[tuple[str, str, int, float]]:
    """(layer type, kernel, count, seconds) of one profiled vision call of the bundle's IR."""
    import openvino as ov

    from mineru_tui.engines.openvino.runtime import OVVision

    compiled = ov.Core().compile_model(str(bundle / "vision.xml"), "CPU", {**config, "PERF_COUNT": True})
    vis = OVVision(compiled, cfg)
    vis(px, grids)
    secs, count = collections.Counter(), collections.Counter()
    for p in vis.request.profiling_info:
        secs[(p.node_type, p.exec_type)] += p.real_time.total_seconds()
        count[(p.node_type, p.exec_type)] += 1
    return [(t, k, count[(t, k)], round(s, 3)) for (t, k), s in secs.most_common() if s > 0.001]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, required=True)
    ap.add_argument("--engine", choices=("numpy", "openvino"), default="openvino")
    ap.add_argument("--extra", action="append", default=[], metavar="KEY=VALUE", help="an engine option")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--crops", action="store_true", help="also time the page's block crops")
    ap.add_argument("--no-kernels", action="store_true", help="openvino: skip the profiled call")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not (args.ckpt / "config.json").is_file():
        sys.exit(f"bench/vision_stage.py: no checkpoint at {args.ckpt}")
    import bench.compute_bound as cb
    from mineru_tui.engines import EngineOptions, open_engine
    from mineru_tui.engines.qwen2vl.config import load_model_config, load_preprocessor_config

    extra = tuple(tuple(kv.split("=", 1)) for kv in args.extra)
    engine = open_engine(EngineOptions(engine=args.engine, model=str(args.ckpt), extra=extra))
    vision = engine.model.vision
    px, grids = layout_inputs(args.ckpt)
    cpu: list[float] = []
    times = timed_calls(vision, px, grids, args.rounds, "vision call", cpu)
    res = {"engine": args.engine, "extra": dict(extra), "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA"),
           "vision_activations": getattr(vision, "activations", "f32"), "load_average": os.getloadavg(),
           "patches": int(px.shape[0]), "vision_s": [round(t, 2) for t in times], "best_s": round(min(times), 2),
           "vision_cpu_s": [round(c, 2) for c in cpu], "best_cpu_s": round(min(cpu), 2),
           "peak_rss_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}
    if args.crops:
        cpx, cgrids = crop_inputs(args.ckpt)
        ctimes = timed_calls(vision, cpx, cgrids, args.rounds, f"crops call ({len(cgrids)} images, {cpx.shape[0]} patches)")
        res.update(crops=len(cgrids), crop_patches=int(cpx.shape[0]), crops_s=[round(t, 2) for t in ctimes],
                   crops_best_s=round(min(ctimes), 2))
        res["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    cfg = load_model_config(args.ckpt)
    flops = cb.vision_flops([cb.image_patches((1036, 1036), load_preprocessor_config(args.ckpt))], cfg.vision)
    if args.engine == "numpy":
        precision, peak = "f32", cb.numpy_peak()
    else:
        precision = cb.openvino_precision(dict(extra))
        peak = cb.openvino_peak(precision)
    res.update(flops_tera=round(flops / 1e12, 2), precision=precision, peak_tflops=round(peak / 1e12, 3),
               bound_s=round(flops / peak, 2))
    if args.engine == "openvino" and not args.no_kernels:
        from mineru_tui.engines.openvino.bundle import openvino_bundle_dir
        from mineru_tui.engines.openvino.runtime import compile_config

        prec = dict(extra).get("precision", "default")
        config = compile_config(prec, "CPU", vision_activations="bf16" if vision.activations == "f32" else vision.activations)
        res["kernels"] = kernels(openvino_bundle_dir(str(args.ckpt), prec), config, px, grids, cfg.vision)
    engine.close()
    print(json.dumps(res, indent=1))
    print(f"{args.engine} {dict(extra)} (vision activations {res['vision_activations']}) ISA cap "
          f"{res['onednn_max_cpu_isa']}: best {res['best_s']} s ({res['best_cpu_s']} CPU-s), bound "
          f"{res['bound_s']} s ({res['flops_tera']} TFLOP at {res['peak_tflops']} TFLOP/s {precision})")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
