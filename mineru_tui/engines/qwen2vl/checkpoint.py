"""Find and open a Qwen2-VL (MinerU2.5) checkpoint: config files plus memory-mapped weights.

``resolve_model`` turns ``--model`` (a directory or a Hugging Face repo id) into a local
directory; ``load_checkpoint`` parses its configs and maps its ``*.safetensors`` files.

Weights are exposed under the **legacy** key names of releases saved by transformers 4.x
(``visual.blocks.0.attn.qkv.weight``, ``model.layers.0.self_attn.q_proj.weight``,
``model.embed_tokens.weight``, ...); transformers-5 names (``model.visual.*``,
``model.language_model.*``) are mapped to them. ``lm_head.weight`` is always present: with tied
embeddings it is the same array as ``model.embed_tokens.weight``.

float32 tensors are zero-copy read-only views into a ``numpy.memmap`` of the file (the OS pages
them in on use, so there is no second copy of the weights in RAM); float16 / bfloat16 tensors are
converted to float32 once, on first access.
"""

from __future__ import annotations

import json
import os
import re
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .config import (
    GenerationDefaults,
    ModelConfig,
    PreprocessorConfig,
    check_model_type,
    load_generation_defaults,
    load_preprocessor_config,
    parse_model_config,
    read_json,
)
from mineru_tui.engines.defaults import DEFAULT_MODEL
from mineru_tui.engines.errors import ModelError

__all__ = [
    "DEFAULT_MODEL",
    "Checkpoint",
    "ModelError",
    "Weights",
    "expected_shapes",
    "load_checkpoint",
    "resolve_model",
    "to_legacy_key",
]

# Files a checkpoint needs; anything else in the repo (README, images, .bin duplicates) is skipped.
_DOWNLOAD_PATTERNS = ["*.json", "*.safetensors", "*.jinja", "*.txt"]


# ----------------------------------------------------------------------------- resolving --model


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _hf_offline() -> bool:
    """HF_HUB_OFFLINE as set now when set (huggingface_hub reads it once, at import), else the library's."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        if os.environ.get(name, "").strip():
            return _truthy(os.environ[name])
    try:
        from huggingface_hub import constants

        return bool(getattr(constants, "HF_HUB_OFFLINE", False))
    except Exception:  # pragma: no cover - very old huggingface_hub
        return False


def _hf_cache_dir() -> str | None:
    """The hub cache, honouring HF_HUB_CACHE / HF_HOME as set now (None = the library default)."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HUGGINGFACE_HUB_CACHE"):
        return os.environ["HUGGINGFACE_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    return None


_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


def _how_to_get(repo_id: str) -> str:
    return f"run `hf download {repo_id}` (or `huggingface-cli download {repo_id}`) when online, or pass a local checkpoint directory (--model DIR)"


def resolve_model(path_or_repo_id: str | os.PathLike[str] | None = None) -> Path:
    """A local checkpoint directory for ``--model``.

    An existing directory is used as is. Anything else of the form ``owner/name`` is a Hugging Face
    repo id: the local hub cache is tried first, then (unless HF_HUB_OFFLINE is set) a download of
    the checkpoint files. Failure → ModelError with one line saying how to get the model.
    """
    spec = str(path_or_repo_id) if path_or_repo_id not in (None, "") else DEFAULT_MODEL
    path = Path(spec).expanduser()
    if path.is_dir():
        return path
    if path.exists():
        raise ModelError(f"{spec}: is a file; --model takes a checkpoint directory or a Hugging Face repo id")
    if not _REPO_ID.match(spec) or spec.startswith((".", "~")):
        raise ModelError(f"{spec}: no such directory (and not a Hugging Face repo id like {DEFAULT_MODEL})")

    try:
        from huggingface_hub import snapshot_download
    except ImportError:  # pragma: no cover - declared dependency
        raise ModelError(f"{spec}: huggingface_hub is not installed; pass --model DIR") from None

    cache_dir = _hf_cache_dir()
    try:  # cache first: works offline and avoids a network round trip
        local = snapshot_download(spec, cache_dir=cache_dir, local_files_only=True, allow_patterns=_DOWNLOAD_PATTERNS)
        snap = Path(local)
        if (snap / "config.json").exists() and any(snap.glob("*.safetensors")):
            return snap  # a partial snapshot (interrupted download) falls through to the download
    except Exception:  # LocalEntryNotFoundError and friends: not cached (or only partly)
        pass
    if _hf_offline():
        raise ModelError(
            f"model {spec} is not a local directory nor in the Hugging Face cache, and HF_HUB_OFFLINE is set; {_how_to_get(spec)}"
        )
    try:
        endpoint = os.environ.get("HF_ENDPOINT") or None  # read now, like the offline switch
        local = snapshot_download(spec, cache_dir=cache_dir, allow_patterns=_DOWNLOAD_PATTERNS, endpoint=endpoint)
    except Exception as e:  # no network, unknown/gated repo, disk full ...: one line, no traceback
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelError(f"cannot download model {spec} ({reason[:160]}); {_how_to_get(spec)}") from None
    return Path(local)


# ----------------------------------------------------------------------------- tensor names


def to_legacy_key(key: str) -> str:
    """transformers-5 tensor name → legacy name (legacy names pass through unchanged)."""
    if key.startswith("model.visual."):
        return key[len("model.") :]
    if key.startswith("model.language_model."):
        return "model." + key[len("model.language_model.") :]
    return key


def expected_shapes(config: ModelConfig) -> dict[str, tuple[int, ...]]:
    """Every tensor the forward pass reads, by legacy name, with its shape ([out, in] for Linear)."""
    v, t = config.vision, config.text
    E, M, Ew = v.embed_dim, v.mlp_dim, v.merged_dim
    H, I, V = t.hidden_size, t.intermediate_size, t.vocab_size
    q_dim, kv_dim = t.num_attention_heads * t.head_dim, t.num_key_value_heads * t.head_dim
    shapes: dict[str, tuple[int, ...]] = {
        "visual.patch_embed.proj.weight": (E, v.in_channels, v.temporal_patch_size, v.patch_size, v.patch_size),
    }
    for i in range(v.depth):
        b = f"visual.blocks.{i}."
        shapes.update({
            b + "norm1.weight": (E,), b + "norm1.bias": (E,),
            b + "attn.qkv.weight": (3 * E, E), b + "attn.qkv.bias": (3 * E,),
            b + "attn.proj.weight": (E, E), b + "attn.proj.bias": (E,),
            b + "norm2.weight": (E,), b + "norm2.bias": (E,),
            b + "mlp.fc1.weight": (M, E), b + "mlp.fc1.bias": (M,),
            b + "mlp.fc2.weight": (E, M), b + "mlp.fc2.bias": (E,),
        })  # fmt: skip
    shapes.update({
        "visual.merger.ln_q.weight": (E,), "visual.merger.ln_q.bias": (E,),
        "visual.merger.mlp.0.weight": (Ew, Ew), "visual.merger.mlp.0.bias": (Ew,),
        "visual.merger.mlp.2.weight": (v.hidden_size, Ew), "visual.merger.mlp.2.bias": (v.hidden_size,),
        "model.embed_tokens.weight": (V, H),
    })  # fmt: skip
    for i in range(t.num_hidden_layers):
        b = f"model.layers.{i}."
        shapes.update({
            b + "input_layernorm.weight": (H,),
            b + "self_attn.q_proj.weight": (q_dim, H), b + "self_attn.q_proj.bias": (q_dim,),
            b + "self_attn.k_proj.weight": (kv_dim, H), b + "self_attn.k_proj.bias": (kv_dim,),
            b + "self_attn.v_proj.weight": (kv_dim, H), b + "self_attn.v_proj.bias": (kv_dim,),
            b + "self_attn.o_proj.weight": (H, q_dim),
            b + "post_attention_layernorm.weight": (H,),
            b + "mlp.gate_proj.weight": (I, H), b + "mlp.up_proj.weight": (I, H),
            b + "mlp.down_proj.weight": (H, I),
        })  # fmt: skip
    shapes["model.norm.weight"] = (H,)
    if not t.tie_word_embeddings:
        shapes["lm_head.weight"] = (V, H)
    return shapes


# ----------------------------------------------------------------------------- safetensors


# safetensors dtype → (numpy storage dtype, needs conversion to f32)
_ST_DTYPES: dict[str, np.dtype] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),  # no numpy bfloat16: read the bits, widen on access
    "F64": np.dtype("<f8"),
}


@dataclass(frozen=True)
class _TensorRef:
    file: Path
    dtype: str  # safetensors dtype name
    shape: tuple[int, ...]
    start: int  # absolute byte offset in the file
    end: int


def _read_safetensors_header(path: Path) -> dict[str, _TensorRef]:
    """Parse a .safetensors header (8-byte LE length + JSON) into tensor references."""
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            if n <= 0 or 8 + n > size or n > 100_000_000:  # the format's own header limit
                raise ValueError("bad header length")
            header = json.loads(f.read(n))
            if not isinstance(header, dict):
                raise ValueError("the header is not a JSON object")
    except RecursionError:
        raise ModelError(f"{path}: not a readable safetensors file (its header is nested too deeply)") from None
    except (OSError, ValueError, struct.error, UnicodeDecodeError) as e:
        raise ModelError(f"{path}: not a readable safetensors file ({e})") from None
    refs: dict[str, _TensorRef] = {}
    for key, info in header.items():
        if key == "__metadata__":
            continue
        try:
            begin, end = (int(x) for x in info["data_offsets"])
            ref = _TensorRef(path, str(info["dtype"]), tuple(int(s) for s in info["shape"]), 8 + n + begin, 8 + n + end)
        except (KeyError, TypeError, ValueError):
            raise ModelError(f"{path}: malformed safetensors entry for {key}") from None
        if ref.end > size or ref.start > ref.end:
            raise ModelError(f"{path}: tensor {key} lies outside the file (truncated download?)")
        refs[key] = ref
    return refs


class Weights(Mapping[str, np.ndarray]):
    """Read-only mapping: legacy tensor name → float32 array (memory-mapped; see module doc)."""

    def __init__(self, refs: dict[str, _TensorRef], aliases: dict[str, str] | None = None):
        self._refs = refs
        self._aliases = dict(aliases or {})
        self._maps: dict[Path, np.memmap] = {}
        self._converted: dict[str, np.ndarray] = {}  # f16/bf16 → f32, kept after first use

    def _map(self, file: Path) -> np.memmap:
        m = self._maps.get(file)
        if m is None:
            m = self._maps[file] = np.memmap(file, dtype=np.uint8, mode="r")
        return m

    def dtype_of(self, key: str) -> str:
        """The on-disk safetensors dtype of a tensor ("F32", "BF16", ...)."""
        return self._refs[self._aliases.get(key, key)].dtype

    def shape_of(self, key: str) -> tuple[int, ...]:
        """The shape of a tensor without touching its data."""
        return self._refs[self._aliases.get(key, key)].shape

    def __getitem__(self, key: str) -> np.ndarray:
        key = self._aliases.get(key, key)
        if key in self._converted:
            return self._converted[key]
        ref = self._refs[key]  # KeyError for unknown names, as a Mapping should
        storage = _ST_DTYPES.get(ref.dtype)
        if storage is None:
            raise ModelError(f"{ref.file}: tensor {key} has unsupported dtype {ref.dtype}")
        count = int(np.prod(ref.shape, dtype=np.int64))
        if count * storage.itemsize != ref.end - ref.start:
            raise ModelError(f"{ref.file}: tensor {key} byte size does not match its shape {list(ref.shape)}")
        raw = np.frombuffer(self._map(ref.file), dtype=storage, count=count, offset=ref.start).reshape(ref.shape)
        if ref.dtype == "F32":
            return raw  # zero-copy view of the read-only map
        if ref.dtype == "BF16":  # bf16 is the top half of an f32
            arr = (raw.astype(np.uint32) << 16).view(np.float32)
        else:
            arr = raw.astype(np.float32)
        arr.setflags(write=False)
        self._converted[key] = arr
        return arr

    def __iter__(self) -> Iterator[str]:
        yield from self._refs
        yield from (a for a in self._aliases if a not in self._refs)

    def __len__(self) -> int:
        return len(self._refs) + sum(1 for a in self._aliases if a not in self._refs)

    def __contains__(self, key: object) -> bool:
        return key in self._refs or key in self._aliases


def _open_weights(model_dir: Path) -> dict[str, _TensorRef]:
    """All tensors of a checkpoint (single file or sharded via the index), by legacy name."""
    index = model_dir / "model.safetensors.index.json"
    if index.exists():
        weight_map = read_json(index, "safetensors index").get("weight_map")
        if not isinstance(weight_map, dict) or not weight_map:
            raise ModelError(f"{index}: has no 'weight_map'")
        files = sorted({str(f) for f in weight_map.values()})
    elif (model_dir / "model.safetensors").exists():
        files = ["model.safetensors"]
    else:
        files = sorted(p.name for p in model_dir.glob("*.safetensors"))
        if not files:
            has_bin = any(model_dir.glob("*.bin"))
            extra = " (only PyTorch .bin weights; convert them to safetensors)" if has_bin else ""
            raise ModelError(f"{model_dir}: no model.safetensors weights{extra}")
    refs: dict[str, _TensorRef] = {}
    for name in files:
        path = model_dir / name
        if not path.exists():
            raise ModelError(f"{model_dir}: weight shard {name} is missing (incomplete download?)")
        for key, ref in _read_safetensors_header(path).items():
            refs[to_legacy_key(key)] = ref
    return refs


# ----------------------------------------------------------------------------- checkpoint


@dataclass(frozen=True)
class Checkpoint:
    """A loaded checkpoint directory: parsed configs and the weight mapping."""

    path: Path
    config: ModelConfig
    preprocessor: PreprocessorConfig
    generation: GenerationDefaults
    weights: Weights

    @property
    def stop_token_ids(self) -> tuple[int, ...]:
        """Ids that end generation: generation_config's eos list, else config.json's eos."""
        return self.generation.eos_token_ids or self.config.eos_token_ids


def _check_depths(model_dir: Path, config: ModelConfig, refs: dict) -> None:
    """The layer counts of config.json against the layers the weights hold, before anything
    is sized by them: ``num_hidden_layers: 1000000000`` would list (and allocate for) a
    billion layers' tensors before the first missing one is noticed."""
    for what, prefix, count in (("num_hidden_layers", "model.layers.", config.text.num_hidden_layers),
                                ("vision depth", "visual.blocks.", config.vision.depth)):
        have = {key[len(prefix):].split(".", 1)[0] for key in refs if key.startswith(prefix)}
        held = sum(1 for i in have if i.isdigit())
        if count > held:
            raise ModelError(f"{model_dir}: config.json says {what} {count}, the weights hold "
                             f"{held} layers")


def load_checkpoint(model_dir: str | os.PathLike[str]) -> Checkpoint:
    """Open a checkpoint directory; validate configs and every tensor's presence and shape.

    Raises ModelError (one line) naming the first problem: no/invalid config.json, not a Qwen2-VL
    model, no weights, or the first missing / mis-shaped tensor.
    """
    model_dir = Path(model_dir).expanduser()
    if not model_dir.is_dir():
        raise ModelError(f"{model_dir}: no such checkpoint directory")
    cfg_path = model_dir / "config.json"
    raw_cfg = read_json(cfg_path, "model config")
    check_model_type(raw_cfg, str(cfg_path))  # before anything else, so the message is about the family
    config = parse_model_config(raw_cfg, where=str(cfg_path))
    preprocessor = load_preprocessor_config(model_dir)
    generation = load_generation_defaults(model_dir, config)

    refs = _open_weights(model_dir)
    aliases: dict[str, str] = {}
    if "lm_head.weight" not in refs:
        if not config.text.tie_word_embeddings:
            raise ModelError(f"{model_dir}: missing tensor lm_head.weight (config says tie_word_embeddings=false)")
        aliases["lm_head.weight"] = "model.embed_tokens.weight"
    _check_depths(model_dir, config, refs)  # before expected_shapes lists every layer's tensors
    expected = expected_shapes(config)
    if "lm_head.weight" in refs:  # some tied releases still store a copy; check it too
        expected["lm_head.weight"] = expected["model.embed_tokens.weight"]
    for key, shape in expected.items():
        ref = refs.get(key)
        if ref is None:
            raise ModelError(f"{model_dir}: missing tensor {key} (expected shape {list(shape)})")
        if ref.shape != shape:
            raise ModelError(f"{model_dir}: tensor {key} has shape {list(ref.shape)}, expected {list(shape)}")
        if ref.dtype not in _ST_DTYPES:
            raise ModelError(f"{model_dir}: tensor {key} has unsupported dtype {ref.dtype}")
    return Checkpoint(model_dir, config, preprocessor, generation, Weights(refs, aliases))
