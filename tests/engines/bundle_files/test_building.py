"""bundle_files.building: the steps every bundle build ends with (Core ML and Core AI)."""

from __future__ import annotations

import json

import pytest

from mineru_tui.engines.bundle_files.building import building, seal
from mineru_tui.engines.bundle_files.manifest import PACKAGES, Manifest, check_bundle, file_digest


def _manifest() -> Manifest:
    return Manifest(model="m", checkpoint_id="c", weights="fp16", context=8, prefill_chunk=2, buckets=[4],
                    hidden_size=1, head_dim=1, layers=1, kv_heads=1, vocab_size=1, vision_head_dim=1,
                    vision_out=1, token_ids={}, dtypes={}, functions={}, coremltools_version="0")


def _packages(work, text: str) -> None:
    for pkg in PACKAGES:
        (work / pkg / "Data").mkdir(parents=True)
        (work / pkg / "Data" / "weights.bin").write_text(text * 100_000)  # 0.3 MB a package


def test_a_finished_build_replaces_the_old_bundle_and_leaves_nothing_beside_it(tmp_path):
    out = tmp_path / "bundle"
    (out / "old").mkdir(parents=True)
    with building(out) as work:
        assert work.parent == tmp_path and work != out and not (out / "vision.mlpackage").exists()
        _packages(work, "new")
        seal(_manifest(), work, PACKAGES, started=0.0, vision_s=1.5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle"]
    assert not (out / "old").exists()
    man = check_bundle(out, full=True)  # every file recorded, with its checksum
    weights = out / "vision.mlpackage" / "Data" / "weights.bin"
    assert man.files["vision.mlpackage/Data/weights.bin"] == [300_000, file_digest(weights)]
    assert man.build["vision_s"] == 1.5 and man.build["total_s"] > 0
    assert man.build["vision_mb"] == man.build["decoder_mb"] == 0.3


@pytest.mark.parametrize("error", [RuntimeError("conversion failed"), KeyboardInterrupt()])
def test_a_failed_build_leaves_the_old_bundle_as_it_was_and_no_temporary_folder(tmp_path, error):
    out = tmp_path / "bundle"
    out.mkdir()
    (out / "manifest.json").write_text(json.dumps({"old": True}))
    with pytest.raises(type(error)):
        with building(out) as work:
            _packages(work, "new")
            raise error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundle"]
    assert json.loads((out / "manifest.json").read_text()) == {"old": True}


def test_a_build_into_a_new_folder_makes_its_parents(tmp_path):
    out = tmp_path / "cache" / "models" / "bundle"
    with building(out) as work:
        _packages(work, "x")
        seal(_manifest(), work, PACKAGES, started=0.0)
    assert (out / "manifest.json").is_file() and (out / "decoder.mlpackage" / "Data" / "weights.bin").is_file()
