"""Speed and memory of the numpy engine on a full-size, random-weight MinerU2.5-Pro checkpoint.

Builds (once) a checkpoint of the real shapes — vision 1280 / 32 blocks / 16 heads, text 896 /
24 layers / 14 q + 2 kv heads, head_dim 64, intermediate 4864, vocab 151936, mrope [8, 12, 12] —
in a temp folder (safetensors written tensor by tensor, nothing downloaded; the tiny fixture's
tokenizer.json is reused: only ids matter), then measures in a fresh process:

  * a full ``generate`` on a 672×896 page (768 image tokens): preprocessing, vision, prefill,
    decode tokens/s at ~800 tokens of context (the HF anchor's measurement);
  * the vision tower alone on the 1036×1036 layout image (1369 tokens);
  * decode steps (forward + sampling knobs + argmax) at 1500 tokens of context, batch 1 and 8
    (the KV cache is filled with random values: decode cost does not depend on its contents);
  * peak RSS (``ru_maxrss``).

When ``transformers`` is importable by ``--hf-python`` (a separate venv), the same page and
decode steps are run through Hugging Face transformers on the same weights, and ratios printed.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/engine.py \
        [--hf-python .hfvenv/bin/python] [--rounds 3] [--json out.json]

(``.venv`` is the project's venv from the README; ``.hfvenv`` a separate one made with
``python3 -m venv .hfvenv && .hfvenv/bin/pip install torch==2.13.0 transformers==5.24.0
--extra-index-url https://download.pytorch.org/whl/cpu``.)

With ``--rounds N`` the two engines take turns N times (order alternating) and each is scored by
its best round: the shared cores make single runs swing by 10-40 %.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "fixtures" / "tiny"
PROMPT = "\nText Recognition:"

VISION = dict(embed_dim=1280, depth=32, num_heads=16, mlp_ratio=4, hidden_size=896)
TEXT = dict(hidden=896, layers=24, heads=14, kv=2, head_dim=64, inter=4864, vocab=151936)


# ----------------------------------------------------------------------------- checkpoint


def tensor_shapes() -> dict[str, tuple[int, ...]]:
    """Every tensor of the full-size checkpoint, legacy names (tied: no lm_head.weight)."""
    E, F, H, I, V = 1280, 5120, TEXT["hidden"], TEXT["inter"], TEXT["vocab"]
    kvd = TEXT["kv"] * TEXT["head_dim"]
    s: dict[str, tuple[int, ...]] = {"visual.patch_embed.proj.weight": (E, 3, 2, 14, 14)}
    for i in range(VISION["depth"]):
        p = f"visual.blocks.{i}."
        for n in ("norm1", "norm2"):
            s[p + n + ".weight"] = s[p + n + ".bias"] = (E,)
        s[p + "attn.qkv.weight"], s[p + "attn.qkv.bias"] = (3 * E, E), (3 * E,)
        s[p + "attn.proj.weight"], s[p + "attn.proj.bias"] = (E, E), (E,)
        s[p + "mlp.fc1.weight"], s[p + "mlp.fc1.bias"] = (F, E), (F,)
        s[p + "mlp.fc2.weight"], s[p + "mlp.fc2.bias"] = (E, F), (E,)
    s["visual.merger.ln_q.weight"] = s["visual.merger.ln_q.bias"] = (E,)
    s["visual.merger.mlp.0.weight"], s["visual.merger.mlp.0.bias"] = (4 * E, 4 * E), (4 * E,)
    s["visual.merger.mlp.2.weight"], s["visual.merger.mlp.2.bias"] = (H, 4 * E), (H,)
    s["model.embed_tokens.weight"] = (V, H)
    for i in range(TEXT["layers"]):
        p = f"model.layers.{i}."
        s[p + "input_layernorm.weight"] = s[p + "post_attention_layernorm.weight"] = (H,)
        s[p + "self_attn.q_proj.weight"], s[p + "self_attn.q_proj.bias"] = (H, H), (H,)
        s[p + "self_attn.k_proj.weight"], s[p + "self_attn.k_proj.bias"] = (kvd, H), (kvd,)
        s[p + "self_attn.v_proj.weight"], s[p + "self_attn.v_proj.bias"] = (kvd, H), (kvd,)
        s[p + "self_attn.o_proj.weight"] = (H, H)
        s[p + "mlp.gate_proj.weight"] = s[p + "mlp.up_proj.weight"] = (I, H)
        s[p + "mlp.down_proj.weight"] = (H, I)
    s["model.norm.weight"] = (H,)
    return s


def write_checkpoint(out: Path, seed: int = 0, fresh: bool = False) -> None:
    """Random fp32 safetensors of the real shapes, streamed to disk (never all in RAM).

    By default every tensor is a window of one 64 MB pool of values (cheap, but tensors share
    values, which gives logits near-ties); ``fresh=True`` draws new values for every tensor, so
    greedy logits have real top-1/top-2 margins (what a precision-agreement check needs).
    """
    out.mkdir(parents=True, exist_ok=True)
    tiny_cfg = json.loads((TINY / "config.json").read_text())
    cfg = dict(tiny_cfg)  # keep the tiny tokenizer's special ids (3840…), real shapes
    cfg.update(
        hidden_size=TEXT["hidden"], intermediate_size=TEXT["inter"], num_hidden_layers=TEXT["layers"],
        num_attention_heads=TEXT["heads"], num_key_value_heads=TEXT["kv"], vocab_size=TEXT["vocab"],
        max_window_layers=TEXT["layers"], rope_scaling={"type": "mrope", "mrope_section": [8, 12, 12]},
    )  # fmt: skip
    cfg["vision_config"] = {**tiny_cfg["vision_config"], **VISION}
    (out / "config.json").write_text(json.dumps(cfg, indent=1))
    for name in ("generation_config.json", "tokenizer.json", "tokenizer_config.json", "chat_template.json"):
        if (TINY / name).exists():
            shutil.copy(TINY / name, out / name)
    pre = json.loads((TINY / "preprocessor_config.json").read_text())
    pre.update(min_pixels=3136, max_pixels=12845056)
    (out / "preprocessor_config.json").write_text(json.dumps(pre, indent=1))

    shapes = tensor_shapes()
    header, offset = {}, 0
    for k, shp in shapes.items():
        n = int(np.prod(shp)) * 4
        header[k] = {"dtype": "F32", "shape": list(shp), "data_offsets": [offset, offset + n]}
        offset += n
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    rng = np.random.default_rng(seed)
    pool = (rng.standard_normal(1 << 24, dtype=np.float32) * 0.02).astype(np.float32)  # 64 MB of values
    tmp = out / "model.safetensors.part"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb)
        for k, shp in shapes.items():
            n = int(np.prod(shp))
            if k.endswith("norm.weight") or "layernorm" in k or ".norm1.weight" in k or ".norm2.weight" in k or "ln_q.weight" in k:
                f.write(np.ones(n, np.float32).tobytes())
                continue
            if fresh:  # new values for every tensor, drawn in 16M-value pieces
                while n > 0:
                    m = min(n, 1 << 24)
                    f.write((rng.standard_normal(m, dtype=np.float32) * np.float32(0.02)).tobytes())
                    n -= m
                continue
            start = int(rng.integers(0, pool.size))
            while n > 0:  # rotate through the pool: values differ per tensor, cheap to make
                m = min(n, pool.size - start)
                f.write(pool[start : start + m].tobytes())
                n -= m
                start = 0
    tmp.rename(out / "model.safetensors")


# ----------------------------------------------------------------------------- measurement


def page_image(width: int, height: int):
    """Synthetic document page: light background, dark text-like bars (as bench_hf_full.py)."""
    from PIL import Image

    rng = np.random.default_rng(0)
    img = np.full((height, width, 3), 245, np.uint8)
    for y in range(40, height - 40, 22):
        x = 40
        while x < width - 60:
            w = int(rng.integers(15, 70))
            img[y : y + 10, x : min(x + w, width - 40)] = rng.integers(0, 60)
            x += w + int(rng.integers(6, 14))
    return Image.fromarray(img, "RGB")


def rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def current_rss_gib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024**2
    return float("nan")


def blas_info() -> list[dict]:
    try:
        from threadpoolctl import threadpool_info

        return [
            {k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "threading_layer")}
            for d in threadpool_info()
        ]
    except ImportError:
        return [{"note": "threadpoolctl not installed"}]


def decode_steps(model, batch: int, context: int, steps: int, room: int = 0) -> dict:
    """Time ``steps`` decode steps of ``batch`` rows at ``context`` cached tokens (random cache),
    in a cache with ``room`` slots beyond the context (at least ``steps``)."""
    from mineru_tui.engines.qwen2vl.rope import mrope_cos_sin
    from mineru_tui.engines.qwen2vl.sampling import LogitsProcessor, SamplingParams, greedy

    tc = model.config.text
    text = model.text
    cache = text.new_cache(batch, context + max(steps, room))
    rng = np.random.default_rng(1)
    cache.k[:, :, :, :context] = rng.standard_normal((1, 1, 1, context, tc.head_dim), dtype=np.float32)
    cache.v[:, :, :, :context] = rng.standard_normal((1, 1, 1, context, tc.head_dim), dtype=np.float32)
    proc = LogitsProcessor(SamplingParams(), batch, tc.vocab_size)
    tokens = rng.integers(0, 3000, batch)
    times = []
    for s in range(steps):
        t = time.perf_counter()
        slot = context + s
        cos, sin = mrope_cos_sin(np.full(batch, slot), tc.head_dim, tc.rope_theta, tc.mrope_section)
        mask = np.zeros((batch, 1, slot + 1), np.float32)
        logits = text.step(text.embed(tokens[:, None]), cos[:, None], sin[:, None], mask, slot, cache)
        tokens = greedy(proc(logits[:, -1]))
        proc.append(tokens)
        times.append(time.perf_counter() - t)
    warm = times[1:] if len(times) > 2 else times
    ms = 1e3 * float(np.median(warm))
    return {
        "batch": batch, "context": context, "steps": steps,
        "ms_per_step_median": ms, "ms_per_step_mean": 1e3 * float(np.mean(warm)),
        "tokens_per_s": batch * 1e3 / ms,
    }  # fmt: skip


def run(ckpt: Path, args) -> dict:
    """The measurements (in a fresh process, so peak RSS is the engine's own)."""
    sys.path.insert(0, str(REPO))
    from mineru_tui.engines.numpy import load_model
    from mineru_tui.engines.qwen2vl.preprocess import preprocess_image

    res: dict = {"python": platform.python_version(), "numpy": np.__version__, "nproc": os.cpu_count()}
    with open("/proc/cpuinfo") as f:
        res["cpu"] = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    res["blas"] = blas_info()
    res["env_OPENBLAS"] = {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS")}
    t = time.perf_counter()
    res["engine"] = args.engine
    if args.engine == "openvino":  # the bundle in the cache folder when built, else graphs in memory
        from mineru_tui.engines.openvino.bundle import open_openvino_model

        model = open_openvino_model(str(ckpt), precision=args.precision, progress=lambda s: print(s, file=sys.stderr),
                                    decoder_activations=args.decoder_activations)
        res["precision"], res["decoder_activations"] = args.precision, args.decoder_activations
    else:
        model = load_model(ckpt)
    res["load_s"] = time.perf_counter() - t
    res["rss_after_load_gib"] = current_rss_gib()

    if args.loop_check:  # the generation loop's decode rate vs bare decode steps, same context
        r = model.generate(None, "Hello there", max_new_tokens=args.steps + 1, stop_ids=[])
        res["loop_check"] = {
            "generate_text_only": {"prompt_tokens": r.prompt_tokens, "decode_tokens_per_s": r.timings.decode_tokens_per_s},
            "bare_steps": decode_steps(model, 1, r.prompt_tokens, args.steps),
        }
        print(json.dumps(res["loop_check"]), flush=True)
        res["peak_rss_gib"] = rss_gib()
        return res

    # 1. the HF anchor's measurement: one page, 768 image tokens, decode at ~800 context
    page = page_image(672, 896)
    r = model.generate(page, PROMPT, max_new_tokens=args.new_tokens, stop_ids=[])
    tm = r.timings
    res["page"] = {
        "image_tokens": tm.vision_tokens, "prompt_tokens": r.prompt_tokens,
        "preprocess_s": tm.preprocess_s, "vision_s": tm.vision_s,
        "prefill_s": tm.prefill_s, "prefill_tokens_per_s": tm.prefill_tokens_per_s,
        "first_token_s": tm.first_token_s, "decode_tokens": tm.decode_tokens,
        "decode_tokens_per_s": tm.decode_tokens_per_s, "total_s": tm.total_s,
    }  # fmt: skip
    res["rss_after_page_gib"] = current_rss_gib()
    print(json.dumps({"page": res["page"]}), flush=True)

    # 2. the layout image: 1036×1036 → 37×37 = 1369 tokens (vision only)
    if not args.skip_layout:
        pre = preprocess_image(page_image(1036, 1036), model.checkpoint.preprocessor)
        t = time.perf_counter()
        emb = model.vision(pre.pixel_values, [pre.grid_thw])
        res["layout_vision"] = {"image_tokens": int(emb.shape[0]), "vision_s": time.perf_counter() - t}
        print(json.dumps({"layout_vision": res["layout_vision"]}), flush=True)

    # 3. decode at ~1500 tokens of context, batch 1 and 8
    res["decode"] = [decode_steps(model, b, args.context, args.steps) for b in (1, 8)]
    for d in res["decode"]:
        print(json.dumps({"decode": d}), flush=True)
    res["decode_batch8_over_batch1"] = res["decode"][1]["tokens_per_s"] / res["decode"][0]["tokens_per_s"]
    res["peak_rss_gib"] = rss_gib()
    return res


# ----------------------------------------------------------------------------- HF side by side


def hf_run(ckpt: Path, args) -> dict:
    """The same work through Hugging Face transformers (same weights, fp32, sdpa), in its venv."""
    import torch
    import transformers
    from transformers import DynamicCache, Qwen2VLForConditionalGeneration

    sys.path.insert(0, str(REPO))
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint
    from mineru_tui.engines.qwen2vl.preprocess import preprocess_image

    res: dict = {"transformers": transformers.__version__, "torch": torch.__version__, "torch_threads": torch.get_num_threads()}
    t = time.perf_counter()
    model = Qwen2VLForConditionalGeneration.from_pretrained(ckpt, dtype=torch.float32, attn_implementation="sdpa").eval()
    res["load_s"] = time.perf_counter() - t
    pre = preprocess_image(page_image(672, 896), load_checkpoint(ckpt).preprocessor)
    pixel_values = torch.from_numpy(pre.pixel_values)
    grid = torch.tensor([pre.grid_thw])
    with torch.no_grad():
        t = time.perf_counter()
        out = model.model.get_image_features(pixel_values, grid, return_dict=True)
        res["page_vision_s"] = time.perf_counter() - t
        res["page_image_tokens"] = int(sum(x.shape[0] for x in out.pooler_output))
        print(json.dumps({"hf_page_vision_s": res["page_vision_s"]}), flush=True)
        if not args.skip_layout:  # the 1036×1036 layout image, as the numpy run
            lay = preprocess_image(page_image(1036, 1036), load_checkpoint(ckpt).preprocessor)
            t = time.perf_counter()
            out = model.model.get_image_features(torch.from_numpy(lay.pixel_values), torch.tensor([lay.grid_thw]), return_dict=True)
            res["layout_vision_s"] = time.perf_counter() - t
            print(json.dumps({"hf_layout_vision_s": res["layout_vision_s"]}), flush=True)
        lm = model.model.language_model
        L = 803  # the page prompt length of the numpy run
        emb = torch.randn(1, L, lm.config.hidden_size) * 0.02
        t = time.perf_counter()
        h = lm(inputs_embeds=emb, use_cache=False).last_hidden_state
        model.lm_head(h[:, -1:])
        res["prefill_s"] = time.perf_counter() - t
        res["prefill_tokens_per_s"] = L / res["prefill_s"]
        res["decode"] = []
        cfg = lm.config
        for batch in (1, 8):
            cache = DynamicCache(config=cfg)
            g = torch.Generator().manual_seed(1)
            for layer in range(cfg.num_hidden_layers):
                k = torch.randn(batch, cfg.num_key_value_heads, args.context, cfg.hidden_size // cfg.num_attention_heads, generator=g)
                cache.update(k, k.clone(), layer)
            tok = torch.randint(0, 3000, (batch, 1))
            times = []
            for s in range(args.steps):
                t = time.perf_counter()
                pos = torch.full((batch, 1), args.context + s)
                hs = lm(input_ids=tok, position_ids=pos, cache=cache, use_cache=True).last_hidden_state
                tok = model.lm_head(hs[:, -1:]).argmax(-1)
                times.append(time.perf_counter() - t)
            ms = 1e3 * float(np.median(times[1:]))
            res["decode"].append({"batch": batch, "context": args.context, "ms_per_step_median": ms, "tokens_per_s": batch * 1e3 / ms})
            print(json.dumps({"hf_decode": res["decode"][-1]}), flush=True)
    res["peak_rss_gib"] = rss_gib()
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-bench-ckpt")
    ap.add_argument("--new-tokens", type=int, default=24)
    ap.add_argument("--context", type=int, default=1500)
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--skip-layout", action="store_true")
    ap.add_argument("--loop-check", action="store_true", help="only compare generate()'s decode with bare steps")
    ap.add_argument("--keep", action="store_true", help="keep the built checkpoint for the next run")
    ap.add_argument("--engine", choices=("numpy", "openvino"), default="numpy", help="the engine measured")
    ap.add_argument("--precision", default="default", help="openvino: default (int8 + bf16 where available) or f32")
    ap.add_argument("--decoder-activations", default="int8", choices=("int8", "bf16", "split"),
                    help="openvino: the decoder's activations (the engine's decoder_activations)")
    ap.add_argument("--fresh-weights", action="store_true",
                    help="build the checkpoint with new random values per tensor (real logit margins)")
    ap.add_argument("--build-only", action="store_true", help="only build the checkpoint (kept), then stop")
    ap.add_argument("--rounds", type=int, default=1, help="alternate numpy and HF this many times; report each engine's best")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--hf-python", help="python of a venv with torch + transformers: run HF side by side")
    ap.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--_hf_child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args._child:
        print("RESULT " + json.dumps(run(args.ckpt, args)), flush=True)
        return
    if args._hf_child:
        print("RESULT " + json.dumps(hf_run(args.ckpt, args)), flush=True)
        return
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if os.environ.get(k):
            print(f"warning: {k}={os.environ[k]} is set; it slows OpenBLAS here (run with env -u {k})", file=sys.stderr)
    built = False
    if not (args.ckpt / "model.safetensors").exists():
        t = time.perf_counter()
        write_checkpoint(args.ckpt, fresh=args.fresh_weights)
        built = True
        print(f"built {args.ckpt} ({(args.ckpt / 'model.safetensors').stat().st_size / 2**30:.2f} GiB) in {time.perf_counter() - t:.1f} s")
    if args.build_only:
        return
    cmd = [sys.executable, __file__, "--_child", "--ckpt", str(args.ckpt), "--new-tokens", str(args.new_tokens),
           "--context", str(args.context), "--steps", str(args.steps), "--engine", args.engine,
           "--precision", args.precision, "--decoder-activations", args.decoder_activations] + (["--skip-layout"] if args.skip_layout else []) + (["--loop-check"] if args.loop_check else [])  # fmt: skip
    hf_python = args.hf_python
    if hf_python is None:
        try:
            import transformers  # noqa: F401

            hf_python = sys.executable
        except ImportError:
            pass
    # The cores are shared with other jobs and single runs swing by 10-40 %: with --rounds the
    # engines take turns (order alternating) and each is scored by its best round.
    rounds = []
    for r in range(max(1, args.rounds)):
        one = {}
        order = ["numpy", "hf"] if r % 2 == 0 else ["hf", "numpy"]
        for engine in order:
            if engine == "numpy":
                one["numpy"] = _child(cmd)
            elif hf_python:  # separate processes: peak RSS per engine
                one["hf"] = _child([hf_python, __file__, "--_hf_child"] + cmd[3:])
        rounds.append(one)
    result = {"numpy": best_of([r["numpy"] for r in rounds])}
    if hf_python:
        result["hf"] = best_of([r["hf"] for r in rounds])
        result["ratios_numpy_over_hf"] = ratios(result["numpy"], result["hf"])
    if len(rounds) > 1:
        result["rounds"] = rounds
    if built and not args.keep:
        shutil.rmtree(args.ckpt, ignore_errors=True)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


def _child(cmd: list[str]) -> dict:
    """Run one measurement process, echo its progress lines, return its RESULT."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)  # stderr passes through
    result = None
    for line in proc.stdout:
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
        else:
            print(line, end="", flush=True)
    proc.wait()
    if result is None:
        sys.exit(f"benchmark child failed: {' '.join(cmd)}")
    return result


def best_of(results: list[dict]) -> dict:
    """One engine's best round per measurement (shortest time, highest rate; largest peak RSS)."""
    best = json.loads(json.dumps(results[0]))
    for res in results[1:]:
        if "page" in res:
            for k in ("preprocess_s", "vision_s", "prefill_s", "first_token_s", "total_s"):
                best["page"][k] = min(best["page"][k], res["page"][k])
            for k in ("prefill_tokens_per_s", "decode_tokens_per_s"):
                best["page"][k] = max(best["page"][k], res["page"][k])
        if "layout_vision" in res:
            best["layout_vision"]["vision_s"] = min(best["layout_vision"]["vision_s"], res["layout_vision"]["vision_s"])
        for k in ("page_vision_s", "prefill_s", "layout_vision_s"):
            if k in res:
                best[k] = min(best[k], res[k])
        if "prefill_tokens_per_s" in res:
            best["prefill_tokens_per_s"] = max(best["prefill_tokens_per_s"], res["prefill_tokens_per_s"])
        for d_best, d in zip(best.get("decode", []), res.get("decode", [])):
            if d["tokens_per_s"] > d_best["tokens_per_s"]:
                d_best.update(d)
        best["peak_rss_gib"] = max(best["peak_rss_gib"], res["peak_rss_gib"])
    if "decode" in best and len(best["decode"]) == 2:
        best["decode_batch8_over_batch1"] = best["decode"][1]["tokens_per_s"] / best["decode"][0]["tokens_per_s"]
    best["rounds"] = len(results)
    return best


def ratios(np_res: dict, hf_res: dict) -> dict:
    """Speed ratios (> 1: numpy faster) and the RSS ratio (< 1: numpy smaller)."""
    out = {}
    if "page" in np_res:
        out["vision_speed"] = hf_res["page_vision_s"] / np_res["page"]["vision_s"]
        out["prefill_speed"] = np_res["page"]["prefill_tokens_per_s"] / hf_res["prefill_tokens_per_s"]
    if "layout_vision" in np_res and "layout_vision_s" in hf_res:
        out["layout_vision_speed"] = hf_res["layout_vision_s"] / np_res["layout_vision"]["vision_s"]
    for a, b in zip(np_res.get("decode", []), hf_res.get("decode", [])):
        out[f"decode_b{a['batch']}_speed"] = a["tokens_per_s"] / b["tokens_per_s"]
    out["peak_rss"] = np_res["peak_rss_gib"] / hf_res["peak_rss_gib"]
    return out


if __name__ == "__main__":
    main()
