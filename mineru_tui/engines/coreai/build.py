"""``mineru-tui bundle build --target coreai``: a checkpoint's safetensors → a Core AI bundle.

    build_coreai_bundle("path/or/repo", out_dir, weights="int8", compute="fp16")

1. open the checkpoint with the shared host's loader (legacy or transformers-5 names, shards,
   the Hugging Face cache) — weights stay memory-mapped;
2. ``vision.aimodel``: one static function per patch bucket (the 1036² layout page's 5476 among
   the defaults), the tower in float (``compute``);
3. ``decoder.aimodel``: ``prefill`` (fixed chunk), ``decode`` (one token) and ``embed``
   sharing one copy of the weights; linear weights ``int8`` / ``int4`` per block of 32 (the
   port found the macOS 27 GPU delegate needs per-block) or float;
4. ``manifest.json``: checkpoint identity, shapes, dtypes, coreai-core version, every file's
   size and sha256.

The ODIX the Linux runtime loads is not part of the bundle (it is derived, cached per asset by
the runner). The bundle is written into a temporary sibling and renamed at the end.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from mineru_tui.engines.bundle_files.building import (Progress, building, checked_shapes, dir_size, peak_rss_gib, seal,
                                                   source_checkpoint)
from mineru_tui.engines.coreml.build import DEFAULT_BUCKETS, DEFAULT_CHUNK, DEFAULT_CONTEXT
from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.locations import default_bundle_dir
from mineru_tui.engines.bundle_files.manifest import checkpoint_fields
from .authoring import authoring, version
from .manifest import ASSETS, CoreAIManifest
from .ops import COMPUTE, WEIGHTS
from .text import decoder_module
from .vision import function_name, vision_module


def default_compute() -> str:
    """fp16 for a Mac's GPU / Neural Engine; f32 elsewhere (the Linux runtime's fp16 is ~300×
    slower, and f32 gives the numpy engine's tokens)."""
    return "fp16" if sys.platform == "darwin" else "f32"


def coreai_bundle_dir(model: str | os.PathLike[str] | None) -> Path:
    """The cache folder of a model's Core AI bundle, beside its Core ML bundle."""
    base = default_bundle_dir(model)
    return base.with_name(f"{base.name}.coreai")


def build_coreai_bundle(
    model: str,
    out: str | os.PathLike[str],
    *,
    weights: str = "int8",
    compute: str | None = None,
    context: int = DEFAULT_CONTEXT,
    prefill_chunk: int = DEFAULT_CHUNK,
    buckets: Sequence[int] = DEFAULT_BUCKETS,
    progress: Callable[[str], None] | None = None,
) -> CoreAIManifest:
    """Build a Core AI bundle of ``model`` into ``out`` (see the module docstring)."""
    compute = compute or default_compute()
    if compute not in COMPUTE:
        raise BundleError(f"compute dtype {compute!r}: choose one of {', '.join(COMPUTE)}")
    if weights == "fp16" and compute != "fp16":
        weights = compute  # "float weights": stored in the compute dtype
    if weights not in WEIGHTS:
        raise BundleError(f"--weights {weights!r}: choose one of int8, int4, fp16")
    buckets = checked_shapes(buckets, context, prefill_chunk)
    ca = authoring()
    step = Progress(progress)
    checkpoint = source_checkpoint(model)
    tc, vc = checkpoint.config.text, checkpoint.config.vision
    step(f"checkpoint {checkpoint.path}: {tc.num_hidden_layers} decoder layers, hidden {tc.hidden_size}, "
         f"vision depth {vc.depth}; Core AI, weights {weights}, compute {compute}, context {context}, "
         f"chunk {prefill_chunk}, buckets {buckets}")
    out = Path(out).expanduser()
    times: dict[str, float] = {}
    with building(out) as work:
        t = time.time()
        step("vision tower: authoring one function per bucket")
        prog = ca.AIProgram(vision_module(checkpoint.weights, vc, buckets, compute=compute))
        prog.save_asset(work / "vision.aimodel")
        del prog
        times["vision_s"] = round(time.time() - t, 1)
        step(f"vision tower: saved ({dir_size(work / 'vision.aimodel') / 1e6:.1f} MB)")
        t = time.time()
        step("decoder: authoring prefill, decode and embed (one copy of the weights)")
        prog = ca.AIProgram(decoder_module(checkpoint.weights, tc, chunk=prefill_chunk, context=context,
                                           compute=compute, storage=weights))
        prog.save_asset(work / "decoder.aimodel")
        del prog
        times["decoder_s"] = round(time.time() - t, 1)
        step(f"decoder: saved ({dir_size(work / 'decoder.aimodel') / 1e6:.1f} MB)")
        step("manifest: checksums")
        man = CoreAIManifest(
            **checkpoint_fields(checkpoint, model, weights, context, prefill_chunk, buckets),
            compute=compute,
            functions={"vision.aimodel": [function_name(n) for n in buckets],
                       "decoder.aimodel": ["prefill", "decode", "embed"]},
            coreai_version=version(),
        )
        seal(man, work, ASSETS, step.t0, **times, peak_rss_gib=round(peak_rss_gib(), 2))
    step(f"bundle ready: {out} (vision {man.build['vision_mb']} MB, decoder {man.build['decoder_mb']} MB)")
    return man
