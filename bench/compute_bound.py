"""Compute bounds for the page benchmark: each stage's FLOPs over this CPU's measured peak.

* FLOPs of MinerU2.5's stages from its config: the vision tower (patch embedding, 32 blocks of
  linears and full attention per image, the merger), the decoder's prefill (linears, causal
  attention, logits for the last position) and decode (linears, attention over the context,
  the logits) — multiply-adds counted as 2.
* Peaks measured here, at the precision the engine computes in: a large matmul through numpy
  (f32, the numpy engine) or through OpenVINO (bf16 where the CPU has it, else f32), best of a
  few; and the memory bandwidth (numpy summing 1 GiB), since one decode step reads every weight
  once: its bound is the larger of FLOPs/peak and weight bytes/bandwidth (a roofline).

A stage can never run faster than its bound; the ratio measured/bound says how far an engine is
from what this CPU can do.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import numpy as np


def image_patches(size: tuple[int, int], pre) -> int:
    """Patches the vision tower sees for an image of ``size`` (w, h), after ``smart_resize``."""
    from mineru_tui.engines.qwen2vl.preprocess import smart_resize

    w, h = size
    rh, rw = smart_resize(h, w, pre.factor, pre.min_pixels, pre.max_pixels)
    return (rh // pre.patch_size) * (rw // pre.patch_size)


def vision_flops(patches: Iterable[int], v) -> float:
    """FLOPs of the vision tower and merger over images of ``patches`` patches each."""
    E, F = v.embed_dim, v.mlp_dim
    total = 0.0
    for n in patches:
        block = 2 * n * (E * 3 * E + E * E + 2 * E * F) + 4 * n * n * E  # linears + QKᵀ and PV
        merger = 2 * (n // 4) * (4 * E * 4 * E + 4 * E * v.hidden_size)
        total += 2 * n * v.patch_dim * E + v.depth * block + merger
    return total


def decoder_linear_params(t) -> int:
    """Weights one token meets in the decoder's linears (without the lm_head)."""
    H, D = t.hidden_size, t.head_dim
    kv = t.num_key_value_heads * D
    return t.num_hidden_layers * (H * H + 2 * H * kv + H * H + 3 * H * t.intermediate_size)


def prefill_flops(tokens: int, requests: int, t) -> float:
    """Prefill of ``tokens`` prompt tokens over ``requests`` prompts (causal attention at the mean
    prompt length; logits for each prompt's last position)."""
    if tokens <= 0:
        return 0.0
    mean = tokens / max(requests, 1)
    attn = t.num_hidden_layers * 4 * t.num_attention_heads * t.head_dim * tokens * mean / 2
    return 2.0 * tokens * decoder_linear_params(t) + attn + requests * 2.0 * t.hidden_size * t.vocab_size


def decode_flops(tokens: int, context: float, t) -> float:
    """``tokens`` decode steps' rows at a mean context of ``context`` positions."""
    per = 2.0 * (decoder_linear_params(t) + t.hidden_size * t.vocab_size)
    return tokens * (per + t.num_hidden_layers * 4 * t.num_attention_heads * t.head_dim * context)


def decoder_weight_bytes(t, bytes_per_weight: float) -> float:
    """Bytes of decoder weights read by one decode step (linears + lm_head)."""
    return (decoder_linear_params(t) + t.hidden_size * t.vocab_size) * bytes_per_weight


def _best(fn, rounds: int) -> float:
    fn()
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def numpy_peak(n: int = 2048, rounds: int = 5) -> float:
    """numpy's f32 matmul FLOP/s (its BLAS, all threads)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    return 2 * n**3 / _best(lambda: a @ b, rounds)


def openvino_peak(precision: str, m: int = 8192, k: int = 2560, rounds: int = 5) -> float:
    """OpenVINO's matmul FLOP/s on the CPU at an inference precision (``bf16`` | ``f32``): four
    chained [m,k]×[k,k] matmuls, so the weights stay in the cache and the kernel is the limit."""
    import openvino as ov
    import openvino.opset13 as op

    rng = np.random.default_rng(0)
    x = op.parameter([m, k], ov.Type.f32, name="x")
    y = x
    for _ in range(4):
        y = op.matmul(y, op.constant((rng.standard_normal((k, k)) * 0.02).astype(np.float32)), False, False)
    compiled = ov.Core().compile_model(ov.Model([y], [x]), "CPU", {"INFERENCE_PRECISION_HINT": precision})
    req = compiled.create_infer_request()
    feed = {"x": rng.standard_normal((m, k)).astype(np.float32)}
    return 4 * 2 * m * k * k / _best(lambda: req.infer(feed), rounds)


def openvino_precision(extra: dict) -> str:
    """The precision OpenVINO computes the matmuls in for the engine's options."""
    import openvino as ov

    if extra.get("precision") == "f32":
        return "f32"
    return "bf16" if "BF16" in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES") else "f32"


def bandwidth(gib: float = 1.0, rounds: int = 3) -> float:
    """Bytes/s numpy reads from memory (summing a ``gib`` GiB array)."""
    a = np.ones(int(gib * 2**30) // 4, np.float32)
    return a.nbytes / _best(lambda: a.sum(), rounds)
