"""``manifest.json`` of a bundle: what was built from what, and the checks before it is used.

A bundle directory holds ``vision.mlpackage`` (the ViT, fp16, enumerated patch buckets),
``decoder.mlpackage`` (functions ``prefill``/``decode``/``embed`` sharing one copy of the
weights) and this manifest. :func:`check_bundle` refuses, with one line, a bundle that is
incomplete, damaged (a file's size or sha256 differs) or built for another checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mineru_tui.engines.qwen2vl.checkpoint import Checkpoint
from .errors import BundleError

FORMAT = "mineru-tui-coreml-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
PACKAGES = ("vision.mlpackage", "decoder.mlpackage")
_SAMPLE = 1 << 16  # bytes hashed at each end of every tensor for the checkpoint identity


@dataclass
class Manifest:
    """Everything the runtime needs to drive the bundle, plus what it was built from."""

    model: str  # --model as given
    checkpoint_id: str  # checkpoint_identity() of the source checkpoint
    weights: str  # fp16 | int8 | int4 (decoder linear weights; the vision tower is fp16)
    context: int  # KV-cache slots (prompt + generated tokens per sequence)
    prefill_chunk: int  # tokens per prefill call
    buckets: list[int]  # vision patch counts (N), ascending
    hidden_size: int
    head_dim: int
    layers: int
    kv_heads: int
    vocab_size: int
    vision_head_dim: int
    vision_out: int
    token_ids: dict[str, object]  # image_token_id, stop ids, ... of the checkpoint
    dtypes: dict[str, str]  # state / compute / io dtypes
    functions: dict[str, list[str]]  # package -> function names
    coremltools_version: str
    files: dict[str, list] = field(default_factory=dict)  # relative path -> [size, sha256]
    build: dict[str, object] = field(default_factory=dict)  # seconds, peak RSS (informative)
    format: str = FORMAT
    format_version: int = FORMAT_VERSION

    def write(self, bundle: Path) -> None:
        write_manifest(bundle, asdict(self))

    @classmethod
    def read(cls, bundle: Path) -> Manifest:
        path = Path(bundle) / MANIFEST
        raw = read_manifest_json(bundle, FORMAT, FORMAT_VERSION, kind="Core ML",
                                 build="mineru-tui bundle build")
        try:
            man = cls(**raw)
        except TypeError as e:
            raise BundleError(f"{path}: malformed manifest ({e}); rebuild the bundle") from None
        wrong = _wrong_field(man)
        if wrong:
            raise BundleError(f"{path}: malformed manifest ({wrong}); rebuild the bundle")
        return man


def write_manifest(bundle: Path, fields: dict) -> None:
    """``manifest.json`` written whole or not at all (a temporary file renamed over it)."""
    tmp = Path(bundle) / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(fields, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, Path(bundle) / MANIFEST)


def read_manifest_json(bundle: Path, fmt: str, version: int, *, kind: str, build: str) -> dict:
    """A bundle's ``manifest.json`` as a JSON object of format ``fmt`` and ``version``, else
    BundleError (one line naming ``build``, the command that makes one): shared by the Core ML
    and OpenVINO bundles, whose manifests differ only in their fields."""
    bundle = Path(bundle)
    path = bundle / MANIFEST
    if not bundle.is_dir():
        raise BundleError(f"{bundle}: no such bundle directory (build one with `{build}`)")
    try:
        raw = json.loads(path.read_text())
    except FileNotFoundError:
        raise BundleError(f"{bundle}: not a bundle (no {MANIFEST}); build one with `{build}`") from None
    except (OSError, ValueError) as e:
        raise BundleError(f"{path}: unreadable manifest ({e}); rebuild the bundle") from None
    except RecursionError:
        raise BundleError(f"{path}: unreadable manifest (nested too deeply); rebuild the bundle") from None
    if not isinstance(raw, dict) or raw.get("format") != fmt:
        raise BundleError(f"{path}: not a mineru-tui {kind} bundle manifest")
    if raw.get("format_version") != version:
        label = "" if kind == "Core ML" else f"{kind} "  # the Core ML bundle came first: plain "bundle"
        raise BundleError(f"{bundle}: {label}bundle format {raw.get('format_version')}, this mineru-tui reads "
                          f"{version}; rebuild it with `{build}`")
    return raw


_INT_FIELDS = ("context", "prefill_chunk", "hidden_size", "head_dim", "layers", "kv_heads",
               "vocab_size", "vision_head_dim", "vision_out", "format_version")
_STR_FIELDS = ("model", "checkpoint_id", "weights", "coremltools_version", "format")


def _wrong_field(man: Manifest) -> str | None:
    """What is of the wrong type in a manifest read from disk (None when nothing is): it is
    a file anyone can edit, and the runtime indexes, sizes and opens files by it."""
    for name in _INT_FIELDS:
        v = getattr(man, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            return f"'{name}' must be a whole number"
    for name in _STR_FIELDS:
        if not isinstance(getattr(man, name), str):
            return f"'{name}' must be a string"
    if not isinstance(man.buckets, list) or not all(isinstance(b, int) and not isinstance(b, bool)
                                                    and b > 0 for b in man.buckets):
        return "'buckets' must be a list of whole numbers"
    for name in ("token_ids", "dtypes", "functions", "build"):
        if not isinstance(getattr(man, name), dict):
            return f"'{name}' must be an object"
    if not isinstance(man.files, dict):
        return "'files' must be an object"
    for rel, entry in man.files.items():
        if (not isinstance(entry, list) or len(entry) != 2 or isinstance(entry[0], bool)
                or not isinstance(entry[0], int) or not isinstance(entry[1], str)):
            return f"the entry of {rel!r} in 'files' must be [size, sha256]"
        if not inside_packages(rel):
            return f"{rel!r} in 'files' is not a path inside the bundle's packages"
    return None


def inside_packages(rel: str, packages: Sequence[str] = PACKAGES) -> bool:
    """Whether ``rel`` names a file inside one of the bundle's packages (a Core ML bundle's by
    default): relative, no ``..``, no backslash or drive, first part one of ``packages``. A
    manifest naming ``../../../../etc/hostname`` must not make ``bundle verify`` look outside
    the bundle."""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\x00" in rel or rel.startswith("/"):
        return False
    parts = rel.split("/")
    return parts[0] in packages and len(parts) > 1 and all(p not in ("", ".", "..") for p in parts)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def bundle_files(bundle: Path, packages: Sequence[str] = PACKAGES) -> list[Path]:
    """Every file of the bundle's packages (a Core ML bundle's by default), relative to the
    bundle, sorted package by package."""
    out = []
    for pkg in packages:
        root = bundle / pkg
        out += sorted(p.relative_to(bundle) for p in root.rglob("*") if p.is_file())
    return out


def record_files(bundle: Path, packages: Sequence[str] = PACKAGES) -> dict[str, list]:
    """{relative path: [size, sha256]} of the bundle's package files."""
    return {str(rel): [(bundle / rel).stat().st_size, file_digest(bundle / rel)]
            for rel in bundle_files(bundle, packages)}


def checkpoint_identity(checkpoint: Checkpoint) -> str:
    """A short, cheap fingerprint of a checkpoint: its parsed config plus each tensor's (legacy) name, dtype,
    shape and the sha256 of its first and last 64 KiB (a different or re-trained checkpoint
    differs there; hashing 2-5 GB of weights at every start would take seconds)."""
    h = hashlib.sha256()
    h.update(repr(checkpoint.config).encode())  # the parsed config: legacy and transformers-5 files agree
    refs = checkpoint.weights._refs  # the reader's tensor references (file, offsets): raw bytes, no conversion
    opened: dict = {}
    try:
        for key in sorted(refs):
            ref = refs[key]
            h.update(f"{key}|{ref.dtype}|{list(ref.shape)}|".encode())
            f = opened.get(ref.file) or opened.setdefault(ref.file, open(ref.file, "rb"))
            n = ref.end - ref.start
            f.seek(ref.start)
            h.update(f.read(min(n, _SAMPLE)))
            if n > 2 * _SAMPLE:
                f.seek(ref.end - _SAMPLE)
                h.update(f.read(_SAMPLE))
    finally:
        for f in opened.values():
            f.close()
    return h.hexdigest()[:32]


def checkpoint_fields(checkpoint: Checkpoint, model, weights: str, context: int, prefill_chunk: int,
                      buckets: list[int]) -> dict:
    """The manifest fields every compiled bundle (Core ML, Core AI) records of what it was built
    from and for: the checkpoint's identity and shapes, the context, buckets and token ids."""
    tc, vc = checkpoint.config.text, checkpoint.config.vision
    return dict(
        model=str(model),
        checkpoint_id=checkpoint_identity(checkpoint),
        weights=weights,
        context=int(context),
        prefill_chunk=int(prefill_chunk),
        buckets=buckets,
        hidden_size=tc.hidden_size,
        head_dim=tc.head_dim,
        layers=tc.num_hidden_layers,
        kv_heads=tc.num_key_value_heads,
        vocab_size=tc.vocab_size,
        vision_head_dim=vc.head_dim,
        vision_out=vc.hidden_size,
        token_ids={"image_token_id": checkpoint.config.image_token_id,
                   "stop_token_ids": [int(i) for i in checkpoint.stop_token_ids],
                   "pad_token_id": checkpoint.generation.pad_token_id},
    )


def check_bundle(bundle: Path, checkpoint: Checkpoint | None = None, *, full: bool = False) -> Manifest:
    """The manifest of a usable bundle, else BundleError (one line).

    Checks: manifest readable; every recorded file present with its size (and, with ``full``,
    its sha256); no package file missing from the record; the checkpoint's identity and shapes
    when a checkpoint is given.
    """
    bundle = Path(bundle)
    man = Manifest.read(bundle)
    check_files(bundle, man.files, PACKAGES, "mineru-tui bundle build", full=full)
    if checkpoint is not None:
        check_built_for(bundle, man, checkpoint, "mineru-tui bundle build")
    return man


def check_files(bundle: Path, files: dict[str, list], packages: Sequence[str], build: str, *,
                full: bool = False) -> None:
    """BundleError (one line) unless the files the manifest records (``files``: relative path ->
    [size, sha256]) are the files of ``packages``: each inside them, present, of its size (and,
    with ``full``, its sha256), none missing from the record. ``build`` is the command to rerun."""
    if not files:
        raise BundleError(f"{bundle}: the manifest lists no files (an interrupted build?); rebuild the bundle")
    real_bundle = bundle.resolve()
    for rel, (size, digest) in sorted(files.items()):
        p = bundle / rel
        if not inside_packages(rel, packages) or real_bundle not in p.resolve().parents:  # a link out
            raise BundleError(f"{bundle}: damaged bundle, {rel!r} leads outside the bundle; rebuild it")
        if not p.is_file():
            raise BundleError(f"{bundle}: damaged bundle, {rel} is missing; rebuild it with `{build}`")
        if p.stat().st_size != size:
            raise BundleError(f"{bundle}: damaged bundle, {rel} has {p.stat().st_size} bytes, the manifest says {size}; rebuild it")
        if full and file_digest(p) != digest:
            raise BundleError(f"{bundle}: damaged bundle, {rel} does not match its checksum; rebuild it")
    extra = sorted(set(map(str, bundle_files(bundle, packages))) - set(files))
    if extra:
        raise BundleError(f"{bundle}: damaged bundle, {extra[0]} is not in the manifest; rebuild it")


def check_built_for(bundle: Path, man, checkpoint: Checkpoint, build: str) -> None:
    """BundleError (one line) unless the bundle's manifest ``man`` (Core ML or OpenVINO) was
    built from ``checkpoint``: its shapes, then its identity; ``build`` is the command to rerun."""
    t, v = checkpoint.config.text, checkpoint.config.vision
    dims = {"hidden_size": t.hidden_size, "head_dim": t.head_dim, "layers": t.num_hidden_layers,
            "kv_heads": t.num_key_value_heads, "vocab_size": t.vocab_size, "vision_out": v.hidden_size}
    for name, want in dims.items():
        if getattr(man, name) != want:
            raise BundleError(f"{bundle}: built for a model with {name} {getattr(man, name)}, "
                              f"{checkpoint.path} has {want}; build a bundle for it with `{build}`")
    if man.checkpoint_id != checkpoint_identity(checkpoint):
        raise BundleError(f"{bundle}: built from another checkpoint ({man.model}), not {checkpoint.path}; "
                          f"rebuild it with `{build} --model {checkpoint.path}`")
