"""int8 vision: the vision tower's activations quantized to int8 at its int8-weight matmuls (VNNI),
chosen by itself on a CPU with VNNI and no AMX, forced with ``vision_activations``; its image
embeddings stay close to numpy's (cosine per token) on the tiny checkpoint."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("openvino")

from mineru_tui.engines.numpy import load_model  # noqa: E402
from mineru_tui.engines.openvino.bundle import open_openvino_model  # noqa: E402
from mineru_tui.engines.openvino.runtime import (compile_config, int8_vision_wins,  # noqa: E402
                                                 onednn_capped, vision_activations_for)
from mineru_tui.engines.qwen2vl.preprocess import preprocess_image  # noqa: E402
from tests import tiny_checkpoint as tc  # noqa: E402

# /proc/cpuinfo flags of a few CPU classes (abridged to what decides)
ZEN4 = {"avx2", "avx512f", "avx512_vnni", "avx512_bf16"}  # AMD Zen 4/5: VNNI, bf16, no AMX
ALDER_LAKE = {"avx2", "avx_vnni"}  # Intel client since 12th gen: AVX2 + VNNI
SAPPHIRE_RAPIDS = {"avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_bf16", "amx_int8", "amx_tile"}
HASWELL = {"avx2", "fma"}  # no VNNI: int8 has no fast dot product


def test_int8_vision_is_chosen_where_there_is_vnni_and_no_amx():
    assert int8_vision_wins(ZEN4) and int8_vision_wins(ALDER_LAKE)
    assert not int8_vision_wins(SAPPHIRE_RAPIDS) and not int8_vision_wins(HASWELL)
    assert not int8_vision_wins(set())  # flags unknown (not Linux): the device default
    assert vision_activations_for("auto", "CPU", frozenset(ZEN4)) == "int8"
    assert vision_activations_for("auto", "CPU", frozenset(SAPPHIRE_RAPIDS)) == "bf16"
    assert vision_activations_for("auto", "GPU", frozenset(ZEN4)) == "bf16"
    assert vision_activations_for("int8", "CPU", frozenset(SAPPHIRE_RAPIDS)) == "int8"  # forced
    assert vision_activations_for("bf16", "CPU", frozenset(ZEN4)) == "bf16"
    with pytest.raises(ValueError, match="vision_activations"):
        vision_activations_for("int4")


def test_a_onednn_cap_below_amx_makes_auto_pick_as_without_amx(monkeypatch):
    # ONEDNN_MAX_CPU_ISA binds OpenVINO's matmul kernels: capped below AMX, the AMX CPU's vision
    # runs bf16 without tiles, where int8 on VNNI wins (docs/openvino.md, "Measured")
    assert onednn_capped(SAPPHIRE_RAPIDS, "AVX512_CORE_BF16") == frozenset(ZEN4 | {"avx2"})
    assert onednn_capped(SAPPHIRE_RAPIDS, "avx512_core_vnni") == frozenset(ZEN4 | {"avx2"})
    assert onednn_capped(SAPPHIRE_RAPIDS, "AVX512_CORE_AMX") == frozenset(SAPPHIRE_RAPIDS)
    assert onednn_capped(SAPPHIRE_RAPIDS, "ALL") == onednn_capped(SAPPHIRE_RAPIDS, None) == frozenset(SAPPHIRE_RAPIDS)
    assert not int8_vision_wins(onednn_capped(SAPPHIRE_RAPIDS, "AVX512_CORE"))  # no VNNI left
    assert int8_vision_wins(onednn_capped(ALDER_LAKE, "AVX2_VNNI"))
    assert not int8_vision_wins(onednn_capped(ALDER_LAKE, "AVX2"))
    from mineru_tui.engines.openvino import runtime

    monkeypatch.setattr(runtime, "cpu_flags", lambda: frozenset(SAPPHIRE_RAPIDS))
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    assert vision_activations_for("auto", "CPU") == "bf16"
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_BF16")
    assert vision_activations_for("auto", "CPU") == "int8"
    assert vision_activations_for("bf16", "CPU") == "bf16"  # forced stays forced


def test_vision_compile_settings():
    # int8: an f32 hint, under which the CPU plugin quantizes the activations of int8-weight
    # matmuls on the fly; bf16: the device default; f32 precision: f32 whatever was asked
    assert compile_config("default", "CPU", vision_activations="int8") == {"INFERENCE_PRECISION_HINT": "f32"}
    assert "INFERENCE_PRECISION_HINT" not in compile_config("default", "CPU", vision_activations="bf16")
    assert "INFERENCE_PRECISION_HINT" not in compile_config("default", "GPU", vision_activations="int8")
    assert compile_config("f32", "CPU", vision_activations="bf16") == {"INFERENCE_PRECISION_HINT": "f32"}
    with pytest.raises(ValueError, match="vision_activations"):
        compile_config("default", "CPU", vision_activations="auto")


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.mark.parametrize("acts", ["int8", "bf16"])
def test_image_embeddings_stay_close_to_numpys(acts, tmp_path, monkeypatch):
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    ref_model = load_model(tc.TINY_DIR)
    pre = preprocess_image(str(tc.REF_PNG), ref_model.checkpoint.preprocessor)
    ref = ref_model.vision(pre.pixel_values, [pre.grid_thw])
    model = open_openvino_model(str(tc.TINY_DIR), vision_activations=acts)
    assert model.vision.activations == acts
    got = model.vision(pre.pixel_values, [pre.grid_thw])
    assert got.shape == ref.shape
    cos = _cosines(ref, got)
    assert cos.min() > 0.99, (acts, float(cos.min()))  # per token; measured ≥ 0.999 (int8 and bf16)
    first = ref_model.generate(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=1, stop_ids=[])
    got_first = model.generate(str(tc.REF_PNG), "\nText Recognition:", max_new_tokens=1, stop_ids=[])
    assert got_first.token_ids == first.token_ids  # the first token's margin is large on this page


def test_unknown_vision_activations_is_one_line():
    from mineru_tui.engines import EngineError, EngineOptions, open_engine

    with pytest.raises(EngineError, match="vision_activations") as e:
        open_engine(EngineOptions(engine="openvino", model=str(tc.TINY_DIR), extra=(("vision_activations", "f8"),)))
    assert "\n" not in str(e.value)


def test_one_compiled_cache_serves_both_activations(tmp_path, monkeypatch):
    """OpenVINO's compiled-model cache keys leave out the precision hint: int8 (f32 hint) then
    bf16 in one cache folder loaded the int8 blob for bf16 and gave NaNs. Each hint has its own
    folder now; both models compile from a bundle into the same cache and stay numpy's."""
    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path / "cache"))
    ref_model = load_model(tc.TINY_DIR)
    pre = preprocess_image(str(tc.REF_PNG), ref_model.checkpoint.preprocessor)
    ref = ref_model.vision(pre.pixel_values, [pre.grid_thw])
    for acts in ("int8", "bf16", "int8"):
        got = open_openvino_model(str(tc.TINY_DIR), vision_activations=acts, save=True).vision(
            pre.pixel_values, [pre.grid_thw])
        assert _cosines(ref, got).min() > 0.99, acts
    assert sorted(p.name for p in (tmp_path / "cache" / "openvino").iterdir()) == ["device-default", "hint-f32"]
