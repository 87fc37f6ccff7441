"""Build-side numbers of Core ML bundles: build time, peak memory, sizes, and verify agreement.

    python bench/coreml_build.py --model CHECKPOINT [--out DIR] [--weights int8,int4,fp16] [--verify-tokens 8]

For each weights mode: ``mineru-tui bundle build`` in a subprocess (wall time; peak RSS of the
build and of its per-part child processes, from wait4), the package sizes, then
``mineru-tui bundle verify`` of the bundle (numpy evaluator off macOS) on the built-in test page.
Each bundle is deleted after it is measured (GBs each) unless ``--keep``; the logs stay.
Prints one JSON object per mode. Runs on any OS; a full-size build needs ~7 GB free and minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run(cmd: list[str], log: Path) -> tuple[subprocess.CompletedProcess, float, float]:
    """The process (stderr streamed to ``log`` as it runs), its wall seconds, and its peak RSS in GiB.

    The peak comes from wait4: the process itself or any child it reaped (the build's per-part
    processes). RUSAGE_CHILDREN would mix in the earlier builds and verifies of this run.
    """
    t = time.time()
    with tempfile.TemporaryFile() as out, log.open("wb") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        secs = time.time() - t
        out.seek(0)
        stdout = out.read().decode(errors="replace")
    done = subprocess.CompletedProcess(cmd, proc.returncode, stdout, log.read_text(errors="replace"))
    rss = usage.ru_maxrss
    return done, secs, rss / (1 << 30) if sys.platform == "darwin" else rss / (1 << 20)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", default=None, help="where the bundles go (default: a temporary folder)")
    ap.add_argument("--weights", default="int8,int4,fp16")
    ap.add_argument("--verify-tokens", type=int, default=8)
    ap.add_argument("--keep", action="store_true", help="keep the bundles (default: delete each once measured)")
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="coreml-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    py = [sys.executable, "-m", "mineru_tui", "bundle"]
    for w in args.weights.split(","):
        b = out / w
        build, secs, rss = run([*py, "build", "--model", args.model, "--out", str(b), "--weights", w],
                               out / f"{w}.build.log")  # the progress lines
        row: dict = {"weights": w, "build_rc": build.returncode, "build_s": round(secs, 1), "build_peak_rss_gib": round(rss, 2)}
        if build.returncode != 0:
            row["error"] = build.stderr.strip().splitlines()[-1:]
            print(json.dumps(row), flush=True)
            continue
        man = json.loads((b / "manifest.json").read_text())
        row.update({"manifest_build": man["build"], "vision_mb": round(_size(b / "vision.mlpackage") / 1e6, 1),
                    "decoder_mb": round(_size(b / "decoder.mlpackage") / 1e6, 1)})
        ver, vsecs, vrss = run([*py, "verify", str(b), "--model", args.model, "-n", str(args.verify_tokens)],
                               out / f"{w}.verify.log")
        row["verify_peak_rss_gib"] = round(vrss, 2)
        row.update({"verify_rc": ver.returncode, "verify_s": round(vsecs, 1), "verify": ver.stdout.strip().splitlines(),
                    "verify_err": ver.stderr.strip()[-300:]})
        print(json.dumps(row), flush=True)
        if not args.keep:
            shutil.rmtree(b)
    print(f"{'bundles and ' if args.keep else ''}logs in {out}", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
