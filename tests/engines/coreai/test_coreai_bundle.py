"""Core AI bundles: what ``bundle build --target coreai`` writes (functions, shared weights,
int8 / int4 per block, manifest), ``bundle verify`` on the local runtime, another checkpoint
(fresh weights, transformers-5 names) building and verifying, and damaged or foreign bundles
refused in one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("coreai.runtime")

from mineru_tui.engines import reference_model  # noqa: E402
from mineru_tui.engines.bundle_files.errors import BundleError  # noqa: E402
from mineru_tui.engines.coreai.manifest import check_coreai_bundle, read_coreai_manifest  # noqa: E402
from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402
from tests.engines.coreai.coreai_bundles import (BUCKETS, CHUNK, CONTEXT, other_checkpoint,  # noqa: E402
                                                 tiny_coreai_bundle, use_session_cache)

ROOT = Path(__file__).resolve().parents[3]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _params(prefix_ok) -> int:
    return sum(v.size for k, v in tc.read_tensors().items() if prefix_ok(k))


def test_functions_and_one_copy_of_the_weights():
    b = tiny_coreai_bundle()
    man = read_coreai_manifest(b)
    assert man.functions == {"vision.aimodel": [f"main_n{n}" for n in BUCKETS],
                             "decoder.aimodel": ["prefill", "decode", "embed"]}
    assert (man.context, man.prefill_chunk, man.buckets, man.weights, man.compute) == (CONTEXT, CHUNK, list(BUCKETS),
                                                                                      "f32", "f32")
    # three decoder functions and three vision buckets, each storing its weights once (f32: 4 bytes each)
    text = _params(lambda k: k.startswith("model.") or k == "lm_head.weight")
    vision = _params(lambda k: k.startswith("visual."))
    assert 4 * text <= _size(b / "decoder.aimodel") < 1.1 * 4 * text
    assert 4 * vision <= _size(b / "vision.aimodel") < 1.1 * 4 * vision
    assert set(man.files) == {str(p.relative_to(b)) for p in b.rglob("*") if p.is_file() and p.name != "manifest.json"}
    assert man.checkpoint_id and man.coreai_version == "1.0.0b3"


def test_the_runtime_sees_the_contract():
    from mineru_tui.engines.coreai.runner import CoreAIRunner

    b = tiny_coreai_bundle()
    dec = CoreAIRunner(b / "decoder.aimodel").desc
    assert sorted(dec) == ["decode", "embed", "prefill"]
    assert dec["prefill"].input_names == ["inputs_embeds", "cos", "sin", "mask", "pos", "last_index"]
    assert dec["decode"].state_names == dec["prefill"].state_names == ["keyCache", "valueCache"]
    state = dec["decode"].state_descriptor("keyCache")
    assert list(state.shape) == [2, 2, CONTEXT, 16] and state.dtype == "float32"
    assert list(dec["embed"].input_descriptor("input_ids").shape) == [1, CHUNK]  # static: no dynamic function
    vis = CoreAIRunner(b / "vision.aimodel")
    assert vis.buckets == list(BUCKETS)
    assert list(vis.desc["main_n128"].output_descriptor("image_embeds").shape) == [32, 64]


def test_quantised_decoders_are_smaller_and_stay_near_numpy():
    from mineru_tui.engines.coreai.verify import verify_coreai_bundle

    sizes = {w: _size(tiny_coreai_bundle(w) / "decoder.aimodel") for w in ("f32", "int8", "int4")}
    n = _params(lambda k: k.startswith("model.layers.") and k.endswith("proj.weight"))  # the quantised linears
    # int8: 1 byte + a 4-byte scale per 32 instead of 4 bytes; int4: half a byte less again (packed by hand)
    assert sizes["f32"] - sizes["int8"] >= 0.95 * (3 * n - n / 8)
    assert sizes["int8"] - sizes["int4"] >= 0.95 * (n / 2)
    report = verify_coreai_bundle(tiny_coreai_bundle("int8"), str(tc.TINY_DIR), reference=reference_model,
                                  max_new_tokens=12)
    assert report.passed and report.floor == 0.6 and 0 < report.max_logit_diff < 1.0
    report = verify_coreai_bundle(tiny_coreai_bundle("int4"), str(tc.TINY_DIR), reference=reference_model,
                                  max_new_tokens=12)
    assert report.steps == 12 and report.max_logit_diff > 0.5  # 4-bit noise: runs, measured, not exact


def test_bf16_compute_keeps_the_greedy_tokens_on_the_builtin_page():
    from mineru_tui.engines.coreai.verify import verify_coreai_bundle

    report = verify_coreai_bundle(tiny_coreai_bundle("bf16", "bf16"), str(tc.TINY_DIR), reference=reference_model,
                                  max_new_tokens=12)
    assert report.passed, report.lines()
    assert 1e-3 < report.max_logit_diff < 1.0  # bf16 rounding, not f32 exactness


def _cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", MINERU_TUI_CACHE=str(cwd / "cache"))
    return subprocess.run([sys.executable, "-m", "mineru_tui", "bundle", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_cli_builds_and_verifies_another_checkpoint(tmp_path):
    """Fresh random weights in transformers-5 names: built from the command line, verified PASS;
    crossing it with the tiny checkpoint is refused in one line either way."""
    other = other_checkpoint()
    out = tmp_path / "other.coreai"
    r = _cli("build", "--target", "coreai", "--model", other, "--out", out, "--compute", "f32", "--weights", "fp16",
             "--context", 128, "--chunk", 16, "--buckets", "64,128,256", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(out) and "bundle ready" in r.stderr
    man = read_coreai_manifest(out)
    assert man.weights == "f32" and man.compute == "f32"
    r = _cli("verify", out, "--model", other, "-n", 8, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "result: PASS" in r.stdout and "equal greedy tokens: 8/8" in r.stdout
    r = _cli("verify", out, "--model", tc.TINY_DIR, "-n", 4, cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "built from another checkpoint" in r.stderr
    with pytest.raises(BundleError, match="built from another checkpoint"):
        check_coreai_bundle(tiny_coreai_bundle(), load_checkpoint(other))
    # the v5 names do not change the identity: the tiny bundle accepts the tiny weights renamed
    check_coreai_bundle(tiny_coreai_bundle(), load_checkpoint(tc.make_v5_checkpoint(tmp_path / "v5")))


def _copy(tmp_path, name="b") -> Path:
    dst = tmp_path / name
    shutil.copytree(tiny_coreai_bundle(), dst)
    return dst


def test_damaged_bundles_are_refused_in_one_line(tmp_path):
    ck = load_checkpoint(tc.TINY_DIR)
    b = _copy(tmp_path)
    mlirb = b / "decoder.aimodel" / "main.mlirb"
    data = bytearray(mlirb.read_bytes())
    data[len(data) // 2] ^= 0xFF
    mlirb.write_bytes(bytes(data))
    check_coreai_bundle(b, ck)  # sizes agree: only the full check sees it
    with pytest.raises(BundleError, match="does not match its checksum") as e:
        check_coreai_bundle(b, ck, full=True)
    assert "\n" not in str(e.value)
    mlirb.write_bytes(bytes(data[:-10]))
    with pytest.raises(BundleError, match="bytes, the manifest says"):
        check_coreai_bundle(b, ck)
    mlirb.unlink()
    with pytest.raises(BundleError, match="main.mlirb is missing"):
        check_coreai_bundle(b, ck)
    b2 = _copy(tmp_path, "extra")
    (b2 / "vision.aimodel" / "stray.bin").write_bytes(b"x")
    with pytest.raises(BundleError, match="stray.bin is not in the manifest"):
        check_coreai_bundle(b2, ck)


@pytest.mark.parametrize("edit, words", [
    (lambda m: m.update(format="mineru-tui-openvino-bundle"), "not a mineru-tui Core AI bundle manifest"),
    (lambda m: m.update(format_version=99), "Core AI bundle format 99"),
    (lambda m: m.update(context="many"), "'context' must be a whole number"),
    (lambda m: m.update(files={"../../etc/hostname": [1, "0" * 64]}), "leads outside the bundle"),
    (lambda m: m.pop("checkpoint_id"), "malformed manifest"),
])
def test_foreign_or_malformed_manifests_are_refused_in_one_line(tmp_path, edit, words):
    b = _copy(tmp_path)
    man = json.loads((b / "manifest.json").read_text())
    edit(man)
    (b / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(BundleError, match=words) as e:
        check_coreai_bundle(b)
    assert "\n" not in str(e.value)


def test_a_tampered_asset_with_matching_checksums_is_one_line(tmp_path):
    """Garbage program bytes whose manifest entry was rewritten to match: the compiler aborts its
    process on them, so the lowering runs in a child and the abort becomes one line."""
    from mineru_tui.engines import EngineError, EngineOptions, open_engine
    from mineru_tui.engines.bundle_files.manifest import record_files
    from mineru_tui.engines.coreai.manifest import ASSETS

    use_session_cache()
    b = _copy(tmp_path)
    (b / "decoder.aimodel" / "main.mlirb").write_bytes(b"\x00garbage" * 64)
    (b / "decoder.aimodel" / "main.hash").write_bytes(os.urandom(32))  # a new ODIX cache key
    man = json.loads((b / "manifest.json").read_text())
    man["files"] = record_files(b, ASSETS)
    (b / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(EngineError, match="cannot be compiled") as e:
        open_engine(EngineOptions(engine="coreai", model=str(tc.TINY_DIR), extra=(("bundle", str(b)),)))
    assert "\n" not in str(e.value) and str(b) in str(e.value)


def test_cli_refuses_a_foreign_folder_in_one_line(tmp_path):
    (tmp_path / "junk").mkdir()
    r = _cli("verify", tmp_path / "junk", "--model", tc.TINY_DIR, cwd=tmp_path)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "not a bundle" in r.stderr


def test_the_odix_is_made_once_per_asset_and_keyed_by_its_program(tmp_path, monkeypatch):
    import subprocess

    from mineru_tui.engines.coreai.runner import CoreAIRunner, odix_dir

    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    b = _copy(tmp_path)
    CoreAIRunner(b / "decoder.aimodel")
    place = odix_dir(b / "decoder.aimodel")
    assert (place / "main-universal.odix").is_file() and place.parent == tmp_path / "cache" / "coreai"

    def refuse(*a, **k):
        raise AssertionError("lowered again")

    monkeypatch.setattr(subprocess, "run", refuse)
    CoreAIRunner(b / "decoder.aimodel")  # the cached ODIX loads; nothing is lowered
    other = tiny_coreai_bundle("int8") / "decoder.aimodel"
    assert odix_dir(other) != place  # another program, another key


def test_loading_prints_nothing_on_stderr(tmp_path, capfd, monkeypatch):
    from mineru_tui.engines.coreai.runner import CoreAIRunner

    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    capfd.readouterr()
    runner = CoreAIRunner(tiny_coreai_bundle() / "vision.aimodel")
    feeds = {"pixel_values": np.zeros((64, 1176), np.float32), "cos": np.ones((64, 16), np.float32),
             "sin": np.zeros((64, 16), np.float32), "key_mask": np.zeros((1, 64), np.float32)}
    assert runner.predict("main", feeds)["image_embeds"].shape == (16, 64)
    out, err = capfd.readouterr()
    assert "ODIE" not in err and out == ""
