"""Memory and decoder settings of the OpenVINO engine: the mapped model files' pages are given
back after each model's first inference (their weights live on in the kernels' own layout) without
changing a token; the decoder's compile settings per precision and ``decoder_activations``."""

from __future__ import annotations

import mmap
import sys

import numpy as np
import pytest

pytest.importorskip("openvino")

from mineru_tui.engines.openvino.bundle import build_openvino_bundle, open_openvino_model  # noqa: E402
from mineru_tui.engines.openvino.runtime import compile_config, release_mapped_files  # noqa: E402
from mineru_tui.engines.numpy import load_model  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps and madvise: Linux")


def resident_bytes_under(root) -> int:
    """Resident bytes of this process's mappings of files under ``root`` (from /proc/self/smaps)."""
    prefix, total, inside = str(root.resolve()), 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                inside = len(head) >= 6 and head[5].startswith(prefix)
            elif inside and line.startswith("Rss:"):
                total += int(head[1]) * 1024
    return total


@linux
def test_release_drops_read_only_mapped_pages_and_keeps_their_bytes(tmp_path):
    data = np.random.default_rng(0).integers(0, 255, 4 << 20, dtype=np.uint8)
    (tmp_path / "w.bin").write_bytes(data.tobytes())
    with open(tmp_path / "w.bin", "rb") as f:
        ro = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view = np.frombuffer(ro, np.uint8)
    assert int(view.sum()) == int(data.sum())  # every page touched
    assert resident_bytes_under(tmp_path) >= 4 << 20
    assert release_mapped_files([tmp_path]) >= 4 << 20
    assert resident_bytes_under(tmp_path) < 1 << 20
    assert np.array_equal(view, data)  # read again: faulted back in from the file
    # a writable private mapping is left alone: its changed pages would be lost
    with open(tmp_path / "w.bin", "r+b") as f:
        rw = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    rw[:4] = b"abcd"
    release_mapped_files([tmp_path])
    assert rw[:4] == b"abcd"
    assert release_mapped_files([tmp_path / "elsewhere"]) == 0
    del view
    ro.close()
    rw.close()


@linux
def test_a_loaded_bundle_keeps_no_mapped_pages_and_gives_the_numpy_engines_tokens(tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    bundle = tmp_path / "b32"
    build_openvino_bundle(str(tc.TINY_DIR), bundle, precision="f32")
    model = open_openvino_model(str(tc.TINY_DIR), bundle=bundle, precision="f32")
    # both models ran once at load (weights repacked) and the files' pages were given back
    # (without the release ≈ 2.3 MB of the tiny model's files stay resident)
    assert resident_bytes_under(tmp_path) < 256 << 10
    ref = load_model(tc.TINY_DIR).generate(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=20, stop_ids=[])
    got = model.generate(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=20, stop_ids=[])
    assert len(set(ref.token_ids)) > 5 and got.token_ids == ref.token_ids


def test_decoder_compile_settings():
    assert compile_config("f32", "CPU", "decoder") == compile_config("f32", "CPU") == {"INFERENCE_PRECISION_HINT": "f32"}
    # default precision: the vision tower keeps the device default (bf16 with AMX); the decoder
    # runs f32 activations, which the CPU plugin quantizes to int8 at its int8-weight matmuls
    assert "INFERENCE_PRECISION_HINT" not in compile_config("default", "CPU")
    assert compile_config("default", "CPU", "decoder")["INFERENCE_PRECISION_HINT"] == "f32"
    assert "INFERENCE_PRECISION_HINT" not in compile_config("default", "CPU", "decoder", "bf16")
    assert compile_config("default", "CPU", "decoder", "split") == compile_config("default", "CPU", "decoder")
    assert "INFERENCE_PRECISION_HINT" not in compile_config("default", "GPU", "decoder")
    with pytest.raises(ValueError, match="decoder_activations"):
        compile_config("default", "CPU", "decoder", "f8")


@pytest.mark.parametrize("acts", ["int8", "bf16", "split"])
def test_both_decoder_activations_follow_numpy_on_the_tiny_model(acts, tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    model = open_openvino_model(str(tc.TINY_DIR), decoder_activations=acts)
    ref = load_model(tc.TINY_DIR).generate(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=4, stop_ids=[])
    got = model.generate(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=4, stop_ids=[])
    assert got.token_ids[:1] == ref.token_ids[:1]  # the first token's margin is large on this page
    text = model.text
    assert (text.prefill_request is not text.request) == (acts == "split")


def test_unknown_decoder_activations_is_one_line():
    from mineru_tui.engines import EngineError, EngineOptions, open_engine

    with pytest.raises(EngineError, match="decoder_activations") as e:
        open_engine(EngineOptions(engine="openvino", model=str(tc.TINY_DIR), extra=(("decoder_activations", "f8"),)))
    assert "\n" not in str(e.value)
