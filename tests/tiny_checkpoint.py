"""Paths of the tiny oracle fixture and builders for variants of it (used by the engine tests).

The fixture (``tests/fixtures/``) is a copy of ``shared/oracle``: ``tiny/`` is a random-weight
Qwen2-VL checkpoint in release layout (legacy tensor names, fp32), ``tiny_ref.npz`` /
``tiny_ref.json`` / ``tiny_ref_input.png`` the reference dump from Hugging Face transformers.

The builders write modified copies into a temporary directory: transformers-5 tensor names and
nested config, sharded weights, fp16 / bf16 weights — all numpy-only (no torch).
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).parent / "fixtures"
TINY_DIR = FIXTURES / "tiny"
REF_NPZ = FIXTURES / "tiny_ref.npz"
REF_JSON = FIXTURES / "tiny_ref.json"
REF_PNG = FIXTURES / "tiny_ref_input.png"

_NP_TO_ST = {np.dtype("<f4"): "F32", np.dtype("<f2"): "F16", np.dtype("<f8"): "F64"}


def read_tensors(path: Path = TINY_DIR / "model.safetensors") -> dict[str, np.ndarray]:
    """All tensors of a safetensors file (plain copy, via the safetensors package)."""
    from safetensors.numpy import load_file

    return load_file(str(path))


def to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """float32 → bfloat16 bit patterns (uint16), round to nearest even like torch."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16_bits(b: np.ndarray) -> np.ndarray:
    return (b.astype(np.uint32) << 16).view(np.float32)


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], dtypes: dict[str, str] | None = None) -> None:
    """Minimal safetensors writer; ``dtypes`` overrides the dtype name (e.g. "BF16" for uint16 bits)."""
    dtypes = dtypes or {}
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    blobs, offset = [], 0
    for key in sorted(tensors):
        arr = np.ascontiguousarray(tensors[key])
        data = arr.tobytes()
        header[key] = {
            "dtype": dtypes.get(key) or _NP_TO_ST[arr.dtype.newbyteorder("<")],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # keep tensor data 8-byte aligned, as the reference writer does
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def copy_without_weights(dst: Path, src: Path = TINY_DIR) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for p in src.iterdir():
        if not p.name.endswith(".safetensors") and p.name != "model.safetensors.index.json":
            shutil.copy(p, dst / p.name)
    return dst


def v5_key(key: str) -> str:
    """Legacy tensor name → transformers-5 name."""
    if key.startswith("visual."):
        return "model." + key
    if key.startswith("model."):
        return "model.language_model." + key[len("model.") :]
    return key


def v5_config(legacy: dict) -> dict:
    """Legacy flat config.json → the transformers-5 nested form (text_config + rope_parameters)."""
    top_keys = {
        "architectures", "model_type", "image_token_id", "video_token_id", "vision_start_token_id",
        "vision_end_token_id", "vision_token_id", "tie_word_embeddings", "vision_config",
    }  # fmt: skip
    text = {k: v for k, v in legacy.items() if k not in top_keys and k not in ("rope_scaling", "rope_theta")}
    text["model_type"] = "qwen2_vl_text"
    text["rope_parameters"] = {
        "rope_type": "default",
        "mrope_section": legacy["rope_scaling"]["mrope_section"],
        "rope_theta": legacy["rope_theta"],
    }
    out = {k: legacy[k] for k in top_keys if k in legacy}
    vc = dict(legacy["vision_config"])
    vc.pop("in_chans", None)
    out["vision_config"] = vc
    out["text_config"] = text
    out["transformers_version"] = "5.24.0"
    return out


def make_v5_checkpoint(dst: Path) -> Path:
    """Copy of the tiny checkpoint with transformers-5 tensor names and nested config."""
    copy_without_weights(dst)
    legacy = json.loads((TINY_DIR / "config.json").read_text())
    (dst / "config.json").write_text(json.dumps(v5_config(legacy), indent=2))
    write_safetensors(dst / "model.safetensors", {v5_key(k): v for k, v in read_tensors().items()})
    return dst


def make_sharded_checkpoint(dst: Path, n_shards: int = 2) -> Path:
    """Copy of the tiny checkpoint with the weights split over shards plus the index file."""
    copy_without_weights(dst)
    tensors = read_tensors()
    keys = sorted(tensors)
    weight_map = {}
    for i in range(n_shards):
        name = f"model-{i + 1:05d}-of-{n_shards:05d}.safetensors"
        part = keys[i::n_shards]
        write_safetensors(dst / name, {k: tensors[k] for k in part})
        weight_map.update({k: name for k in part})
    index = {"metadata": {"total_size": sum(t.nbytes for t in tensors.values())}, "weight_map": weight_map}
    (dst / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    return dst


def make_half_checkpoint(dst: Path, dtype: str) -> tuple[Path, dict[str, np.ndarray]]:
    """Copy with F16 or BF16 weights; returns the directory and the expected float32 values."""
    copy_without_weights(dst)
    tensors = read_tensors()
    if dtype == "F16":
        half = {k: v.astype(np.float16) for k, v in tensors.items()}
        expected = {k: v.astype(np.float32) for k, v in half.items()}
        write_safetensors(dst / "model.safetensors", half)
    elif dtype == "BF16":
        half = {k: to_bf16_bits(v) for k, v in tensors.items()}
        expected = {k: from_bf16_bits(v) for k, v in half.items()}
        write_safetensors(dst / "model.safetensors", half, dtypes=dict.fromkeys(half, "BF16"))
    else:
        raise ValueError(dtype)
    return dst, expected


def rewrite_weights(dst: Path, edit) -> Path:
    """Copy whose tensors are ``edit(dict)`` (to drop or reshape a tensor)."""
    copy_without_weights(dst)
    tensors = read_tensors()
    edit(tensors)
    write_safetensors(dst / "model.safetensors", tensors)
    return dst
