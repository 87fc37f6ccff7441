"""OpenVINO bundles of the tiny checkpoint: build → verify round trip through the command line,
the engine loading the bundle from the cache folder (compiled-model cache on), and refusals of a
damaged bundle or one built from another checkpoint."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("openvino")

from tests import tiny_checkpoint as tc  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def _cli(*args, cache: Path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MINERU_TUI_CACHE=str(cache), HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "mineru_tui", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_build_verify_and_load_from_the_cache(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    r = _cli("bundle", "build", "--target", "openvino", "--precision", "f32", "--model", tc.TINY_DIR, cache=cache)
    assert r.returncode == 0, r.stderr
    bundle = Path(r.stdout.strip())
    assert bundle.parent == cache / "bundles" and bundle.name.endswith(".openvino-f32")
    man = json.loads((bundle / "manifest.json").read_text())
    assert man["format"] == "mineru-tui-openvino-bundle" and man["weights"] == "f32"
    assert set(man["files"]) == {"vision.xml", "vision.bin", "decoder.xml", "decoder.bin"}

    r = _cli("bundle", "verify", bundle, "--model", tc.TINY_DIR, "-n", "12", "-q", cache=cache)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "equal greedy tokens: 12/12" in r.stdout and "PASS" in r.stdout

    r = _cli("bundle", "build", "--target", "openvino", "--model", tc.TINY_DIR, "-q", cache=cache)
    assert r.returncode == 0, r.stderr
    int8 = Path(r.stdout.strip())
    assert int8.name.endswith(".openvino-int8") and json.loads((int8 / "manifest.json").read_text())["weights"] == "int8"
    r = _cli("bundle", "verify", int8, "--model", tc.TINY_DIR, "-n", "12", "-q", cache=cache)
    assert r.returncode == 0, r.stdout + r.stderr  # within the int8 floor
    assert "int8 bundle needs at least" in r.stdout

    # the engine finds the bundle in the cache folder and compiles it once into CACHE_DIR
    monkeypatch.setenv("MINERU_TUI_CACHE", str(cache))
    from mineru_tui.engines import EngineOptions, Request, open_engine
    from mineru_tui.engines.events import Done

    engine = open_engine(EngineOptions(engine="openvino", model=str(tc.TINY_DIR), extra=(("precision", "f32"),)))
    assert engine.name == "openvino"
    done = [e for e in engine.stream([Request(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=5)])
            if isinstance(e, Done)][0]
    assert len(done.results[0].token_ids) == 5
    assert any((cache / "openvino").glob("*/*.blob"))  # one folder per precision hint


def test_damaged_or_foreign_bundles_are_refused_in_one_line(tmp_path):
    cache = tmp_path / "cache"
    r = _cli("bundle", "build", "--target", "openvino", "--precision", "f32", "--model", tc.TINY_DIR, "-q",
             "--out", tmp_path / "b", cache=cache)
    assert r.returncode == 0, r.stderr
    broken = tmp_path / "broken"
    shutil.copytree(tmp_path / "b", broken)
    with open(broken / "decoder.bin", "r+b") as f:
        f.seek(1000)
        f.write(b"\xff\xfe\xfd\xfc")
    r = _cli("bundle", "verify", broken, "--model", tc.TINY_DIR, "-q", cache=cache)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "checksum" in r.stderr

    # another checkpoint: the tiny one with one tensor changed
    other = tmp_path / "other"
    shutil.copytree(tc.TINY_DIR, other)
    tensors = tc.read_tensors(other / "model.safetensors")
    tensors["model.norm.weight"] = tensors["model.norm.weight"] * 2
    from safetensors.numpy import save_file

    save_file(tensors, str(other / "model.safetensors"))
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.openvino.bundle import open_openvino_model

    with pytest.raises(BundleError, match="built from another checkpoint") as e:
        open_openvino_model(str(other), bundle=tmp_path / "b", precision="f32")
    assert "\n" not in str(e.value)
    with pytest.raises(BundleError, match="needs int8 weights"):
        open_openvino_model(str(tc.TINY_DIR), bundle=tmp_path / "b", precision="default")


def test_the_engine_builds_its_bundle_once_and_replaces_a_stale_one(tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    from mineru_tui.engines.openvino.bundle import openvino_bundle_dir
    from mineru_tui.engines import EngineOptions, open_engine

    model = tmp_path / "model"
    shutil.copytree(tc.TINY_DIR, model)
    where = openvino_bundle_dir(str(model), "default")
    assert not where.exists()
    open_engine(EngineOptions(engine="openvino", model=str(model))).close()
    man = json.loads((where / "manifest.json").read_text())
    stamp = (where / "decoder.bin").stat().st_mtime_ns
    open_engine(EngineOptions(engine="openvino", model=str(model))).close()  # loaded, not rebuilt
    assert (where / "decoder.bin").stat().st_mtime_ns == stamp
    # the checkpoint changes in place: the cached bundle is stale and is rebuilt
    tensors = tc.read_tensors(model / "model.safetensors")
    tensors["model.norm.weight"] = tensors["model.norm.weight"] * 2
    from safetensors.numpy import save_file

    save_file(tensors, str(model / "model.safetensors"))
    open_engine(EngineOptions(engine="openvino", model=str(model))).close()
    assert json.loads((where / "manifest.json").read_text())["checkpoint_id"] != man["checkpoint_id"]


def test_a_bundle_of_an_older_format_is_rebuilt_by_the_engine_and_refused_when_named(tmp_path, monkeypatch):
    """A cached bundle written by an earlier mineru-tui (another graph interface) is replaced on
    the engine's first use; named explicitly, it is refused in one line that says to rebuild."""
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    from mineru_tui.engines.openvino.bundle import FORMAT_VERSION, openvino_bundle_dir
    from mineru_tui.engines import EngineError, EngineOptions, open_engine

    model = tmp_path / "model"
    shutil.copytree(tc.TINY_DIR, model)
    where = openvino_bundle_dir(str(model), "f32")
    f32 = (("precision", "f32"),)
    open_engine(EngineOptions(engine="openvino", model=str(model), extra=f32)).close()
    raw = json.loads((where / "manifest.json").read_text())
    raw["format_version"] = FORMAT_VERSION - 1
    (where / "manifest.json").write_text(json.dumps(raw))
    stamp = (where / "vision.bin").stat().st_mtime_ns

    with pytest.raises(EngineError, match="rebuild") as e:
        open_engine(EngineOptions(engine="openvino", model=str(model), extra=f32 + (("bundle", str(where)),)))
    assert "\n" not in str(e.value)

    engine = open_engine(EngineOptions(engine="openvino", model=str(model), extra=f32))
    try:
        assert json.loads((where / "manifest.json").read_text())["format_version"] == FORMAT_VERSION
        assert (where / "vision.bin").stat().st_mtime_ns != stamp
        from mineru_tui.engines import Request
        from mineru_tui.engines.events import Done

        done = [ev for ev in engine.stream([Request(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=3)])
                if isinstance(ev, Done)][0]
        assert len(done.results[0].token_ids) == 3
    finally:
        engine.close()


@pytest.mark.parametrize("text, message", [
    ("{", "unreadable manifest"),
    ('{"format": "mineru-tui-openvino-bundle", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "nested too deeply"),
    ('{"format": "mineru-tui-coreml-bundle", "format_version": 1}', "not a mineru-tui OpenVINO bundle manifest"),
    ('{"format": "mineru-tui-openvino-bundle", "format_version": 1}', "OpenVINO bundle format 1"),
], ids=["truncated", "nested", "core-ml", "old-format"])
def test_a_bad_manifest_is_one_line(tmp_path, text, message):
    # the reader is the Core ML bundles' (bundles.manifest.read_manifest_json): a manifest nested
    # past the JSON parser's depth used to escape the OpenVINO reader as a RecursionError
    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.openvino.bundle import read_manifest

    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(BundleError, match=message) as e:
        read_manifest(tmp_path)
    assert "\n" not in str(e.value)
