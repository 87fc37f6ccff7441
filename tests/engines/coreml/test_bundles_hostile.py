"""Tampered bundles: ``bundle verify`` ends in one line, with no traceback, and looks at
nothing outside the bundle (issue 19, points 5 and 12). Copies of the tiny fp16 bundle are
edited in a temporary folder; every case runs the real command."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("coremltools")

from tests.bundle_fixtures import copy_bundle
from tests.tiny_checkpoint import TINY_DIR

from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.manifest import check_bundle

ROOT = Path(__file__).resolve().parents[3]


def verify(bundle: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mineru_tui", "bundle", "verify", str(bundle), "--model",
                           str(TINY_DIR), "-n", "2", "--backend", "evaluator", "-q"], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-3000:]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return copy_bundle("fp16", tmp_path_factory.mktemp("b") / "fp16")


def tampered(base: Path, tmp_path: Path, edit) -> Path:
    b = tmp_path / "b"
    import shutil
    shutil.copytree(base, b)
    man = json.loads((b / "manifest.json").read_text())
    out = edit(man, b)
    (b / "manifest.json").write_text(out if isinstance(out, str) else json.dumps(man))
    return b


def outside(man, b):
    secret = b.parent / "secret.txt"
    secret.write_text("private")
    man["files"]["../secret.txt"] = [7, hashlib.sha256(b"private").hexdigest()]


def test_paths_in_a_manifest_stay_inside_the_bundle(base, tmp_path):
    b = tampered(base, tmp_path, outside)
    with pytest.raises(BundleError, match="not a path inside the bundle's packages"):
        check_bundle(b, full=True)
    assert "../secret.txt" in one_error_line(verify(b))


def test_a_link_inside_a_package_leading_out_is_refused(base, tmp_path):
    def link(man, b):
        (b.parent / "secret.txt").write_text("private")
        target = b / "decoder.mlpackage" / "link.txt"
        os.symlink(b.parent / "secret.txt", target)
        man["files"]["decoder.mlpackage/link.txt"] = [7, hashlib.sha256(b"private").hexdigest()]
    b = tampered(base, tmp_path, link)
    with pytest.raises(BundleError, match="leads outside the bundle"):
        check_bundle(b, full=True)


@pytest.mark.parametrize("edit", [
    lambda man, b: man.update(files=list(man["files"])),
    lambda man, b: man["files"].update({next(iter(man["files"])): "x"}),
    lambda man, b: man.update(layers="2"),
    lambda man, b: man.update(buckets="64"),
    lambda man, b: "[" * 200_000 + "]" * 200_000,
    lambda man, b: '{"format": "mineru-tui-coreml-bundle", "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
], ids=["files-list", "entry-string", "layers-string", "buckets-string", "deep", "deep-inside"])
def test_a_manifest_of_the_wrong_shape_is_one_line(base, tmp_path, edit):
    line = one_error_line(verify(tampered(base, tmp_path, edit)))
    assert "manifest" in line


def test_a_garbage_package_manifest_is_one_line(base, tmp_path):
    def garbage(man, b):  # the package's own Manifest.json, recorded consistently
        inner = b / "decoder.mlpackage" / "Manifest.json"
        inner.write_bytes(b"\x00garbage{")
        man["files"]["decoder.mlpackage/Manifest.json"] = [inner.stat().st_size,
                                                           hashlib.sha256(inner.read_bytes()).hexdigest()]
    line = one_error_line(verify(tampered(base, tmp_path, garbage)))
    assert "cannot be loaded" in line or "damaged" in line
