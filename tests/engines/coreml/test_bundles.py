"""Core ML bundles: the MIL programs against the transformers reference, the saved packages'
spec, the fp16 traps, the manifest checks. Runs on Linux through the numpy evaluator."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("coremltools")

from tests.bundle_fixtures import BUCKETS, CHUNK, CONTEXT, copy_bundle, tiny_bundle
from tests.tiny_checkpoint import REF_NPZ, TINY_DIR, rewrite_weights

from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.coreml.evaluate import ProgramEvaluator, load_package_program
from mineru_tui.engines.bundle_files.manifest import Manifest, check_bundle
from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint
from mineru_tui.engines.qwen2vl.rope import mrope_cos_sin, vision_cos_sin


@pytest.fixture(scope="module")
def ref():
    return np.load(REF_NPZ)


@pytest.fixture(scope="module")
def ckpt():
    return load_checkpoint(TINY_DIR)


def _decode_feeds(ckpt, ref, i, L, C):
    """Feeds of decode step i (1…19) of the oracle's greedy run: token ids[i-1] at its position."""
    cfg = ckpt.config.text
    ids, pos = ref["gen.ids"], ref["gen.token_position_ids"]
    slot = L + i - 1
    cos, sin = mrope_cos_sin(np.array([pos[i - 1]]), cfg.head_dim, cfg.rope_theta, cfg.mrope_section)
    emb = np.asarray(ckpt.weights["model.embed_tokens.weight"])[[ids[i - 1]]][None]
    mask = np.where(np.arange(C) <= slot, 0, -1e4).astype(np.float32)[None, None, None]
    return {"inputs_embeds": emb, "cos": cos[None], "sin": sin[None], "mask": mask, "pos": np.array([slot], np.int32)}


def _prefill(run, ref, S, C):
    """The oracle prompt through ``run(feeds)`` in chunks of S (last chunk padded); last logits."""
    E, cos, sin = ref["txt.inputs_embeds"][0], ref["txt.rope_cos"][0], ref["txt.rope_sin"][0]
    L = E.shape[0]
    for s0 in range(0, L, S):
        n = min(S, L - s0)
        pad = S - n
        rows = s0 + np.arange(S)
        feeds = {
            "inputs_embeds": np.concatenate([E[s0:s0 + n], np.zeros((pad, E.shape[1]), np.float32)])[None],
            "cos": np.concatenate([cos[s0:s0 + n], np.ones((pad, cos.shape[1]), np.float32)])[None],
            "sin": np.concatenate([sin[s0:s0 + n], np.zeros((pad, sin.shape[1]), np.float32)])[None],
            "mask": np.where(np.arange(C)[None] <= rows[:, None], 0, -1e4).astype(np.float32)[None, None],
            "pos": np.array([s0], np.int32),
            "last_index": np.array([n - 1], np.int32),
        }
        out = run(feeds)
    return out["logits"][0, 0], L


def test_fp32_decoder_program_matches_transformers(ckpt, ref):
    """Builder programs with fp32 state (interpretation only): chunked prefill + 19 decode steps
    within 1e-4 of the transformers logits (the cache offsets of every chunk are exercised)."""
    from mineru_tui.engines.coreml.mil_text import decoder_program

    C = 96
    pre = ProgramEvaluator(decoder_program(ckpt.weights, ckpt.config.text, chunk=CHUNK, context=C, state_dtype="fp32"))
    dec = ProgramEvaluator(decoder_program(ckpt.weights, ckpt.config.text, chunk=1, context=C, state_dtype="fp32"))
    shape = (ckpt.config.text.num_hidden_layers, ckpt.config.text.num_key_value_heads, C, ckpt.config.text.head_dim)
    state = {"keyCache": np.zeros(shape, np.float32), "valueCache": np.zeros(shape, np.float32)}
    logits, L = _prefill(lambda f: pre.run("main", f, state), ref, CHUNK, C)
    assert np.abs(logits - ref["txt.logits"][-1]).max() < 1e-4
    for i in range(1, 20):
        out = dec.run("main", _decode_feeds(ckpt, ref, i, L, C), state)["logits"][0, 0]
        assert np.abs(out - ref["gen.logits"][i]).max() < 1e-4, f"decode step {i}"


def test_fp32_vision_program_matches_transformers(ckpt, ref):
    """The ViT program on the oracle image padded to a 128-patch bucket: embeds within 1e-4;
    without the key mask the padding changes the result (the mask is what makes buckets work)."""
    from mineru_tui.engines.coreml.mil_vision import vision_program

    vc = ckpt.config.vision
    pv = ref["pre.pixel_values"]
    n, N = pv.shape[0], 128
    cos, sin = vision_cos_sin([tuple(ref["pre.image_grid_thw"][0])], vc.head_dim, vc.rope_theta, 2)
    feeds = {
        "pixel_values": np.concatenate([pv, np.zeros((N - n, pv.shape[1]), np.float32)]),
        "cos": np.concatenate([cos, np.ones((N - n, cos.shape[1]), np.float32)]),
        "sin": np.concatenate([sin, np.zeros((N - n, sin.shape[1]), np.float32)]),
        "key_mask": np.where(np.arange(N) < n, 0, -1e4).astype(np.float32)[None],
    }
    ev = ProgramEvaluator(vision_program(ckpt.weights, vc))
    out = ev.run("main", feeds)["image_embeds"]
    assert out.shape == (N // 4, vc.hidden_size)
    assert np.abs(out[: n // 4] - ref["vis.image_embeds"]).max() < 1e-4
    unmasked = ev.run("main", {**feeds, "key_mask": np.zeros((1, N), np.float32)})["image_embeds"]
    assert np.abs(unmasked[: n // 4] - ref["vis.image_embeds"]).max() > 1e-2


def test_fp16_package_close_to_transformers_and_cache_written_per_layer(ckpt, ref):
    """The saved fp16 decoder (re-loaded from disk): logits near the reference with the same
    greedy tokens, and after prefill every layer's cache rows are written — the stale-read trap
    (repeated read_state merged by coremltools' redundant-op pass) leaves earlier layers empty."""
    ev = ProgramEvaluator(load_package_program(tiny_bundle("fp16") / "decoder.mlpackage"))
    t = ckpt.config.text
    shape = (t.num_hidden_layers, t.num_key_value_heads, CONTEXT, t.head_dim)
    state = {"keyCache": np.zeros(shape, np.float16), "valueCache": np.zeros(shape, np.float16)}
    logits, L = _prefill(lambda f: ev.run("prefill", f, state), ref, CHUNK, CONTEXT)
    for layer in range(t.num_hidden_layers):
        written = np.abs(state["keyCache"][layer]).sum(axis=(0, 2)) > 0  # per slot
        assert written[:L].all() and not written[64:].any(), f"layer {layer}"
    assert np.abs(logits - ref["txt.logits"][-1]).max() < 0.1
    assert int(np.argmax(logits)) == int(ref["gen.ids"][0])
    for i in range(1, 20):
        out = ev.run("decode", _decode_feeds(ckpt, ref, i, L, CONTEXT), state)["logits"][0, 0]
        assert np.abs(out - ref["gen.logits"][i]).max() < 0.1
        assert int(np.argmax(out)) == int(ref["gen.ids"][i])
    emb = ev.run("embed", {"input_ids": ref["txt.input_ids"].astype(np.int32)})["embeds"]
    text_rows = ref["txt.mm_token_type_ids"][0] == 0
    assert np.abs(emb[0][text_rows] - ref["txt.inputs_embeds"][0][text_rows]).max() < 1e-3


def test_rms_norm_does_not_overflow_in_fp16():
    """Rows with |x| up to 7000 (x² > fp16's 65504) through a converted fp16 program stay right."""
    from coremltools.converters.mil.mil import Builder as mb
    from coremltools.converters.mil.mil import types

    from mineru_tui.engines.coreml.build import convert
    from mineru_tui.engines.coreml.mil_ops import layer_norm, rms_norm
    from mineru_tui.engines.coreml.mil_text import _target

    rng = np.random.default_rng(0)
    w = rng.uniform(0.5, 1.5, 64).astype(np.float32)
    bias = rng.normal(size=64).astype(np.float32)

    @mb.program(input_specs=[mb.TensorSpec((4, 64), dtype=types.fp32)], opset_version=_target())
    def prog(x):
        return mb.add(x=rms_norm(x, w, 1e-6), y=layer_norm(x, w, bias, 1e-6), name="y")

    ml = convert(prog)
    ev = ProgramEvaluator(load_package_program_from(ml))
    x = rng.normal(size=(4, 64)).astype(np.float32) * np.array([[1], [300], [2000], [7000]], np.float32)
    got = ev.run("main", {"x": x})["y"].astype(np.float32)
    rms = x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-6) * w
    xc = x - x.mean(-1, keepdims=True)
    ln = xc / np.sqrt((xc**2).mean(-1, keepdims=True) + 1e-6) * w + bias
    assert np.isfinite(got).all()
    assert np.abs(got - (rms + ln)).max() < 0.05


def load_package_program_from(mlmodel):
    import tempfile
    from pathlib import Path

    d = Path(tempfile.mkdtemp())
    mlmodel.save(str(d / "m.mlpackage"))
    return load_package_program(d / "m.mlpackage")


def test_decoder_package_spec(ckpt):
    """Functions, inputs, states, dtypes and sizes of the saved multifunction decoder."""
    import coremltools as ct

    t = ckpt.config.text
    spec = ct.utils.load_spec(str(tiny_bundle("fp16") / "decoder.mlpackage"))
    assert spec.specificationVersion >= 9
    fns = {f.name: f for f in spec.description.functions}
    assert set(fns) == {"prefill", "decode", "embed"}
    assert spec.description.defaultFunctionName == "decode"
    FP32, INT32, FP16 = (ct.proto.FeatureTypes_pb2.ArrayFeatureType.FLOAT32, ct.proto.FeatureTypes_pb2.ArrayFeatureType.INT32,
                         ct.proto.FeatureTypes_pb2.ArrayFeatureType.FLOAT16)

    def inputs(f):
        return {i.name: (i.type.multiArrayType.dataType, list(i.type.multiArrayType.shape)) for i in f.input}

    H, D = t.hidden_size, t.head_dim
    assert inputs(fns["prefill"]) == {
        "inputs_embeds": (FP32, [1, CHUNK, H]), "cos": (FP32, [1, CHUNK, D]), "sin": (FP32, [1, CHUNK, D]),
        "mask": (FP32, [1, 1, CHUNK, CONTEXT]), "pos": (INT32, [1]), "last_index": (INT32, [1])}
    assert inputs(fns["decode"]) == {
        "inputs_embeds": (FP32, [1, 1, H]), "cos": (FP32, [1, 1, D]), "sin": (FP32, [1, 1, D]),
        "mask": (FP32, [1, 1, 1, CONTEXT]), "pos": (INT32, [1])}
    for name in ("prefill", "decode"):
        states = {s.name: (s.type.stateType.arrayType.dataType, list(s.type.stateType.arrayType.shape))
                  for s in fns[name].state}
        want = [t.num_hidden_layers, t.num_key_value_heads, CONTEXT, D]
        assert states == {"keyCache": (FP16, want), "valueCache": (FP16, want)}
        assert [o.name for o in fns[name].output] == ["logits"]
    emb = fns["embed"].input[0]
    assert emb.name == "input_ids" and emb.type.multiArrayType.dataType == INT32
    ranges = emb.type.multiArrayType.shapeRange.sizeRanges
    assert (ranges[1].lowerBound, ranges[1].upperBound) == (1, CONTEXT)


def test_vision_package_spec(ckpt):
    import coremltools as ct

    v = ckpt.config.vision
    spec = ct.utils.load_spec(str(tiny_bundle("fp16") / "vision.mlpackage"))
    by_name = {i.name: i for i in spec.description.input}
    assert set(by_name) == {"pixel_values", "cos", "sin", "key_mask"}
    shapes = [list(s.shape) for s in by_name["pixel_values"].type.multiArrayType.enumeratedShapes.shapes]
    assert shapes == [[n, 3 * 2 * 14 * 14] for n in BUCKETS]
    masks = [list(s.shape) for s in by_name["key_mask"].type.multiArrayType.enumeratedShapes.shapes]
    assert masks == [[1, n] for n in BUCKETS]
    assert [o.name for o in spec.description.output] == ["image_embeds"]
    assert v.head_dim == [list(s.shape) for s in by_name["cos"].type.multiArrayType.enumeratedShapes.shapes][0][1]


def _op_types(package):
    prog = load_package_program(package)
    return {name: [op.op_type for op in f.operations] for name, f in prog.functions.items()}


def test_int8_and_int4_decoders_are_compressed_and_share_weights(ckpt):
    """int8/int4 packages hold blockwise-quantised weights, are smaller than fp16, and the three
    functions share one copy (the merged package is not 3x a single function's weights)."""
    sizes = {}
    for w in ("fp16", "int8", "int4"):
        blob = tiny_bundle(w) / "decoder.mlpackage" / "Data" / "com.apple.CoreML" / "weights" / "weight.bin"
        sizes[w] = blob.stat().st_size
    assert sizes["int4"] < sizes["int8"] < 0.6 * sizes["fp16"]
    ops = _op_types(tiny_bundle("int8") / "decoder.mlpackage")
    # coremltools compresses weights of more than 2048 elements: in the tiny decoder q, o, gate, up,
    # down (k/v are 32x64 = 2048) of both layers, plus the tied lm_head table
    assert ops["decode"].count("constexpr_blockwise_shift_scale") == 2 * 5 + 1
    assert ops["embed"].count("constexpr_blockwise_shift_scale") == 1
    text_params = sum(int(np.prod(ckpt.weights.shape_of(k))) for k in ckpt.weights if k.startswith("model."))
    assert text_params * 2 <= sizes["fp16"] < 1.2 * text_params * 2  # one fp16 copy, not one per function


def test_manifest_records_the_build(ckpt):
    import coremltools as ct

    man = check_bundle(tiny_bundle("int8"), ckpt, full=True)
    assert man.weights == "int8" and man.context == CONTEXT and man.prefill_chunk == CHUNK
    assert man.buckets == list(BUCKETS)
    assert man.coremltools_version == ct.__version__
    assert man.token_ids["image_token_id"] == ckpt.config.image_token_id
    assert man.token_ids["stop_token_ids"] == list(ckpt.stop_token_ids)
    assert man.functions["decoder.mlpackage"] == ["prefill", "decode", "embed"]
    assert any(k.endswith("weight.bin") for k in man.files)


def test_damaged_bundle_is_refused(tmp_path, ckpt):
    b = copy_bundle("fp16", tmp_path / "b")
    blob = b / "decoder.mlpackage" / "Data" / "com.apple.CoreML" / "weights" / "weight.bin"
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size, different bytes: caught by the checksum
    blob.write_bytes(bytes(data))
    check_bundle(b, ckpt)  # the quick check (sizes) passes ...
    with pytest.raises(BundleError, match="does not match its checksum"):
        check_bundle(b, ckpt, full=True)
    blob.write_bytes(bytes(data[:-10]))
    with pytest.raises(BundleError, match="damaged bundle.*weight.bin has"):
        check_bundle(b, ckpt)
    blob.unlink()
    with pytest.raises(BundleError, match="weight.bin is missing"):
        check_bundle(b, ckpt)


def test_unknown_file_missing_or_bad_manifest_is_refused(tmp_path, ckpt):
    b = copy_bundle("fp16", tmp_path / "b")
    (b / "vision.mlpackage" / "stray.bin").write_bytes(b"x")
    with pytest.raises(BundleError, match="stray.bin is not in the manifest"):
        check_bundle(b, ckpt)
    (b / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match="unreadable manifest"):
        check_bundle(b, ckpt)
    (b / "manifest.json").unlink()
    with pytest.raises(BundleError, match="not a bundle"):
        check_bundle(b, ckpt)
    with pytest.raises(BundleError, match="no such bundle"):
        check_bundle(tmp_path / "nothing", ckpt)
    c = copy_bundle("fp16", tmp_path / "c")
    raw = json.loads((c / "manifest.json").read_text())
    raw["format_version"] = 99
    (c / "manifest.json").write_text(json.dumps(raw))
    with pytest.raises(BundleError, match="bundle format 99"):
        Manifest.read(c)


def test_bundle_of_another_checkpoint_is_refused(tmp_path):
    """Same shapes, one weight changed: the checkpoint identity differs → refused in one line."""
    def edit(t):
        t["model.layers.1.mlp.down_proj.weight"] = t["model.layers.1.mlp.down_proj.weight"] * 1.01

    other = load_checkpoint(rewrite_weights(tmp_path / "other", edit))
    with pytest.raises(BundleError, match="built from another checkpoint") as e:
        check_bundle(tiny_bundle("fp16"), other)
    assert "\n" not in str(e.value)


def test_transformers5_and_sharded_layouts_have_the_same_identity(tmp_path, ckpt):
    """The identity is over parsed config and tensor bytes: a bundle serves the same weights in
    another file layout."""
    from tests.tiny_checkpoint import make_sharded_checkpoint, make_v5_checkpoint

    from mineru_tui.engines.bundle_files.manifest import checkpoint_identity

    ident = checkpoint_identity(ckpt)
    assert checkpoint_identity(load_checkpoint(make_v5_checkpoint(tmp_path / "v5"))) == ident
    assert checkpoint_identity(load_checkpoint(make_sharded_checkpoint(tmp_path / "sh"))) == ident
    check_bundle(tiny_bundle("fp16"), load_checkpoint(tmp_path / "v5"))


def test_compiled_model_place_is_fixed_per_bundle_content(tmp_path, monkeypatch):
    """Core ML compiles a bundle once, into a cache path keyed by the package checksums: the same
    bundle anywhere maps to the same place, a rebuilt (different) one to a new place."""
    from mineru_tui.engines.coreml.runtime import compiled_path

    monkeypatch.setenv("MINERU_TUI_CACHE", str(tmp_path))
    a = Manifest.read(tiny_bundle("fp16"))
    copy = copy_bundle("fp16", tmp_path / "copy")
    p = compiled_path(tiny_bundle("fp16"), a, "decoder.mlpackage")
    assert p == compiled_path(copy, Manifest.read(copy), "decoder.mlpackage")
    assert p.parent == tmp_path / "compiled" and p.suffix == ".mlmodelc"
    assert p != compiled_path(tiny_bundle("int8"), Manifest.read(tiny_bundle("int8")), "decoder.mlpackage")
    assert p != compiled_path(tiny_bundle("fp16"), a, "vision.mlpackage")
