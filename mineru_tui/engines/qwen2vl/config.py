"""Configuration of a Qwen2-VL checkpoint (MinerU2.5) as plain dataclasses.

Parses the four JSON files of a Hugging Face checkpoint directory:

* ``config.json`` — both the legacy flat form written by transformers 4.x (text fields at the top
  level, ``vision_config`` nested, ``rope_scaling = {"type": "mrope", "mrope_section": [...]}``)
  and the transformers-5 nested form (``text_config`` with ``rope_parameters``);
* ``preprocessor_config.json`` — ``min_pixels``/``max_pixels`` or transformers-5
  ``size = {"shortest_edge": min_pixels, "longest_edge": max_pixels}`` (pixel *counts*);
* ``generation_config.json`` — stop ids and decoding knobs.

Nothing here reads tensors; see ``checkpoint.py`` for that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mineru_tui.engines.errors import ModelError

# transformers' Qwen2VLImageProcessor class defaults, used only when the file has no budget.
DEFAULT_MIN_PIXELS = 56 * 56  # 3136
DEFAULT_MAX_PIXELS = 28 * 28 * 1280  # 1_003_520
OPENAI_CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
OPENAI_CLIP_STD = (0.26862954, 0.26130258, 0.27577711)

SUPPORTED_MODEL_TYPES = ("qwen2_vl",)
SUPPORTED_ARCHITECTURES = ("Qwen2VLForConditionalGeneration",)


@dataclass(frozen=True)
class VisionConfig:
    """The ViT + PatchMerger (``vision_config``). Real MinerU2.5: 1280 / 32 blocks / 16 heads."""

    embed_dim: int = 1280
    depth: int = 32
    num_heads: int = 16
    mlp_ratio: float = 4.0
    hidden_size: int = 896  # PatchMerger output = text hidden size
    in_channels: int = 3
    patch_size: int = 14
    spatial_merge_size: int = 2
    temporal_patch_size: int = 2
    hidden_act: str = "quick_gelu"
    rope_theta: float = 10000.0  # 2-D rotary of the ViT (not in released configs; class default)
    layer_norm_eps: float = 1e-6

    @property
    def head_dim(self) -> int:
        return self.embed_dim // self.num_heads

    @property
    def mlp_dim(self) -> int:
        """fc1 output width (embed_dim · mlp_ratio)."""
        return int(self.embed_dim * self.mlp_ratio)

    @property
    def patch_dim(self) -> int:
        """Columns of ``pixel_values``: C · T · P · P (1176 for 3·2·14·14)."""
        return self.in_channels * self.temporal_patch_size * self.patch_size * self.patch_size

    @property
    def merged_dim(self) -> int:
        """PatchMerger MLP width: embed_dim · merge² (5120 for 1280)."""
        return self.embed_dim * self.spatial_merge_size**2


@dataclass(frozen=True)
class TextConfig:
    """The Qwen2 decoder. Real MinerU2.5: 896 / 24 layers / 14 q heads / 2 kv heads / head 64."""

    hidden_size: int = 896
    num_hidden_layers: int = 24
    num_attention_heads: int = 14
    num_key_value_heads: int = 2
    head_dim: int = 64
    intermediate_size: int = 4864
    vocab_size: int = 151936
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1000000.0
    mrope_section: tuple[int, int, int] = (8, 12, 12)  # frequency indices for the t, h, w streams
    max_position_embeddings: int = 32768
    tie_word_embeddings: bool = True
    hidden_act: str = "silu"


@dataclass(frozen=True)
class PreprocessorConfig:
    """Image preprocessing (``preprocessor_config.json``)."""

    min_pixels: int = DEFAULT_MIN_PIXELS
    max_pixels: int = DEFAULT_MAX_PIXELS
    image_mean: tuple[float, float, float] = OPENAI_CLIP_MEAN
    image_std: tuple[float, float, float] = OPENAI_CLIP_STD
    patch_size: int = 14
    merge_size: int = 2
    temporal_patch_size: int = 2
    rescale_factor: float = 1 / 255

    @property
    def factor(self) -> int:
        """smart_resize granularity: one merged token covers factor × factor pixels (28)."""
        return self.patch_size * self.merge_size


@dataclass(frozen=True)
class GenerationDefaults:
    """Decoding defaults from ``generation_config.json`` (stop ids and any sampling knobs it sets)."""

    eos_token_ids: tuple[int, ...] = ()
    pad_token_id: int | None = None
    bos_token_id: int | None = None
    repetition_penalty: float | None = None
    no_repeat_ngram_size: int | None = None
    max_new_tokens: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # every other key, untouched


@dataclass(frozen=True)
class ModelConfig:
    """``config.json``: the two towers and the special token ids the forward pass needs."""

    vision: VisionConfig
    text: TextConfig
    image_token_id: int
    video_token_id: int
    vision_start_token_id: int
    vision_end_token_id: int
    eos_token_ids: tuple[int, ...] = ()
    pad_token_id: int | None = None
    model_type: str = "qwen2_vl"


# ----------------------------------------------------------------------------- helpers


def read_json(path: Path, what: str) -> dict[str, Any]:
    """Read one JSON object; any failure becomes a one-line ModelError naming the file."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ModelError(f"{path.parent}: no {path.name} — not a Hugging Face checkpoint directory ({what})") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelError(f"{path}: cannot read {what}: {e}") from None
    except RecursionError:
        raise ModelError(f"{path}: cannot read {what}: its JSON is nested too deeply") from None
    if not isinstance(data, dict):
        raise ModelError(f"{path}: {what} is not a JSON object")
    return data


def _ids(value: Any) -> tuple[int, ...]:
    """An id or list of ids (None → empty)."""
    if value is None:
        return ()
    if isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value)
    return (int(value),)


class _Fields:
    """Looks a key up in several dicts in order (e.g. text_config, then the top level)."""

    def __init__(self, where: str, *dicts: dict[str, Any]):
        self.where = where
        self.dicts = [d for d in dicts if isinstance(d, dict)]

    def get(self, *names: str, default: Any = None) -> Any:
        for d in self.dicts:
            for n in names:
                if d.get(n) is not None:
                    return d[n]
        return default

    def need(self, *names: str) -> Any:
        v = self.get(*names)
        if v is None:
            raise ModelError(f"{self.where}: missing '{names[0]}'")
        return v


def _as_int(where: str, name: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
        raise ModelError(f"{where}: '{name}' must be an integer, got {v!r}")
    return int(v)


# ----------------------------------------------------------------------------- parsing


def check_model_type(cfg: dict[str, Any], where: str = "config.json") -> None:
    """Refuse configs of other model families with a clear message."""
    model_type = cfg.get("model_type")
    archs = cfg.get("architectures") or []
    if model_type in SUPPORTED_MODEL_TYPES or any(a in SUPPORTED_ARCHITECTURES for a in archs):
        return
    found = model_type or (", ".join(archs) if archs else "no model_type")
    hint = " (Qwen2.5-VL and later are different models)" if str(model_type).startswith("qwen2_5") else ""
    raise ModelError(f"{where}: not a Qwen2-VL checkpoint (found {found}){hint}")


def parse_model_config(cfg: dict[str, Any], where: str = "config.json") -> ModelConfig:
    """Build a validated ModelConfig from a legacy flat or transformers-5 nested config dict."""
    check_model_type(cfg, where)
    tc = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
    t = _Fields(where, tc, cfg)  # nested values win, the top level is the legacy home
    vc = cfg.get("vision_config")
    if not isinstance(vc, dict):
        raise ModelError(f"{where}: missing 'vision_config'")
    v = _Fields(f"{where} vision_config", vc)

    # M-RoPE: legacy rope_scaling {"type": "mrope", ...}; transformers 5 rope_parameters {...}.
    rope = t.get("rope_parameters", "rope_scaling", default={}) or {}
    mrope = rope.get("mrope_section")
    if mrope is None:
        raise ModelError(f"{where}: missing 'mrope_section' (rope_scaling / rope_parameters)")
    rope_theta = rope.get("rope_theta", t.get("rope_theta", default=1000000.0))

    hidden = _as_int(where, "hidden_size", t.need("hidden_size"))
    n_heads = _as_int(where, "num_attention_heads", t.need("num_attention_heads"))
    n_kv = _as_int(where, "num_key_value_heads", t.get("num_key_value_heads", default=n_heads))
    if n_heads <= 0 or hidden % n_heads:
        raise ModelError(f"{where}: hidden_size {hidden} is not divisible by num_attention_heads {n_heads}")
    head_dim = _as_int(where, "head_dim", t.get("head_dim", default=hidden // n_heads))
    text = TextConfig(
        hidden_size=hidden,
        num_hidden_layers=_as_int(where, "num_hidden_layers", t.need("num_hidden_layers")),
        num_attention_heads=n_heads,
        num_key_value_heads=n_kv,
        head_dim=head_dim,
        intermediate_size=_as_int(where, "intermediate_size", t.need("intermediate_size")),
        vocab_size=_as_int(where, "vocab_size", t.need("vocab_size")),
        rms_norm_eps=float(t.get("rms_norm_eps", default=1e-6)),
        rope_theta=float(rope_theta),
        mrope_section=tuple(_as_int(where, "mrope_section", x) for x in mrope),
        max_position_embeddings=_as_int(where, "max_position_embeddings", t.get("max_position_embeddings", default=32768)),
        # the composite model's flag (top level) decides; a text_config copy may carry a class default
        tie_word_embeddings=bool(_Fields(where, cfg, tc).get("tie_word_embeddings", default=True)),
        hidden_act=str(t.get("hidden_act", default="silu")),
    )
    if len(text.mrope_section) != 3 or sum(text.mrope_section) * 2 != head_dim:
        raise ModelError(
            f"{where}: mrope_section {list(text.mrope_section)} must have 3 parts summing to head_dim/2 = {head_dim // 2}"
        )
    if n_kv <= 0 or n_heads % n_kv:
        raise ModelError(f"{where}: num_attention_heads {n_heads} is not a multiple of num_key_value_heads {n_kv}")

    embed_dim = _as_int(where, "embed_dim", v.need("embed_dim"))
    v_heads = _as_int(where, "num_heads", v.need("num_heads"))
    vision = VisionConfig(
        embed_dim=embed_dim,
        depth=_as_int(where, "depth", v.need("depth")),
        num_heads=v_heads,
        mlp_ratio=float(v.get("mlp_ratio", default=4.0)),
        hidden_size=_as_int(where, "hidden_size", v.get("hidden_size", default=hidden)),
        in_channels=_as_int(where, "in_channels", v.get("in_channels", "in_chans", default=3)),
        patch_size=_as_int(where, "patch_size", v.get("patch_size", "spatial_patch_size", default=14)),
        spatial_merge_size=_as_int(where, "spatial_merge_size", v.get("spatial_merge_size", default=2)),
        temporal_patch_size=_as_int(where, "temporal_patch_size", v.get("temporal_patch_size", default=2)),
        hidden_act=str(v.get("hidden_act", default="quick_gelu")),
        rope_theta=float(v.get("rope_theta", default=10000.0)),
    )
    if v_heads <= 0 or embed_dim % v_heads or (embed_dim // v_heads) % 4:
        raise ModelError(
            f"{where}: vision embed_dim {embed_dim} / num_heads {v_heads} must give a head_dim divisible by 4 (2-D rotary)"
        )
    if vision.hidden_size != hidden:
        raise ModelError(f"{where}: vision hidden_size {vision.hidden_size} (merger output) != text hidden_size {hidden}")

    top = _Fields(where, cfg, tc)  # token ids live at the top level in both forms
    return ModelConfig(
        vision=vision,
        text=text,
        image_token_id=_as_int(where, "image_token_id", top.need("image_token_id")),
        video_token_id=_as_int(where, "video_token_id", top.need("video_token_id")),
        vision_start_token_id=_as_int(where, "vision_start_token_id", top.need("vision_start_token_id")),
        vision_end_token_id=_as_int(where, "vision_end_token_id", top.need("vision_end_token_id")),
        eos_token_ids=_ids(top.get("eos_token_id")),
        pad_token_id=top.get("pad_token_id"),
        model_type=str(cfg.get("model_type", "qwen2_vl")),
    )


def parse_preprocessor_config(pp: dict[str, Any], where: str = "preprocessor_config.json") -> PreprocessorConfig:
    """Pixel budget, normalisation and patch geometry (both key spellings of the budget)."""
    size = pp.get("size") if isinstance(pp.get("size"), dict) else {}
    # transformers 5: size = {shortest_edge: min_pixels, longest_edge: max_pixels} (pixel counts);
    # some 4.4x files: size = {min_pixels, max_pixels}. Explicit top-level keys win.
    min_px = pp.get("min_pixels", size.get("min_pixels", size.get("shortest_edge", DEFAULT_MIN_PIXELS)))
    max_px = pp.get("max_pixels", size.get("max_pixels", size.get("longest_edge", DEFAULT_MAX_PIXELS)))
    mean = tuple(float(x) for x in pp.get("image_mean", OPENAI_CLIP_MEAN))
    std = tuple(float(x) for x in pp.get("image_std", OPENAI_CLIP_STD))
    out = PreprocessorConfig(
        min_pixels=_as_int(where, "min_pixels", min_px),
        max_pixels=_as_int(where, "max_pixels", max_px),
        image_mean=mean,  # type: ignore[arg-type]
        image_std=std,  # type: ignore[arg-type]
        patch_size=_as_int(where, "patch_size", pp.get("patch_size", 14)),
        merge_size=_as_int(where, "merge_size", pp.get("merge_size", 2)),
        temporal_patch_size=_as_int(where, "temporal_patch_size", pp.get("temporal_patch_size", 2)),
        rescale_factor=float(pp.get("rescale_factor", 1 / 255)),
    )
    if len(mean) != 3 or len(std) != 3 or any(s <= 0 for s in std):
        raise ModelError(f"{where}: image_mean/image_std must be 3 values (std > 0)")
    if not 0 < out.min_pixels <= out.max_pixels:
        raise ModelError(f"{where}: need 0 < min_pixels <= max_pixels, got {out.min_pixels}, {out.max_pixels}")
    return out


def parse_generation_config(gen: dict[str, Any]) -> GenerationDefaults:
    """Stop ids and the few decoding knobs we honour; everything else is kept in ``extra``."""
    known = {"eos_token_id", "pad_token_id", "bos_token_id", "repetition_penalty", "no_repeat_ngram_size", "max_new_tokens"}
    rp, nr, mnt = gen.get("repetition_penalty"), gen.get("no_repeat_ngram_size"), gen.get("max_new_tokens")
    return GenerationDefaults(
        eos_token_ids=_ids(gen.get("eos_token_id")),
        pad_token_id=gen.get("pad_token_id"),
        bos_token_id=gen.get("bos_token_id"),
        repetition_penalty=None if rp is None else float(rp),
        no_repeat_ngram_size=None if nr is None else int(nr),
        max_new_tokens=None if mnt is None else int(mnt),
        extra={k: v for k, v in gen.items() if k not in known},
    )


def load_model_config(model_dir: str | Path) -> ModelConfig:
    """``config.json`` of a checkpoint directory → ModelConfig."""
    p = Path(model_dir) / "config.json"
    return parse_model_config(read_json(p, "model config"), where=str(p))


def load_preprocessor_config(model_dir: str | Path) -> PreprocessorConfig:
    """``preprocessor_config.json`` → PreprocessorConfig (class defaults when the file is absent)."""
    p = Path(model_dir) / "preprocessor_config.json"
    if not p.exists():
        return PreprocessorConfig()
    return parse_preprocessor_config(read_json(p, "image preprocessor config"), where=str(p))


def load_generation_defaults(model_dir: str | Path, config: ModelConfig | None = None) -> GenerationDefaults:
    """``generation_config.json`` → GenerationDefaults; stop ids fall back to config.json's eos."""
    p = Path(model_dir) / "generation_config.json"
    gen = parse_generation_config(read_json(p, "generation config")) if p.exists() else GenerationDefaults()
    if not gen.eos_token_ids and config is not None and config.eos_token_ids:
        gen = GenerationDefaults(**{**gen.__dict__, "eos_token_ids": config.eos_token_ids})
    return gen
