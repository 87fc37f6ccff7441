"""``manifest.json`` of a Core AI bundle and the checks before it is used.

A Core AI bundle is a folder::

    vision.aimodel/     the vision tower: one function per patch bucket (main_n<N>), weights once
    decoder.aimodel/    prefill / decode / embed sharing one copy of the weights, KV cache as state
    manifest.json       what it was built from (checkpoint identity), shapes, dtypes, every
                        file's size and sha256

Its fields mirror the Core ML manifest's where the host reads them (``buckets``,
``prefill_chunk``, ``context``, the model's shapes), so ``BundleVision`` and ``BundleTextForward``
take either. :func:`check_coreai_bundle` refuses, in one line, a bundle that is incomplete,
damaged, foreign (another format) or built from another checkpoint.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mineru_tui.engines.bundle_files.errors import BundleError
from mineru_tui.engines.bundle_files.manifest import (check_built_for, check_files, read_manifest_json,
                                                      write_manifest)
from mineru_tui.engines.qwen2vl.checkpoint import Checkpoint

FORMAT = "mineru-tui-coreai-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
ASSETS = ("vision.aimodel", "decoder.aimodel")
BUILD = "mineru-tui bundle build --target coreai"


@dataclass
class CoreAIManifest:
    model: str
    checkpoint_id: str
    weights: str  # decoder linear weights: f32 | bf16 | fp16 | int8 | int4 (per block of 32)
    compute: str  # f32 | bf16 | fp16: activations and KV cache
    context: int
    prefill_chunk: int
    buckets: list[int]
    hidden_size: int
    head_dim: int
    layers: int
    kv_heads: int
    vocab_size: int
    vision_head_dim: int
    vision_out: int
    token_ids: dict[str, object]
    functions: dict[str, list[str]]
    coreai_version: str
    files: dict[str, list] = field(default_factory=dict)
    build: dict[str, object] = field(default_factory=dict)
    format: str = FORMAT
    format_version: int = FORMAT_VERSION

    def write(self, bundle: Path) -> None:
        write_manifest(bundle, asdict(self))


_INTS = ("context", "prefill_chunk", "hidden_size", "head_dim", "layers", "kv_heads", "vocab_size",
         "vision_head_dim", "vision_out")


def is_coreai_bundle(bundle: Path) -> bool:
    """Whether ``bundle`` holds a Core AI manifest (a damaged one is not; others refuse it)."""
    try:
        return json.loads((Path(bundle) / MANIFEST).read_text()).get("format") == FORMAT
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def read_coreai_manifest(bundle: Path) -> CoreAIManifest:
    path = Path(bundle) / MANIFEST
    raw = read_manifest_json(bundle, FORMAT, FORMAT_VERSION, kind="Core AI", build=BUILD)
    try:
        man = CoreAIManifest(**raw)
    except TypeError as e:
        raise BundleError(f"{path}: malformed manifest ({e}); rebuild the bundle") from None
    for name in _INTS:
        v = getattr(man, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise BundleError(f"{path}: malformed manifest ('{name}' must be a whole number); rebuild the bundle")
    if not isinstance(man.buckets, list) or not all(isinstance(b, int) and not isinstance(b, bool) and b > 0
                                                    for b in man.buckets):
        raise BundleError(f"{path}: malformed manifest ('buckets' must be a list of whole numbers); rebuild the bundle")
    if not isinstance(man.files, dict) or not all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], int) and isinstance(e[1], str)
            for e in man.files.values()):
        raise BundleError(f"{path}: malformed manifest ('files' must map paths to [size, sha256]); rebuild the bundle")
    return man


def check_coreai_bundle(bundle: Path, checkpoint: Checkpoint | None = None, *, full: bool = False) -> CoreAIManifest:
    """The manifest of a usable Core AI bundle, else BundleError (one line): every recorded file
    present with its size (and sha256 with ``full``), nothing unrecorded, built from
    ``checkpoint`` when one is given."""
    bundle = Path(bundle)
    man = read_coreai_manifest(bundle)
    check_files(bundle, man.files, ASSETS, BUILD, full=full)
    if checkpoint is not None:
        check_built_for(bundle, man, checkpoint, BUILD)
    return man
