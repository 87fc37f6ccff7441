"""bench/no_amx.py: a command run as on a CPU without AMX sees none in CPUID nor in /proc/cpuinfo,
the engine's ``vision_activations=auto`` picks int8 there with no setting, and programs that
handle SIGSEGV themselves still get their faults."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

import bench.no_amx as no_amx  # noqa: E402

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
flags\t\t: fpu avx512f avx512_vnni amx_bf16 avx512_bf16 amx_tile avx_vnni amx_int8
bugs\t\t: spectre_v1

processor\t: 1
flags\t\t: fpu avx512f avx512_vnni amx_bf16 avx512_bf16 amx_tile avx_vnni amx_int8
"""


def test_cpuinfo_loses_only_the_amx_flags():
    out = no_amx.without_amx(CPUINFO)
    assert no_amx.cpu_flags(out) == {"fpu", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni"}
    assert out.count("flags") == 2 and "amx" not in out
    # every other line as it was
    assert [line for line in out.splitlines() if not line.startswith("flags")] == \
        [line for line in CPUINFO.splitlines() if not line.startswith("flags")]


def test_the_command_runs_in_its_own_mount_namespace_with_the_copy_over_cpuinfo():
    argv = no_amx.no_amx_argv(["python", "-c", "print(1)"], Path("/tmp/x/cpuinfo"))
    assert argv[:4] == ["unshare", "--mount", "--propagation", "private"]
    assert argv[-4:] == ["/tmp/x/cpuinfo", "python", "-c", "print(1)"]


WHY = no_amx.missing()
needs_the_machine = pytest.mark.skipif(WHY is not None, reason=f"bench/no_amx.py: {WHY}")

# CPUID leaf 7 sub-leaf 0, EDX: AMX-BF16 (22), AMX-TILE (24), AMX-INT8 (25); AVX512-VNNI is ECX bit 11
CPUID_PROBE = r"""
#include <cpuid.h>
int amx(void) { unsigned a, b, c, d; __cpuid_count(7, 0, a, b, c, d); return (d >> 22 & 1) | (d >> 24 & 1) | (d >> 25 & 1); }
int vnni(void) { unsigned a, b, c, d; __cpuid_count(7, 0, a, b, c, d); return c >> 11 & 1; }
"""
# the probe's answers, read in this process through ctypes
ASK = "import ctypes, sys; lib = ctypes.CDLL(sys.argv[1]); print(lib.amx(), lib.vnni(), flush=True)"


def _cpuid_probe(tmp_path: Path) -> str:
    src, lib = tmp_path / "probe.c", tmp_path / "probe.so"
    src.write_text(CPUID_PROBE)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return str(lib)


@needs_the_machine
def test_cpuid_inside_shows_vnni_and_no_amx(tmp_path):
    lib = _cpuid_probe(tmp_path)
    outside = subprocess.run([sys.executable, "-c", ASK, lib], capture_output=True, text=True, check=True)
    inside = no_amx.run_without_amx([sys.executable, "-c", ASK, lib], capture_output=True, text=True)
    assert inside.returncode == 0, inside.stderr
    assert inside.stdout.split() == ["0", outside.stdout.split()[1]]


@needs_the_machine
def test_the_engine_picks_int8_vision_inside_with_no_setting():
    code = ("from mineru_tui.engines.openvino import runtime; f = runtime.cpu_flags(); "
            "print(any(x.startswith('amx') for x in f), runtime.vision_activations_for('auto'))")
    env = {k: v for k, v in os.environ.items() if k != "ONEDNN_MAX_CPU_ISA"}
    r = no_amx.run_without_amx([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    has_vnni = bool({"avx512_vnni", "avx_vnni"} & no_amx.cpu_flags(Path("/proc/cpuinfo").read_text()))
    assert r.stdout.split() == ["False", "int8" if has_vnni else "bf16"]


@needs_the_machine
def test_a_program_with_its_own_segv_handler_still_gets_its_faults(tmp_path):
    # faulthandler installs its SIGSEGV handler at start, after the shim's: CPUIDs run after it
    # are still answered, and a real fault reaches faulthandler (its report, then the signal)
    lib = _cpuid_probe(tmp_path)
    code = ASK + "; ctypes.string_at(0)"
    r = no_amx.run_without_amx([sys.executable, "-X", "faulthandler", "-c", code, lib],
                               capture_output=True, text=True)
    assert r.returncode in (-11, 139), (r.returncode, r.stderr)
    assert r.stdout.split()[0] == "0"
    assert "Fatal Python error: Segmentation fault" in r.stderr


SIGNAL_PROBE = r"""
#include <cpuid.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
static void mine(int sig) { (void)sig; write(1, "mine\n", 5); _exit(3); }
int main(void) {
    unsigned a, b, c, d;
    signal(SIGSEGV, mine);
    __cpuid_count(7, 0, a, b, c, d);
    printf("%u\n", d >> 24 & 1);
    fflush(stdout);
    *(volatile int *)0 = 1;
    return 0;
}
"""


@needs_the_machine
def test_a_handler_set_with_signal_still_gets_its_faults(tmp_path):
    # glibc's signal() does not go through sigaction's symbol: the shim wraps it too
    src, exe = tmp_path / "sig.c", tmp_path / "sig"
    src.write_text(SIGNAL_PROBE)
    subprocess.run(["cc", "-O0", "-o", str(exe), str(src)], check=True)
    r = no_amx.run_without_amx([str(exe)], capture_output=True, text=True)
    assert (r.returncode, r.stdout.split()) == (3, ["0", "mine"]), r.stderr
