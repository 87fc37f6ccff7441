"""One of the vision tower's matmuls alone in OpenVINO: the layout image's qkv projection
([5476, 1280] x [1280, 3840], int8 weights per output channel, as the engine builds it) under
the compile settings the engine can pick, CPU seconds per call (best of a few) and the kernel
the CPU plugin ran (``PERF_COUNT``).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/vision_matmul.py [--rows 5476]
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 .venv/bin/python bench/vision_matmul.py

* ``bf16``: the device default (bf16 activations where the CPU has them; the weights expanded
  to bf16 inside the kernel) — the vision tower's ``vision_activations=bf16``;
* ``int8``: an f32 hint, under which the plugin quantizes the activations per group on the fly
  and runs int8 x int8 (``ONEDNN_VERBOSE=all`` names the kernel: ``brgemm:avx512_core_vnni``) —
  ``vision_activations=int8``.

``ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16`` caps oneDNN below AMX, as on a CPU with AVX-512 bf16 and
VNNI but no AMX (AMD Zen 4/5): a partial emulation (the plugin still sees AMX in CPUID and picks
its bf16 path for it). ``bench/no_amx.py -- CMD`` hides AMX from CPUID and ``/proc/cpuinfo``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=5476, help="activation rows (the layout image's patches)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    import openvino as ov

    from mineru_tui.engines.openvino.ops import linear, opset
    from mineru_tui.engines.openvino.runtime import compile_config

    K, N = 1280, 3840
    op = opset()
    x = op.parameter([-1, K], ov.Type.f32, name="x")
    w = np.random.default_rng(0).standard_normal((N, K), np.float32) * 0.02
    model = ov.Model([linear(x, w, np.zeros(N, np.float32), "int8")], [x], "vision_qkv")
    X = np.random.default_rng(1).standard_normal((args.rows, K), np.float32)
    print(f"ONEDNN_MAX_CPU_ISA={os.environ.get('ONEDNN_MAX_CPU_ISA')} load average {os.getloadavg()}")
    for acts in ("bf16", "int8"):
        config = {**compile_config("default", "CPU", vision_activations=acts), "PERF_COUNT": True}
        try:
            request = ov.Core().compile_model(model, "CPU", config).create_infer_request()
            request.infer({"x": X})
        except RuntimeError as e:  # a cap below what the plugin picked for this setting
            print(f"{acts}: does not run here ({' '.join(str(e).split())[-140:]})")
            continue
        cpu, wall = [], []
        for _ in range(args.rounds):
            c, t = time.process_time(), time.perf_counter()
            request.infer({"x": X})
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - t)
        kernel = [p.exec_type for p in request.profiling_info if "FullyConnected" in p.node_type]
        flops = 2 * args.rows * K * N
        print(f"{acts}: best {min(cpu) * 1e3:.0f} CPU-ms ({flops / min(cpu) / 1e12:.2f} TFLOP per CPU-s), "
              f"best wall {min(wall) * 1e3:.0f} ms, kernel {kernel}")


if __name__ == "__main__":
    main()
