"""Write a MinerU2.5 / Qwen2-VL checkpoint as the two GGUF files llama.cpp serves.

    python -m mineru_tui.engines.gguf_export CHECKPOINT OUT_DIR [--type q8_0|f16|f32]
    -> OUT_DIR/model-<type>.gguf (text model) and OUT_DIR/mmproj-f16.gguf (vision + merger)

The same metadata and tensor layout as llama.cpp's own ``convert_hf_to_gguf.py`` (its
``Qwen2VLModel`` / ``Qwen2VLVisionModel``): architecture ``qwen2vl`` with M-RoPE sections, the
Qwen2 byte-level BPE vocabulary (pre-tokenizer ``qwen2``, special tokens as control tokens,
merges and chat template from the checkpoint), and a ``clip`` projector file of type
``qwen2vl_merger`` whose fused ``qkv`` is split into q/k/v and whose Conv3D patch embedding is
split into its two temporal Conv2D slices. Written with numpy and the ``gguf`` package only
(llama.cpp's converter needs torch and transformers); the ``llama-cpp`` extra brings ``gguf``.
Unlike that converter it also handles a vision depth below 3 (its tensor map then misses
``visual.merger.mlp.2``), so the tests' tiny checkpoint converts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

TYPES = ("q8_0", "f16", "f32")


def _load_tensors(model_dir: Path) -> dict[str, np.ndarray]:
    """All tensors as float32 numpy arrays, under the release (legacy) names."""
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint

    weights = load_checkpoint(model_dir).weights  # legacy names, float32, memory-mapped
    return {name: weights[name] for name in weights}


def _vocab(writer, model_dir: Path, vocab_size: int) -> None:
    """Qwen2 byte-level BPE as llama.cpp's ``_set_vocab_gpt2`` writes it."""
    import gguf

    tok = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    id_to_tok = {i: t for t, i in tok["model"]["vocab"].items()}
    special = {a["id"]: a for a in tok.get("added_tokens", [])}
    for i, a in special.items():
        id_to_tok[i] = a["content"]
    tokens, types = [], []
    for i in range(vocab_size):
        if i not in id_to_tok:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
        elif i in special:
            tokens.append(id_to_tok[i])
            types.append(gguf.TokenType.CONTROL if special[i].get("special", True) else gguf.TokenType.USER_DEFINED)
        else:
            tokens.append(id_to_tok[i])
            types.append(gguf.TokenType.NORMAL)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    gguf.SpecialVocab(model_dir, load_merges=True, n_vocab=vocab_size).add_to_gguf(writer)
    if not any(gguf.Keys.Tokenizer.ADD_BOS in kv for kv in writer.kv_data):
        writer.add_add_bos_token(False)  # Qwen2 prompts start without a BOS


def _add(writer, name: str, arr: np.ndarray, qtype: str) -> None:
    """Matrices in the chosen type; 1-D tensors (norms, biases) stay float32, as upstream."""
    import gguf
    from gguf.quants import quantize

    if arr.ndim < 2 or qtype == "f32":
        writer.add_tensor(name, np.ascontiguousarray(arr, dtype=np.float32))
    elif qtype == "f16":
        writer.add_tensor(name, np.ascontiguousarray(arr, dtype=np.float16))
    else:
        if arr.shape[-1] % 32:  # Q8_0 blocks are 32 wide; upstream falls back to f16 too
            writer.add_tensor(name, np.ascontiguousarray(arr, dtype=np.float16))
            return
        q = quantize(np.ascontiguousarray(arr, dtype=np.float32), gguf.GGMLQuantizationType.Q8_0)
        writer.add_tensor(name, q, raw_shape=q.shape, raw_dtype=gguf.GGMLQuantizationType.Q8_0)


def write_text_model(model_dir: Path, out: Path, tensors: dict[str, np.ndarray], qtype: str) -> Path:
    import gguf

    cfg = json.loads((model_dir / "config.json").read_text())
    text = {**cfg, **cfg.get("text_config", {})}
    n_layers = text["num_hidden_layers"]
    path = out / f"model-{qtype}.gguf"
    w = gguf.GGUFWriter(str(path), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.QWEN2VL])
    w.add_name(model_dir.name)
    w.add_file_type({"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16,
                     "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[qtype])
    w.add_block_count(n_layers)
    w.add_context_length(text["max_position_embeddings"])
    w.add_embedding_length(text["hidden_size"])
    w.add_feed_forward_length(text["intermediate_size"])
    w.add_head_count(text["num_attention_heads"])
    w.add_head_count_kv(text["num_key_value_heads"])
    w.add_rope_freq_base(text.get("rope_theta", (text.get("rope_parameters") or {}).get("rope_theta", 1e6)))
    w.add_layer_norm_rms_eps(text["rms_norm_eps"])
    rope = text.get("rope_scaling") or text.get("rope_parameters") or {}
    sections = list(rope.get("mrope_section", [16, 24, 24]))
    w.add_rope_dimension_sections((sections + [0, 0, 0, 0])[:4])
    _vocab(w, model_dir, text["vocab_size"])
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.QWEN2VL, n_layers)
    for name, arr in tensors.items():
        if name.startswith("visual."):
            continue
        if name == "lm_head.weight" and text.get("tie_word_embeddings", False):
            continue
        new = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new is None:
            raise ValueError(f"no GGUF name for tensor {name}")
        _add(w, new, arr, qtype)
    _finish(w)
    return path


def write_projector(model_dir: Path, out: Path, tensors: dict[str, np.ndarray]) -> Path:
    import gguf

    cfg = json.loads((model_dir / "config.json").read_text())
    vis = cfg["vision_config"]
    text_hidden = cfg.get("text_config", {}).get("hidden_size", cfg.get("hidden_size"))
    pre = json.loads((model_dir / "preprocessor_config.json").read_text())
    depth = vis["depth"]
    path = out / "mmproj-f16.gguf"
    w = gguf.GGUFWriter(str(path), gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.MMPROJ])
    w.add_type(gguf.GGUFType.MMPROJ)
    w.add_name(model_dir.name)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_clip_has_vision_encoder(True)
    w.add_vision_projection_dim(text_hidden)
    w.add_vision_image_size(vis.get("image_size", 560))
    w.add_vision_patch_size(vis["patch_size"])
    w.add_vision_embedding_length(vis["embed_dim"])
    w.add_vision_feed_forward_length(vis["hidden_size"])  # as upstream for qwen2_vl
    w.add_vision_block_count(depth)
    w.add_vision_head_count(vis["num_heads"])
    w.add_vision_image_mean(pre["image_mean"])
    w.add_vision_image_std(pre["image_std"])
    w.add_clip_projector_type(gguf.VisionProjectorType.QWEN2VL)
    w.add_vision_attention_layernorm_eps(cfg.get("rms_norm_eps", 1e-6))
    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.MMPROJ, max(depth, 3))  # >= 3: mm.2 is in range
    patch = gguf.TENSOR_NAMES[gguf.MODEL_TENSOR.V_ENC_EMBD_PATCH]
    for name, arr in tensors.items():
        if not name.startswith("visual."):
            continue
        if "patch_embed.proj.weight" in name:  # Conv3D [C, 3, 2, p, p] -> two Conv2D slices
            _add(w, f"{patch}.weight", arr[:, :, 0], "f16")
            _add(w, f"{patch}.weight.1", arr[:, :, 1], "f16")
            continue
        parts = [(name, arr)]
        if ".qkv." in name:
            q, k, v = np.split(arr, 3, axis=0)
            parts = [(name.replace("qkv", "q"), q), (name.replace("qkv", "k"), k), (name.replace("qkv", "v"), v)]
        for part_name, part in parts:
            new = names.get_name(part_name, try_suffixes=(".weight", ".bias"))
            if new is None:
                raise ValueError(f"no GGUF name for tensor {part_name}")
            _add(w, new, part, "f16")
    _finish(w)
    return path


def _finish(writer) -> None:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def export(model_dir: str | Path, out_dir: str | Path, qtype: str = "q8_0") -> tuple[Path, Path]:
    """Write (text model, projector) GGUF files for a checkpoint directory; returns their paths."""
    if qtype not in TYPES:
        raise ValueError(f"type must be one of {', '.join(TYPES)}")
    model_dir, out = Path(model_dir), Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tensors = _load_tensors(model_dir)
    return write_text_model(model_dir, out, tensors, qtype), write_projector(model_dir, out, tensors)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mineru_tui.engines.gguf_export",
                                     description="Convert a MinerU2.5 checkpoint to GGUF for llama.cpp.")
    parser.add_argument("checkpoint", help="checkpoint directory (config.json, model.safetensors, tokenizer.json)")
    parser.add_argument("out_dir")
    parser.add_argument("--type", default="q8_0", choices=TYPES, help="text model weights (default q8_0)")
    args = parser.parse_args(argv)
    try:
        model, proj = export(args.checkpoint, args.out_dir, args.type)
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(model)
    print(proj)
    return 0


if __name__ == "__main__":
    sys.exit(main())
