"""The Ray recipe (examples/ray_fleet.py): runs only where ray is installed (not a dependency,
not in the test extra: ~600 MB); two real ``serve`` processes, one actor each."""

from __future__ import annotations

import importlib.util

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (the recipe is optional: pip install ray)")

from tests.server_helpers import ROOT, ServeProcess  # noqa: E402 (only when ray is there)


def test_files_spread_over_one_actor_per_server():
    spec = importlib.util.spec_from_file_location("ray_fleet", ROOT / "examples" / "ray_fleet.py")
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    a, b = ServeProcess(), ServeProcess()
    try:
        ray.init(num_cpus=2, include_dashboard=False)
        files = [str(ROOT / "examples" / "sample.docx")] * 4
        results = recipe.read_files(files, [a.url, b.url])
        assert [r["file"] for r in results] == files
        assert all("markdown" in r and r["markdown"] for r in results)
        assert {r["server"] for r in results} == {a.url, b.url}
    finally:
        ray.shutdown()
        a.stop()
        b.stop()
