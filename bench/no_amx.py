"""Run a command on this CPU as a CPU without AMX: every program in it sees no AMX in CPUID and
in ``/proc/cpuinfo`` while it runs on these cores at their speed. On a Xeon with AMX that is a CPU
with AVX-512, bf16 and VNNI but no AMX, as AMD Zen 4/5 (laptops and desktops; Intel's since Alder
Lake have AVX2 and VNNI). For the no-AMX criteria of the page engines (docs/openvino.md) on a
machine whose only CPU is a Xeon with AMX. As root:

    .venv/bin/python bench/no_amx.py --check
    .venv/bin/python bench/no_amx.py -- env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python \\
        bench/pages.py --ckpt CKPT --engines auto --through parse --parse-only \\
        --parse-docs scan,digital --parse-pages scan=10,digital=4

How: Linux makes the CPUID instruction fault (``arch_prctl(ARCH_SET_CPUID)``, on CPUs listing
``cpuid_fault``); a small library preloaded into every program of the command
(``bench/no_amx_cpuid.c``, compiled on first use with ``cc``) answers each CPUID with the CPU's
own answer less AMX (the AMX-BF16/INT8/TILE/FP16/COMPLEX bits, the tile state's XSAVE bits, the
tile leaves); ``/proc/cpuinfo`` is a copy without the ``amx_*`` flags, mounted over the real one
in a mount namespace of the command's own (``unshare``; needs root). oneDNN and OpenVINO's CPU
plugin then pick their AVX-512 kernels (VNNI for int8, AVX512_CORE_BF16 for bf16), and the
engine's ``vision_activations=auto`` reads the flags as on a CPU without AMX, with no setting.
No environment variable of the engines is set; ``LD_PRELOAD`` carries the library.

``--check`` runs, inside: the flags (``avx512_vnni`` or ``avx_vnni`` present, no ``amx_*``), what
the OpenVINO engine's ``auto`` picks for the vision tower (``int8``), and the kernels OpenVINO's
CPU plugin runs a bf16 and an int8-weight matmul with (none may be AMX) — beside the same run
outside, so each line shows the difference.

Why not a virtual machine (a KVM guest with ``-cpu host,-amx-tile,-amx-int8,-amx-bf16``): the
machine this was written on is itself a VM whose ``/dev/kvm`` is PVM (``kvm_pvm``, nested
virtualisation by page tables), which runs only guest kernels built for it; a distribution
kernel stops right after its boot loader. Where a real KVM exists a guest is the stricter
emulation (the kernel, too, sees no AMX); this one leaves glibc's loader its own early CPUID
read (its cached feature view keeps AMX; nothing here asks it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHIM_SOURCE = HERE / "no_amx_cpuid.c"


def cpu_flags(cpuinfo: str) -> set[str]:
    """The flags of the first processor in a ``/proc/cpuinfo`` text."""
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return set()


def without_amx(cpuinfo: str) -> str:
    """``/proc/cpuinfo`` as a CPU without AMX shows it: every ``amx_*`` flag gone, all else kept."""
    out = []
    for line in cpuinfo.splitlines(keepends=True):
        if line.startswith("flags"):
            head, sep, flags = line.partition(":")
            kept = [f for f in flags.split() if not f.startswith("amx")]
            line = f"{head}{sep} {' '.join(kept)}\n"
        out.append(line)
    return "".join(out)


def missing() -> str | None:
    """What this machine lacks to run a command without AMX, in one line; None when nothing."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return f"needs Linux on x86-64 (this is {platform.system()} on {platform.machine()})"
    flags = cpu_flags(Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace"))
    if "cpuid_fault" not in flags:
        return "the CPU cannot make CPUID fault (no 'cpuid_fault' in /proc/cpuinfo)"
    if os.geteuid() != 0:
        return "needs root (a mount namespace puts a /proc/cpuinfo without AMX over the real one)"
    for tool in ("cc", "unshare", "mount"):
        if shutil.which(tool) is None:
            return f"needs '{tool}' on PATH"
    return None


def shim() -> Path:
    """The preloaded library, compiled once per source text into the temp folder."""
    src = SHIM_SOURCE.read_bytes()
    out = Path(tempfile.gettempdir()) / "mineru-tui-no-amx" / f"{hashlib.sha256(src).hexdigest()[:16]}.so"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_suffix(f".{os.getpid()}.part")
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(part), str(SHIM_SOURCE), "-ldl"], check=True)
        part.replace(out)
    return out


def no_amx_argv(cmd: list[str], cpuinfo_copy: Path) -> list[str]:
    """``cmd`` in a private mount namespace with ``cpuinfo_copy`` over ``/proc/cpuinfo``."""
    script = 'mount --bind "$1" /proc/cpuinfo && shift && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
            str(cpuinfo_copy), *cmd]


def run_without_amx(cmd: list[str], env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    """Run ``cmd`` as on a CPU without AMX (see the module docstring); its exit status is the command's."""
    env = dict(os.environ if env is None else env)
    lib = str(shim())
    env["LD_PRELOAD"] = f"{lib} {env['LD_PRELOAD']}" if env.get("LD_PRELOAD") else lib
    with tempfile.TemporaryDirectory(prefix="mineru-tui-no-amx-") as tmp:
        copy = Path(tmp) / "cpuinfo"
        copy.write_text(without_amx(Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")))
        return subprocess.run(no_amx_argv(cmd, copy), env=env, **kw)


# Run inside and outside by --check: the flags, the engine's choice, OpenVINO's kernels.
PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from mineru_tui.engines.openvino import runtime
flags = runtime.cpu_flags()
out = {"vnni": sorted(f for f in flags if "vnni" in f), "amx": sorted(f for f in flags if f.startswith("amx")),
       "vision_activations_auto": runtime.vision_activations_for("auto")}
try:
    import numpy as np
    import openvino as ov
    from mineru_tui.engines.openvino.ops import linear, opset
except ImportError as e:
    out["openvino"] = f"not installed ({e})"
else:  # one int8-weight linear layer, as the engine builds the vision tower's
    rng = np.random.default_rng(0)
    x = opset().parameter([-1, 256], ov.Type.f32, name="x")
    w = rng.standard_normal((256, 256), np.float32) * 0.02
    model = ov.Model([linear(x, w, np.zeros(256, np.float32), "int8")], [x])
    kernels = {}
    for act in ("bf16", "int8"):  # the vision tower's two settings, as the engine compiles them
        cfg = runtime.compile_config("default", "CPU", "vision", vision_activations=act)
        compiled = ov.Core().compile_model(model, "CPU", cfg)
        compiled.create_infer_request().infer({0: rng.standard_normal((64, 256)).astype(np.float32)})
        info = [n.get_rt_info() for n in compiled.get_runtime_model().get_ops()]
        types = {i["primitiveType"].astype(str) for i in info
                 if "layerType" in i and i["layerType"].astype(str) in ("MatMul", "FullyConnected")}
        kernels[act] = sorted(types)
    out["openvino_matmul_kernels"] = kernels
print(json.dumps(out))
"""


def check() -> int:
    """The flags, the engine's pick and OpenVINO's kernels inside (and outside, for contrast)."""
    cmd = [sys.executable, "-c", PROBE, str(ROOT)]
    outside = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    r = run_without_amx(cmd, env={**os.environ, "NO_AMX_REPORT": "1"}, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr[-2000:], file=sys.stderr)
        return r.returncode
    inside = json.loads(r.stdout)
    for key in inside:
        print(f"{key}: outside {json.dumps(outside.get(key))} / without AMX {json.dumps(inside[key])}")
    print(r.stderr.strip())
    kernels = json.dumps(inside.get("openvino_matmul_kernels", {})).lower()
    ok = bool(inside["vnni"]) and not inside["amx"] and inside["vision_activations_auto"] == "int8" \
        and "amx" not in kernels
    print("ok: a CPU with VNNI and no AMX; the engine picks int8 vision" if ok else "NOT a clean no-AMX CPU")
    return 0 if ok else 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="show the flags, the engine's vision pick and OpenVINO's kernels without AMX (and with)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...: the command to run without AMX")
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not args.check and not cmd:
        ap.error("give --check or a command after --")
    why = missing()
    if why:
        sys.exit(f"bench/no_amx.py: {why}")
    if args.check:
        sys.exit(check())
    sys.exit(run_without_amx(cmd).returncode)


if __name__ == "__main__":
    main()
