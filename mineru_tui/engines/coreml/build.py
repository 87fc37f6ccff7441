"""``mineru-tui bundle build``: a checkpoint's safetensors → a Core ML bundle, without torch.

    build_bundle("path/or/repo", out_dir, weights="int8")

Steps (progress lines on stderr through ``progress``):

1. open the checkpoint with the reader's loader (legacy or transformers-5 names, shards, the
   Hugging Face cache) — weights stay memory-mapped;
2. vision tower: one MIL program with a symbolic patch count, converted to fp16 with the bucket
   sizes as enumerated shapes → ``vision.mlpackage`` (kept fp16);
3. decoder: ``prefill`` (fixed chunk), ``decode`` (one token) and ``embed`` programs, each
   converted to fp16 and — for int8/int4 — quantised on its own (coremltools refuses to
   compress a multifunction package), then merged with ``save_multifunction``, which stores
   identical (compressed) weights once → ``decoder.mlpackage``;
4. ``manifest.json`` with shapes, token ids, dtypes, the checkpoint identity, the coremltools
   version, every file's size and sha256.

The bundle is written into a temporary sibling directory and renamed at the end, so an
interrupted build never leaves something that looks complete.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mineru_tui.engines.qwen2vl.checkpoint import Checkpoint, load_checkpoint
from .coremltools_import import coremltools
from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.building import (Progress, building, checked_shapes, dir_size, peak_rss_gib,
                                                      seal, source_checkpoint)
from mineru_tui.engines.bundle_files.manifest import PACKAGES, Manifest, checkpoint_fields
from .mil_text import STATE_NAMES, decoder_program, embed_program
from .mil_vision import vision_program

WEIGHT_MODES = ("int8", "int4", "fp16")
DEFAULT_CONTEXT = 4096  # KV slots per sequence: a 1369-token layout page plus ~2.7k generated tokens
DEFAULT_CHUNK = 64  # prefill tokens per call
# Vision buckets (patches): small crops …, 2304 = 48², 4096 = 64², 5476 = the 1036×1036 layout image (74²)
DEFAULT_BUCKETS = (256, 576, 1024, 2304, 4096, 5476)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def convert_part(*, model_dir: str, name: str, target: str, weights: str, context: int, prefill_chunk: int,
                 buckets: list[int], verbose: bool, t0: float) -> tuple[float, float]:
    """Build, convert (and for decoder parts quantise) one part, save it to ``target``.

    Returns (seconds, peak RSS GiB). Runs in a child process when the build isolates parts, so it
    opens the checkpoint itself (memory-mapped: cheap).
    """
    step = Progress(_stderr if verbose else None, t0)
    t = time.time()
    ct = coremltools()
    checkpoint = load_checkpoint(model_dir)
    tc, vc = checkpoint.config.text, checkpoint.config.vision
    label = "vision tower" if name == "vision" else f"decoder {name}"
    step(f"{label}: building the MIL program")
    if name == "vision":
        prog, inputs = vision_program(checkpoint.weights, vc), vision_inputs(buckets, checkpoint)
    elif name == "embed":
        prog = embed_program(checkpoint.weights, tc, context=context)
        inputs = [ct.TensorType(name="input_ids", shape=(1, ct.RangeDim(1, context, 1)), dtype=np.int32)]
    else:
        prog = decoder_program(checkpoint.weights, tc, chunk=prefill_chunk if name == "prefill" else 1, context=context)
        inputs = None
    step(f"{label}: converting to fp16")
    ml = convert(prog, inputs)
    del prog
    if weights != "fp16" and name != "vision":  # the vision tower stays fp16
        step(f"{label}: quantising linear weights to {weights}")
        ml = _quantize(ml, weights)
    ml.save(target)
    del ml
    gc.collect()
    step(f"{label}: saved ({dir_size(Path(target)) / 1e6:.1f} MB)")
    return time.time() - t, peak_rss_gib()


def _run_part(isolate: bool, **job) -> tuple[float, float]:
    if not isolate:
        return convert_part(**job)
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("spawn")) as pool:
            return pool.submit(convert_part, **job).result()
    except BrokenProcessPool:
        raise BundleError(f"converting the {job['name']} part failed: its process died (out of memory?)") from None


def _quantize(mlmodel, weights: str):
    """int8 per-channel / int4 per-block(32) linear weights; fp16 unchanged."""
    if weights == "fp16":
        return mlmodel
    import coremltools.optimize.coreml as cto

    if weights == "int8":
        op = cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype="int8", granularity="per_channel")
    else:
        op = cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype="int4", granularity="per_block", block_size=32)
    return cto.linear_quantize_weights(mlmodel, config=cto.OptimizationConfig(global_config=op))


def convert(prog, inputs=None):
    """ct.convert a builder program to an fp16 ML Program (iOS18 / macOS15), without loading it."""
    ct = coremltools()
    kw = {"inputs": inputs} if inputs else {}
    return ct.convert(
        prog,
        convert_to="mlprogram",
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        compute_units=ct.ComputeUnit.ALL,
        skip_model_load=True,
        **kw,
    )


def vision_inputs(buckets: Sequence[int], checkpoint: Checkpoint):
    """Converter input types: the bucket sizes as enumerated shapes (one fixed shape if one bucket)."""
    ct = coremltools()
    v = checkpoint.config.vision
    K, D = v.in_channels * v.temporal_patch_size * v.patch_size**2, v.head_dim

    def shape(per_n):
        if len(buckets) == 1:
            return per_n(buckets[0])
        return ct.EnumeratedShapes(shapes=[per_n(n) for n in buckets], default=per_n(buckets[0]))

    return [
        ct.TensorType(name="pixel_values", shape=shape(lambda n: (n, K)), dtype=np.float32),
        ct.TensorType(name="cos", shape=shape(lambda n: (n, D)), dtype=np.float32),
        ct.TensorType(name="sin", shape=shape(lambda n: (n, D)), dtype=np.float32),
        ct.TensorType(name="key_mask", shape=shape(lambda n: (1, n)), dtype=np.float32),
    ]


def build_bundle(
    model: str,
    out: str | os.PathLike[str],
    *,
    weights: str = "int8",
    context: int = DEFAULT_CONTEXT,
    prefill_chunk: int = DEFAULT_CHUNK,
    buckets: Sequence[int] = DEFAULT_BUCKETS,
    progress: Callable[[str], None] | None = None,
    overwrite: bool = True,
    isolate: bool | None = None,
) -> Manifest:
    """Build a bundle for ``model`` (a checkpoint directory or repo id) into ``out``.

    ``isolate`` converts each part (vision, prefill, decode, embed) in its own child process, so
    the memory of one conversion is returned before the next; None = when the weights exceed 1 GiB.
    """
    if weights not in WEIGHT_MODES:
        raise BundleError(f"--weights {weights!r}: choose one of {', '.join(WEIGHT_MODES)}")
    buckets = checked_shapes(buckets, context, prefill_chunk)
    out = Path(out).expanduser()
    if out.exists() and not overwrite:
        raise BundleError(f"{out}: exists (remove it or choose another --out)")
    step = Progress(progress)
    ct = coremltools()
    checkpoint = source_checkpoint(model)
    tc, vc = checkpoint.config.text, checkpoint.config.vision
    step(f"checkpoint {checkpoint.path}: {tc.num_hidden_layers} decoder layers, hidden {tc.hidden_size}, "
         f"vision depth {vc.depth}; weights {weights}, context {context}, chunk {prefill_chunk}, buckets {buckets}")

    times: dict[str, float] = {}
    if isolate is None:  # a child process per part once the checkpoint is big (frees memory between parts)
        isolate = sum(p.stat().st_size for p in checkpoint.path.glob("*.safetensors")) > (1 << 30)
    job = dict(model_dir=str(checkpoint.path), weights=weights, context=int(context),
               prefill_chunk=int(prefill_chunk), buckets=buckets, verbose=progress is not None, t0=step.t0)
    peaks = [peak_rss_gib()]
    with building(out) as work:
        parts = work / "parts"
        parts.mkdir()
        for name in ("vision", "prefill", "decode", "embed"):
            target = work / "vision.mlpackage" if name == "vision" else parts / f"{name}.mlpackage"
            seconds, peak = _run_part(isolate, name=name, target=str(target), **job)
            peaks.append(peak)
            times[f"{name}_s"] = round(seconds, 1)
        step("decoder: merging prefill, decode and embed into one package (shared weights)")
        t = time.time()
        desc = ct.utils.MultiFunctionDescriptor()
        for name in ("prefill", "decode", "embed"):
            desc.add_function(str(parts / f"{name}.mlpackage"), src_function_name="main", target_function_name=name)
        desc.default_function_name = "decode"
        ct.utils.save_multifunction(desc, str(work / "decoder.mlpackage"))
        shutil.rmtree(parts)
        times["merge_s"] = round(time.time() - t, 1)
        step(f"decoder: saved ({dir_size(work / 'decoder.mlpackage') / 1e6:.1f} MB)")

        step("manifest: checksums")
        man = Manifest(
            **checkpoint_fields(checkpoint, model, weights, context, prefill_chunk, buckets),
            dtypes={"state": "fp16", "compute": "fp16", "io": "fp32", "vision_weights": "fp16",
                    "decoder_weights": weights},
            functions={"vision.mlpackage": ["main"], "decoder.mlpackage": ["prefill", "decode", "embed"]},
            coremltools_version=ct.__version__,
        )
        seal(man, work, PACKAGES, step.t0, **times, peak_rss_gib=round(max(peaks + [peak_rss_gib()]), 2),
             isolated_parts=isolate)
    step(f"bundle ready: {out} (vision {man.build['vision_mb']} MB, decoder {man.build['decoder_mb']} MB)")
    return man


assert STATE_NAMES == ("keyCache", "valueCache")  # the runtime relies on these names
