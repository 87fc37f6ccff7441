"""Run MinerU2.5's forward passes in OpenVINO behind the reader's host side.

    model = open_openvino_model("path/or/repo")          # the host's Model (engines/qwen2vl/)
    model.generate(image, "\\nText Recognition:")

:class:`OVVision` is a ``VisionTower``-like callable and :class:`OVTextForward` a
``TextForward`` (``engines/qwen2vl/kv_cache.py``): preprocessing, prompt, M-RoPE, masks, sampling, streaming,
cancel and batching are the host's code (``engines/qwen2vl/generate.py``); only the two
forward passes run in OpenVINO. The KV cache is the host's ``KVCache`` (see ``text.py``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mineru_tui.engines.qwen2vl.config import TextConfig, VisionConfig
from mineru_tui.engines.qwen2vl.kv_cache import CacheMemory, KVCache, LogitsWhich
from mineru_tui.engines.qwen2vl.rope import vision_cos_sin
from .vision import batch_layout

MASK_MIN = np.float32(-1e30)  # −inf in the host's masks (finite: no inf − inf anywhere)
# Attention in a vision call of images of different sizes is padded to the largest; images join
# a call while the padded attention costs at most this much more than attention image by image.
PAD_COST = 1.3
# Padded rows (B·Lmax) per vision call: bounds the activation memory of a call of several crops
# (a single larger image still runs alone in one call).
CALL_PATCHES = 4096


# Linear-weight formats per precision: (decoder, vision tower). The precisions are those of
# ``cli.options.Precision`` (a test keeps the two equal; the CLI does not import this module).
# int4: the decoder's layers group-wise int4 (its lm_head stays int8), the vision tower int8.
WEIGHT_FORMATS = {"default": ("int8", "int8"), "f32": ("f32", "f32"), "int4": ("int4", "int8")}
PRECISIONS = tuple(WEIGHT_FORMATS)


def weights_for(precision: str) -> str:
    """The decoder's linear-weight format for a precision: int8 by default, f32 for the exact mode."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r} (one of {', '.join(PRECISIONS)})")
    return WEIGHT_FORMATS[precision][0]


def vision_weights_for(precision: str) -> str:
    """The vision tower's linear-weight format for a precision."""
    weights_for(precision)
    return WEIGHT_FORMATS[precision][1]


DECODER_ACTIVATIONS = ("int8", "bf16", "split")
VISION_ACTIVATIONS = ("auto", "int8", "bf16")


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags as Linux lists them (``/proc/cpuinfo``); empty elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


VNNI_CAPS = ("VNNI", "AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX10", "AMX")  # oneDNN ISAs with VNNI


def onednn_capped(flags: frozenset[str] | set[str], cap: str | None) -> frozenset[str]:
    """``flags`` without what oneDNN may not use under ``ONEDNN_MAX_CPU_ISA=cap`` (its kernels,
    OpenVINO's matmuls among them, then run as on a CPU without it): no AMX below an ``*AMX*``
    ISA, no VNNI below ``AVX2_VNNI`` / ``AVX512_CORE_VNNI``."""
    cap = (cap or "").strip().upper()
    if cap in ("", "ALL", "DEFAULT"):
        return frozenset(flags)
    out = set(flags)
    if "AMX" not in cap:
        out = {f for f in out if not f.startswith("amx")}
    if not any(k in cap for k in VNNI_CAPS):
        out -= {"avx512_vnni", "avx_vnni"}
    return frozenset(out)


def int8_vision_wins(flags: frozenset[str] | set[str]) -> bool:
    """Whether the vision tower should quantize its activations to int8: a CPU with VNNI's int8
    dot products (AVX-512 VNNI or AVX-VNNI) and no AMX. With AMX, bf16 tiles are faster than
    int8 with activations quantized on the fly (docs/openvino.md, "int8 vision"); without VNNI,
    int8 has no fast dot product."""
    vnni = bool({"avx512_vnni", "avx_vnni"} & set(flags))
    amx = any(f.startswith("amx") for f in flags)
    return vnni and not amx


def vision_activations_for(choice: str, device: str = "CPU", flags: frozenset[str] | None = None) -> str:
    """``auto`` made concrete for this machine: ``int8`` on a CPU where :func:`int8_vision_wins`,
    else ``bf16`` (the device's default: bf16 where the CPU has it, f32 elsewhere). The CPU's
    flags are read less what ``ONEDNN_MAX_CPU_ISA`` keeps oneDNN from using (:func:`onednn_capped`):
    capped below AMX, a CPU with AMX runs the vision tower as one without it."""
    if choice not in VISION_ACTIVATIONS:
        raise ValueError(f"unknown vision_activations {choice!r} (one of {', '.join(VISION_ACTIVATIONS)})")
    if choice != "auto":
        return choice
    if flags is None:
        flags = onednn_capped(cpu_flags(), os.environ.get("ONEDNN_MAX_CPU_ISA"))
    return "int8" if device == "CPU" and int8_vision_wins(flags) else "bf16"


def compile_config(precision: str, device: str, part: str = "vision", decoder_activations: str = "int8",
                   vision_activations: str = "bf16") -> dict[str, str]:
    """compile_model properties: f32 everywhere for ``f32``; otherwise, for the vision tower, the
    device's default (bf16 activations on a CPU with AMX / AVX-512-BF16, f32 elsewhere) or, with
    ``vision_activations="int8"`` on a CPU, an f32 hint: the CPU plugin then quantizes the
    activations per group of 32 to int8 at each int8-weight matmul (its dynamic quantization,
    as for the decoder below) and runs them as int8 × int8 dot products (VNNI); the attention,
    norms and GELU then run in f32. ``vision_activations`` must be concrete here (see
    :func:`vision_activations_for` for ``auto``).

    The decoder (``part="decoder"``) on a CPU gets an f32 hint by default (``decoder_activations
    ="int8"``): the CPU plugin then quantizes the activations per group of 32 to int8 at each
    int8-weight matmul (its dynamic quantization) and runs int8 × int8 kernels, which at one
    token reads the weights faster than expanding them to bf16 (decode ≈ 1.2× faster); prefill
    chunks are ≈ 1.6× slower than in bf16 (docs/openvino.md, "Decode"). ``"bf16"`` keeps the
    device default for the decoder too; ``"split"`` compiles the decoder twice (≈ 0.5 GB more
    memory), bf16 for prefill chunks and int8 activations for decode steps (this function then
    gives the decode side's settings)."""
    if decoder_activations not in DECODER_ACTIVATIONS:
        raise ValueError(f"unknown decoder_activations {decoder_activations!r} (one of {', '.join(DECODER_ACTIVATIONS)})")
    if vision_activations not in ("int8", "bf16"):
        raise ValueError(f"unknown vision_activations {vision_activations!r} (int8 or bf16)")
    cfg: dict[str, str] = {}
    if (precision == "f32" or (part == "decoder" and device == "CPU" and decoder_activations != "bf16")
            or (part == "vision" and device == "CPU" and vision_activations == "int8")):
        cfg["INFERENCE_PRECISION_HINT"] = "f32"
    threads = os.environ.get("MINERU_TUI_THREADS")
    if device == "CPU" and threads and threads.isdigit() and int(threads) > 0:
        cfg["INFERENCE_NUM_THREADS"] = threads
    return cfg


def vision_calls(sizes: Sequence[int]) -> list[list[int]]:
    """Group segment indices into vision calls: biggest first, a segment joins the current call
    while padding every segment of the call to the largest costs ≤ PAD_COST × the exact
    attention (B·Lmax² vs Σ n²) and the call stays within CALL_PATCHES padded rows."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    calls: list[list[int]] = []
    for i in order:
        if calls:
            cur = calls[-1]
            lmax = sizes[cur[0]]
            exact = sum(sizes[j] ** 2 for j in cur) + sizes[i] ** 2
            if (len(cur) + 1) * lmax**2 <= PAD_COST * exact and (len(cur) + 1) * lmax <= CALL_PATCHES:
                cur.append(i)
                continue
        calls.append([i])
    return calls


class OVVision:
    """``VisionTower``-compatible: ``(pixel_values [N,1176], grid_thws, check=None) → embeds``.

    Several images per call: attention is block-diagonal (each image, each frame, attends only
    to itself) — a batch of equal sequences without a mask when the call's frames have one size,
    else the padded batch with a key mask (the vision model has both parts, one empty per call)."""

    def __init__(self, compiled, cfg: VisionConfig):
        self.cfg = cfg  # the host reads cfg.spatial_merge_size
        self.activations = "bf16"  # int8 | bf16 | f32: set by whoever compiled it (shown by benchmarks)
        self.request = compiled.create_infer_request()
        self._lock = threading.Lock()

    def __call__(self, pixel_values_NK: np.ndarray, grid_thws, check: Callable[[], None] | None = None,
                 capture=None) -> np.ndarray:
        grids = [tuple(int(v) for v in g) for g in grid_thws]
        px = np.ascontiguousarray(pixel_values_NK, np.float32)
        cos, sin = vision_cos_sin(grids, self.cfg.head_dim, self.cfg.rope_theta, self.cfg.spatial_merge_size)
        # segments: one per image frame, in row order; an image's frames stay in one call
        images, start = [], 0
        for t, h, w in grids:
            images.append((start, [h * w] * t))
            start += t * h * w
        if start != px.shape[0]:
            raise ValueError(f"pixel_values has {px.shape[0]} rows, the grids need {start}")
        m2 = self.cfg.spatial_merge_size**2
        D = cos.shape[-1]
        out: list[np.ndarray | None] = [None] * len(images)
        for call in vision_calls([sum(segs) for _, segs in images]):
            if check is not None:
                check()
            rows = np.concatenate([np.arange(images[i][0], images[i][0] + sum(images[i][1])) for i in call])
            sizes = [n for i in call for n in images[i][1]]
            c, s = cos[rows], sin[rows]
            if len(set(sizes)) == 1:  # segments of one size: a batch of equal sequences, no mask
                feeds = {"cos": c.reshape(len(sizes), sizes[0], D), "sin": s.reshape(len(sizes), sizes[0], D),
                         "cos_padded": np.zeros((0, D), np.float32), "sin_padded": np.zeros((0, D), np.float32),
                         "gather_idx": np.zeros(0, np.int64), "scatter_idx": np.zeros(0, np.int64),
                         "key_mask": np.zeros((0, 1, 1, 0), np.float32)}
            else:  # the padded batch; the rotary tables in its row order
                gather, scatter, mask = batch_layout(sizes)
                feeds = {"cos": np.zeros((0, 0, D), np.float32), "sin": np.zeros((0, 0, D), np.float32),
                         "cos_padded": c[gather], "sin_padded": s[gather],
                         "gather_idx": gather, "scatter_idx": scatter, "key_mask": mask}
            feeds["pixel_values"] = px[rows]
            with self._lock:
                emb = np.array(self.request.infer(feeds)["image_embeds"], np.float32)
            at = 0
            for i in call:
                n = sum(images[i][1]) // m2
                out[i] = emb[at:at + n]
                at += n
        return np.concatenate(out, axis=0)  # type: ignore[arg-type]


class OVTextForward:
    """``TextForward`` over the decoder model: one call per prefill chunk or decode step (all
    rows of the batch together); the cache is the host's ``KVCache`` (f32).

    A decode step reads every slot of the cache it is given (a contiguous view, zero-copy), so
    the host grows the cache ``cache_growth`` slots at a time (``generate.py``) instead of
    allocating room for a whole answer up front: a step reads few empty slots. The cache's
    per-layer views stay bound to the infer request between steps (re-bound only when the
    cache's memory changes: a new, grown or moved cache, another row count)."""

    # slots allocated ahead: growing copies the cache (≈ 10 ms at batch 1 and 1500 slots) once
    # per this many steps, and every empty slot costs each step a little attention
    cache_growth = 128

    def __init__(self, compiled, cfg: TextConfig, embed_VH: np.ndarray, prefill_compiled=None):
        self.config = cfg
        self.request = compiled.create_infer_request()
        # prefill chunks (S > 1) may run in a second compilation of the same decoder
        self.prefill_request = self.request if prefill_compiled is None else prefill_compiled.create_infer_request()
        self.embed_VH = embed_VH
        self._lock = threading.Lock()
        self._bound: dict[int, dict[str, tuple]] = {}  # per request: input -> (address, shape) bound
        # caches grow, move and follow each other in kept memory, not fresh memory (CacheMemory)
        self.cache_memory = CacheMemory()

    def new_cache(self, batch: int, ctx: int) -> KVCache:
        c = self.config
        return KVCache(c.num_hidden_layers, batch, c.num_key_value_heads, ctx, c.head_dim, np.float32,
                       memory=self.cache_memory)

    def embed(self, input_ids_BS: np.ndarray) -> np.ndarray:
        """Token embeddings [B, S, H] from the checkpoint (exact; a copy the host may modify)."""
        return self.embed_VH[np.asarray(input_ids_BS)].astype(np.float32, copy=True)

    def _bind(self, request, name: str, array: np.ndarray, keep: bool = False) -> np.ndarray:
        """Give ``request`` the input ``name`` without copying; returns the array bound, which the
        caller keeps alive until the inference is over (the request holds only its address).
        ``keep``: ``array`` is a view of memory that outlives the call (the cache): the call is
        skipped when that exact memory and shape is bound already. The request may hold the
        address of memory freed since, but never uses it: before every inference each input is
        either bound anew or found at the address of an array the caller holds."""
        import openvino as ov

        bound = self._bound.setdefault(id(request), {})
        if not array.flags.c_contiguous:
            array, keep = np.ascontiguousarray(array), False
        key = (array.__array_interface__["data"][0], array.shape) if keep else None
        if key is None or bound.get(name) != key:
            request.set_tensor(name, ov.Tensor(array, shared_memory=True))
            bound[name] = key
        return array

    def step(self, inputs_embeds_BSH, cos_BSD, sin_BSD, mask_BST, write_pos: int, cache: KVCache,
             logits: LogitsWhich = "last"):
        B, S, _ = inputs_embeds_BSH.shape
        T, C = mask_BST.shape[-1], cache.ctx
        if mask_BST.shape != (B, S, T) or not (write_pos + S <= T <= C) or cache.batch != B:
            raise ValueError(f"mask {mask_BST.shape} / write_pos {write_pos} / S {S} / cache "
                             f"{cache.batch}x{C} do not fit")
        mask = np.maximum(np.asarray(mask_BST, np.float32), MASK_MIN)
        # a prefill chunk reads only the T slots its mask covers (a copy of those: its attention
        # then costs what the context holds, not the cache's room); a decode step reads the
        # whole cache in place (the host keeps it only a little larger than what is filled)
        P = T if S > 1 and T < C else C
        # the P past slots (this chunk's own slots masked there: they are the "new" part), then
        # the chunk's S tokens
        full = np.full((B, 1, 1, S, P + S), MASK_MIN, np.float32)
        full[:, 0, 0, :, :T] = mask
        full[:, 0, 0, :, write_pos:write_pos + S] = MASK_MIN
        full[:, 0, 0, :, P:] = mask[:, :, write_pos:write_pos + S]
        if isinstance(logits, int) and not isinstance(logits, bool):
            rows = [logits]
        elif logits == "all":
            rows = list(range(S))
        else:  # "last", "none" (one row computed and dropped: no second model to keep)
            rows = [S - 1]
        feeds = {
            "embeds": np.ascontiguousarray(inputs_embeds_BSH, np.float32),
            "cos": np.ascontiguousarray(cos_BSD, np.float32),
            "sin": np.ascontiguousarray(sin_BSD, np.float32),
            "mask": full,
            "logit_index": np.array(rows, np.int64),
        }
        request = self.prefill_request if S > 1 else self.request
        with self._lock:
            alive = [self._bind(request, name, array) for name, array in feeds.items()]
            for i in range(self.config.num_hidden_layers):  # views of the cache, bound in place
                alive.append(self._bind(request, f"past_k{i}", cache.k[i, :, :, :P], keep=True))
                alive.append(self._bind(request, f"past_v{i}", cache.v[i, :, :, :P], keep=True))
            request.infer()
            cache.k[:, :, :, write_pos:write_pos + S] = request.get_tensor("present_k").data
            cache.v[:, :, :, write_pos:write_pos + S] = request.get_tensor("present_v").data
            out = None if logits == "none" else np.array(request.get_tensor("logits").data, np.float32)
        return out


def release_mapped_files(dirs: Sequence[Path]) -> int:
    """Drop this process's pages of the read-only memory-mapped files under ``dirs``; the bytes
    released (0 where this cannot be done: not Linux, no ``madvise``).

    OpenVINO maps a compiled blob (or an IR ``.bin``) and, on a model's first inference, repacks
    the weights into its kernels' own layout: the mapped pages stay counted in the process's
    memory beside the repacked copy, though nothing reads them again (for our two models ≈ 1.1
    GiB; docs/openvino.md, "Memory"). ``MADV_DONTNEED`` on a read-only shared file mapping only
    unmaps the pages: anything that reads them later faults them back in from the file."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux"):
        return 0
    roots = tuple(str(Path(d).resolve()) + os.sep for d in dirs)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        madvise = libc.madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        with open("/proc/self/maps") as f:
            lines = f.readlines()
    except (OSError, AttributeError):
        return 0
    released = 0
    for line in lines:
        parts = line.split(maxsplit=5)
        if len(parts) < 6 or "w" in parts[1] or not parts[5].strip().startswith(roots):
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        if madvise(lo, hi - lo, 4) == 0:  # MADV_DONTNEED
            released += hi - lo
    return released


def core(cache_dir: Path | None = None):
    """An ``openvino.Core`` with the compiled-model cache on (``cache_dir``)."""
    import openvino as ov

    c = ov.Core()
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        c.set_property({"CACHE_DIR": str(cache_dir)})
    return c
