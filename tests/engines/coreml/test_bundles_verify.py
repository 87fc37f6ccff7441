"""Bundles end to end: the reader's host side over the bundle's forward passes (numpy evaluator
here, Core ML on macOS) against the numpy engine; ``bundle verify`` / ``bundle build`` on the
command line; the Core ML engine's worker process."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("coremltools")

from tests.bundle_fixtures import CONTEXT, copy_bundle, tiny_bundle
from tests.tiny_checkpoint import REF_PNG, TINY_DIR

from mineru_tui.engines.coreml.runtime import open_bundle_model
from mineru_tui.engines.bundle_files.verify import AGREEMENT_FLOOR
from mineru_tui.engines.coreml.verify import verify_bundle
from mineru_tui.engines.numpy import load_model

ROOT = Path(__file__).resolve().parents[3]
MACOS = sys.platform == "darwin"


def _png(w: int, h: int, seed: int) -> bytes:
    from PIL import Image

    rng = np.random.default_rng(seed)
    img = Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


# (image, prompt): the oracle image (72 patches → bucket 128), a 56x56 crop (16 → bucket 64, heavy
# padding), a 224x112 crop (128 patches: a bucket exactly), a 196x140 one (140 → bucket 256), text only
REQUESTS = [
    (str(REF_PNG), "\nText Recognition:"),
    (_png(56, 56, 1), "\nFormula Recognition:"),
    (_png(224, 112, 2), "\nTable Recognition:"),
    (_png(196, 140, 3), "\nLayout Detection:"),
    (None, "hello world"),
]
KNOBS = dict(max_new_tokens=12, stop_ids=[], no_repeat_ngram_size=0)


@pytest.fixture(scope="module")
def reference():
    from mineru_tui.engines.numpy import load_model

    return load_model(TINY_DIR)


@pytest.fixture(scope="module")
def fp16_model():
    from mineru_tui.engines import numpy_vision_tower

    return open_bundle_model(tiny_bundle("fp16"), str(TINY_DIR), backend="evaluator",
                             vision_fallback=numpy_vision_tower)


def test_fp16_bundle_gives_the_numpy_engines_greedy_tokens(reference, fp16_model):
    """Free-running greedy decoding, several images (every bucket, padded or not) and prompts."""
    for image, prompt in REQUESTS:
        want = reference.generate(image, prompt, **KNOBS)
        got = fp16_model.generate(image, prompt, **KNOBS)
        assert got.token_ids == want.token_ids, prompt
        assert got.text == want.text


def test_fp16_bundle_batch_matches_one_by_one(reference, fp16_model):
    """A batch of three (one state per sequence, left-padded prompts, rows leaving the batch)."""
    items = REQUESTS[:3]
    got = fp16_model.generate_batch(items, **KNOBS)
    want = [reference.generate(i, p, **KNOBS) for i, p in items]
    assert [g.token_ids for g in got] == [w.token_ids for w in want]


def test_generation_stops_at_the_bundles_context(fp16_model):
    res = fp16_model.generate(None, "hello world", max_new_tokens=1000, stop_ids=[], no_repeat_ngram_size=0)
    assert res.finish_reason == "length"
    assert res.prompt_tokens + len(res.token_ids) == CONTEXT


def test_verify_fp16_passes_with_every_token_equal():
    rep = verify_bundle(tiny_bundle("fp16"), str(TINY_DIR), reference=lambda: load_model(TINY_DIR), image=str(REF_PNG), max_new_tokens=20, backend="evaluator")
    assert rep.steps == 20 and rep.equal == 20 and rep.first_diff is None and rep.passed
    assert 0 < rep.max_logit_diff < 0.1  # fp16 rounding, measured 4e-2 (coreml-build.md §2.2)


def test_int8_agreement_is_measured_and_held_to_its_floor():
    """Teacher-forced greedy agreement of the int8 bundle over the test requests. Measured on the
    tiny random checkpoint: 15-16 of 16 per request (94-100 %), held to verify.AGREEMENT_FLOOR."""
    reps = [verify_bundle(tiny_bundle("int8"), str(TINY_DIR), reference=lambda: load_model(TINY_DIR), image=i, prompt=p,
                          max_new_tokens=16, backend="evaluator") for i, p in REQUESTS[:4]]
    for r in reps:
        assert r.agreement >= AGREEMENT_FLOOR["int8"], r.lines()
        assert r.passed
    assert max(r.max_logit_diff for r in reps) > 0.05  # it is quantised: logits do move


def test_a_failing_comparison_is_reported():
    from mineru_tui.engines.bundle_files.verify import compare

    ref = [np.array([[0.0, 1.0, 0.5]], np.float32), np.array([[2.0, 1.0, 0.0]], np.float32)]
    got = [np.array([[0.0, 1.0, 0.5]], np.float32), np.array([[0.0, 1.0, 0.2]], np.float32)]
    rep = compare(ref, got, "fp16")
    assert (rep.steps, rep.equal, rep.first_diff) == (2, 1, 1)
    assert rep.max_logit_diff == pytest.approx(2.0)
    assert not rep.passed and rep.lines()[-1].startswith("result: FAIL")


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "mineru_tui", *args], check=False, capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env={**os.environ, **(env or {})})


def test_cli_verify_passes_and_prints_the_report():
    out = _cli("bundle", "verify", str(tiny_bundle("fp16")), "--model", str(TINY_DIR), "-n", "8", "--backend", "evaluator")
    assert out.returncode == 0, out.stderr
    assert "equal greedy tokens: 8/8 (100.0%)" in out.stdout
    assert "result: PASS" in out.stdout


def test_cli_refuses_a_damaged_bundle_in_one_line(tmp_path):
    b = copy_bundle("fp16", tmp_path / "b")
    (b / "decoder.mlpackage" / "Data" / "com.apple.CoreML" / "weights" / "weight.bin").write_bytes(b"oops")
    out = _cli("bundle", "verify", str(b), "--model", str(TINY_DIR), "--backend", "evaluator")
    assert out.returncode == 1
    assert out.stderr.strip().count("\n") == 0 and out.stderr.startswith("error: ") and "damaged bundle" in out.stderr
    assert out.stdout == ""


BLOCK_TORCH = (
    "import builtins, sys\n"
    "real = builtins.__import__\n"
    "def guard(name, *a, **k):\n"
    "    if name == 'torch' or name.startswith('torch.'):\n"
    "        raise ImportError('torch is blocked in this test')\n"
    "    return real(name, *a, **k)\n"
    "builtins.__import__ = guard\n"
    "from mineru_tui.cli import main\n"
    "sys.argv = ['mineru-tui'] + sys.argv[1:]\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    print('torch imported' if 'torch' in sys.modules else 'no torch', file=sys.stderr)\n"
)


def test_cli_build_without_torch_into_the_cache_folder(tmp_path):
    """`bundle build` (torch imports blocked: the builder is torch-free) writes to the cache folder
    by default, progress on stderr, the bundle's path on stdout."""
    out = subprocess.run([sys.executable, "-c", BLOCK_TORCH, "bundle", "build", "--model", str(TINY_DIR),
                          "--weights", "int4", "--context", "64", "--chunk", "8", "--buckets", "64"],
                         check=False, capture_output=True, text=True, cwd=ROOT, timeout=300,
                         env={**os.environ, "MINERU_TUI_CACHE": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stderr.strip().endswith("no torch")
    where = Path(out.stdout.strip())
    assert where.parent == tmp_path / "bundles" and (where / "manifest.json").is_file()
    assert "decoder: saved" in out.stderr and "bundle ready" in out.stderr
    quiet = _cli("bundle", "build", "--model", str(TINY_DIR), "-q", "--out", str(tmp_path / "q"), "--buckets", "70")
    assert quiet.returncode == 1 and quiet.stderr.strip() == (
        "error: vision buckets [70]: each must be a positive multiple of 4 (the 2x2 merge window)")


def test_cli_build_reports_a_bad_model_in_one_line(tmp_path):
    bad = _cli("bundle", "build", "--model", str(tmp_path / "nope"), "--out", str(tmp_path / "c"))
    assert bad.returncode == 1 and bad.stderr.startswith("error: ") and bad.stderr.strip().count("\n") == 0
    assert not (tmp_path / "c").exists() and bad.stdout == ""


# ----------------------------------------------------------------------------- the engine


@pytest.mark.skipif(MACOS, reason="checks the message shown where Core ML cannot run")
def test_coreml_engine_off_macos_fails_in_one_line():
    from mineru_tui.engines import EngineError, EngineOptions, open_engine
    from mineru_tui.engines.coreml.engine import available_for

    with pytest.raises(EngineError) as e:
        open_engine(EngineOptions(engine="coreml", model=str(TINY_DIR)))
    assert "needs macOS" in str(e.value) and "mineru-tui bundle verify" in str(e.value) and "\n" not in str(e.value)
    assert not available_for(EngineOptions(model=str(TINY_DIR), extra=(("bundle", str(tiny_bundle("fp16"))),)))


def test_engine_without_a_bundle_says_how_to_build_one(tmp_path):
    from mineru_tui.engines import EngineError, EngineOptions, open_engine

    opts = EngineOptions(engine="coreml", model=str(TINY_DIR), extra=(("bundle", str(tmp_path / "none")),
                                                                      ("backend", "evaluator")))
    with pytest.raises(EngineError, match="no Core ML bundle at .*mineru-tui bundle build"):
        open_engine(opts)


def test_engine_worker_process_streams_the_numpy_engines_tokens_and_cancels(reference):
    """The engine in its worker process (evaluator backend): same tokens as numpy, events indexed by
    request, a bad request fails alone, cancel reaches the worker, close ends the process."""
    from mineru_tui.engines import EngineOptions, Request, open_engine
    from mineru_tui.engines.coreml.engine import WorkerProcessEngine
    from mineru_tui.engines.events import Done, SequenceDone, TokenEvent
    from mineru_tui.engines.params import SamplingParams

    opts = EngineOptions(engine="coreml", model=str(TINY_DIR),
                         extra=(("bundle", str(tiny_bundle("fp16"))), ("backend", "evaluator")))
    eng = open_engine(opts)
    try:
        assert isinstance(eng, WorkerProcessEngine) and eng.name == "coreml" and eng.max_batch == 1
        main_thread_ticks = []
        ticker_stop = threading.Event()

        def tick():  # the caller's other threads keep running while the worker predicts
            while not ticker_stop.is_set():
                main_thread_ticks.append(1)
                ticker_stop.wait(0.01)

        t = threading.Thread(target=tick)
        t.start()
        neutral = SamplingParams(no_repeat_ngram_size=0)
        events = list(eng.stream([Request(str(REF_PNG), "\nText Recognition:", neutral, 10),
                                  Request(str(Path("missing.png")), "x", neutral, 10)]))
        ticker_stop.set()
        t.join()
        assert len(main_thread_ticks) > 10
        assert isinstance(events[-1], Done)
        ok, bad = events[-1].results
        want = reference.generate(str(REF_PNG), "\nText Recognition:", max_new_tokens=10, no_repeat_ngram_size=0)
        assert ok.token_ids == want.token_ids
        assert [e.token_id for e in events if isinstance(e, TokenEvent) and e.seq_index == 0] == want.token_ids
        assert bad.finish_reason == "error" and "missing.png" in bad.error
        assert sorted(e.seq_index for e in events if isinstance(e, SequenceDone)) == [0, 1]

        cancel = threading.Event()
        seen = 0
        for ev in eng.stream([Request(str(REF_PNG), "\nText Recognition:", neutral, 100)], cancel=cancel):
            if isinstance(ev, TokenEvent):
                seen += 1
                cancel.set()
            if isinstance(ev, Done):
                assert ev.results[0].finish_reason == "cancelled"
        assert 1 <= seen < 100
        # the next job after a cancelled one gets its own events only
        again = list(eng.stream([Request(None, "hello world", neutral, 3)]))
        assert isinstance(again[-1], Done) and len(again[-1].results[0].token_ids) == 3
        proc = eng._proc
    finally:
        eng.close()
    assert not proc.is_alive()


@pytest.mark.skipif(not MACOS, reason="needs macOS 15+ with the Core ML runtime")
def test_coreml_runtime_gives_the_numpy_engines_tokens(reference, tmp_path):  # pragma: no cover - macOS only
    os.environ["MINERU_TUI_CACHE"] = str(tmp_path)
    model = open_bundle_model(tiny_bundle("fp16"), str(TINY_DIR), backend="coreml")
    for image, prompt in REQUESTS:
        assert model.generate(image, prompt, **KNOBS).token_ids == reference.generate(image, prompt, **KNOBS).token_ids
    assert list((tmp_path / "compiled").glob("*.mlmodelc"))  # compiled once, at the fixed place


def test_image_beyond_the_largest_bucket_uses_the_numpy_tower(reference, fp16_model):
    from mineru_tui.engines.bundle_files.errors import BundleError

    big = _png(252, 224, 4)  # 16x18 = 288 patches > the largest tiny bucket (256)
    before = fp16_model.vision.fallback_images
    got = fp16_model.generate(big, "\nText Recognition:", **KNOBS)
    assert fp16_model.vision.fallback_images == before + 1
    assert got.token_ids == reference.generate(big, "\nText Recognition:", **KNOBS).token_ids
    strict = open_bundle_model(tiny_bundle("fp16"), str(TINY_DIR), backend="evaluator")  # no fallback
    with pytest.raises(BundleError, match="288 patches is larger than the bundle's largest vision bucket"):
        strict.generate(big, "\nText Recognition:", **KNOBS)


def test_the_engine_table_hands_the_bundle_numpys_vision_tower():
    """Only the engine table imports the numpy forward pass: opened through it, a Core ML engine
    gets numpy's tower for images past its largest bucket; opened directly, it has none."""
    from mineru_tui.engines import EngineOptions, open_engine
    from mineru_tui.engines.coreml import engine as coreml_engine
    from mineru_tui.engines.numpy.vision import VisionTower

    opts = EngineOptions(engine="coreml", model=str(TINY_DIR),
                         extra=(("bundle", str(tiny_bundle("fp16"))), ("backend", "evaluator"), ("process", "0")))
    assert isinstance(open_engine(opts).model.vision.fallback, VisionTower)
    assert coreml_engine.open_engine(opts).model.vision.fallback is None
