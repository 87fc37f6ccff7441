"""What one page costs with the numpy engine, stage by stage, with realistic answers.

The page is a two-column letter-size paper page rendered at MinerU's 200 dpi (1700x2200 px)
with 18 layout blocks. Its answers are forced through the real decode steps (teacher forcing:
every step runs the full forward pass, then the recorded-style token is taken instead of the
argmax), so the token counts are those of a real page while the weights are random:

* the layout answer: 18 entries in MinerU2.5's grammar, ~20 tokens each (Qwen2 writes every
  digit as its own token);
* block answers: the paragraphs' text (≈ 0.23 tokens per character of English prose with
  Qwen2's tokenizer), the table as OTSL (one token per cell tag), the equation as LaTeX
  (≈ 0.4 tokens per character). The bench checkpoint carries the tiny test tokenizer, so the
  forced ids are the text's ids cycled to those counts (the cost of a step does not depend
  on which id it is).

Runs, all through :class:`mineru_tui.engines.numpy.engine.NumpyEngine` and the page reader's
own crops, prompts and knobs (:mod:`mineru_tui.reader.protocol`):

1. layout: the 1036x1036 page image → vision, prefill, decode of the layout answer;
2. recognition, every block (``--effort high`` on a text PDF; any scan), in one stream at
   batch 8 with refills (continuous batching: what the page reader does);
3. the same in fixed batches of 8, each running until its longest answer ends (the page
   reader before continuous batching);
4. the same at batch 1 (one block at a time);
5. recognition at the default effort on a text PDF: text-like blocks come from the text
   layer, only the table and the equation go to the model.

Each recognition run reports its live rows per decode step (decode tokens / decode steps).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/pages.py [--quick] \\
        [--ckpt CKPT] [--json pages-bench.json]

(the checkpoint comes from ``bench/engine.py --keep``, which leaves it as
``mineru-tui-bench-ckpt`` in the system temp folder, the default of ``--ckpt``; ``--quick``
skips runs 3 and 4; ``--rounds N`` runs only 2-4, taking turns N times, each scored by its best
round, and ``--layout-s S`` skips run 1 and counts S seconds for it in the page totals;
``--step-costs`` measures only a decode step at 1-8 rows, each count taking turns.)
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PIL import Image, ImageDraw  # noqa: E402

W, H = 1700, 2200

# (type, x0, y0, x1, y1 in 0-1000, characters of its answer or a table spec)
BLOCKS = [
    ("header", 80, 30, 920, 45, 60),
    ("doc_title", 150, 70, 850, 110, 70),
    ("text", 250, 115, 750, 135, 60),
    ("paragraph_title", 440, 150, 560, 165, 8),
    ("text", 120, 170, 880, 290, 950),
    ("paragraph_title", 80, 305, 400, 320, 14),
    ("text", 80, 325, 490, 560, 1150),
    ("text", 80, 565, 490, 720, 720),
    ("equation", 80, 725, 490, 760, 70),
    ("text", 80, 765, 490, 930, 800),
    ("image", 510, 325, 920, 520, 0),
    ("image_caption", 510, 525, 920, 550, 110),
    ("table_caption", 510, 560, 920, 575, 60),
    ("table", 510, 580, 920, 760, (8, 4)),
    ("paragraph_title", 510, 770, 920, 785, 9),
    ("text", 510, 790, 920, 930, 700),
    ("page_footnote", 80, 940, 920, 955, 120),
    ("page_number", 480, 965, 520, 980, 1),
]
PROSE = ("Document parsing turns scanned and born digital pages into structured text that other "
         "programs can search, index and analyse. A two stage reader first finds the layout of "
         "the page and then reads every block at full resolution with a prompt for its type. ")
LAYOUT_TOKENS_PER_BLOCK = 20
PROSE_TOKENS_PER_CHAR = 0.23
LATEX_TOKENS_PER_CHAR = 0.40


def layout_answer() -> str:
    from tests.scripted_engine import layout_line

    return "".join(layout_line(x0, y0, x1, y1, t) for t, x0, y0, x1, y1, _ in BLOCKS)


def block_answer(kind, spec) -> tuple[str, int]:
    """(answer text, its token count with Qwen2's tokenizer, estimated)."""
    if kind == "table":
        rows, cols = spec
        text = "".join("".join(f"<fcel>{r * 10 + c:.1f}" for c in range(cols)) + "<nl>" for r in range(rows))
        return text, rows * cols * 3 + rows  # tag + ~2 tokens of number per cell, <nl> per row
    if kind == "equation":
        text = ("\\mathcal{L}(\\theta) = \\sum_{i=1}^{N} \\log p_\\theta(y_i \\mid x_i) + "
                "\\lambda \\|\\theta\\|_2^2")[:spec]
        return text, round(len(text) * LATEX_TOKENS_PER_CHAR)
    text = (PROSE * (spec // len(PROSE) + 1))[:spec]
    return text, max(1, round(len(text) * PROSE_TOKENS_PER_CHAR))


def page_image() -> Image.Image:
    img = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(img)
    for t, x0, y0, x1, y1, _ in BLOCKS:
        box = (x0 * W // 1000, y0 * H // 1000, x1 * W // 1000, y1 * H // 1000)
        if t == "image":
            d.rectangle(box, fill=(90, 140, 200))
            continue
        for y in range(box[1] + 6, box[3] - 6, 26):  # text-like lines of glyph blobs
            for x in range(box[0] + 4, box[2] - 20, 18):
                d.rectangle((x, y, x + 12, y + 16), fill=(20, 20, 20))
    return img


class Forcer:
    """Replaces the loop's token choice (``generate.choose_tokens``) with each request's
    scheduled tokens, found by the rows' request indices (rows join and leave in any order)."""

    def __init__(self, schedules: list[list[int]]):
        self.schedules = schedules
        self.pos = [0] * len(schedules)

    def __call__(self, logits, seqs):
        import numpy as np

        assert logits.shape[0] == len(seqs), (logits.shape, seqs)
        out = []
        for b in seqs:
            out.append(self.schedules[b][self.pos[b]])
            self.pos[b] += 1
        return np.asarray(out, dtype=np.int64)


def run_forced(engine, requests, schedules, max_batch, continuous=True):
    """Stream the requests through the engine, forcing each row's tokens: all in one stream with
    ``max_batch`` rows refilled as they end (``continuous``), or in fixed chunks of
    ``max_batch``; returns summed stage seconds and token counts."""
    from mineru_tui.engines.events import Done
    from mineru_tui.engines.numpy import generate

    totals = dict(preprocess_s=0.0, vision_s=0.0, vision_tokens=0, prefill_s=0.0, prefill_tokens=0,
                  decode_s=0.0, decode_tokens=0, decode_steps=0, generated=0, wall_s=0.0)
    original, saved_batch = generate.choose_tokens, engine.max_batch
    engine.max_batch = max_batch
    text, hist = engine.model.text, {}
    step_fn = text.step

    def counting_step(inputs_embeds, *a, **kw):  # rows per decode step (a decode step feeds one token)
        if inputs_embeds.shape[1] == 1:
            hist[inputs_embeds.shape[0]] = hist.get(inputs_embeds.shape[0], 0) + 1
        return step_fn(inputs_embeds, *a, **kw)

    text.step = counting_step
    step = len(requests) if continuous else max_batch
    t0 = time.perf_counter()
    try:
        for start in range(0, len(requests), step):
            chunk = requests[start:start + step]
            generate.choose_tokens = Forcer(schedules[start:start + step])
            for ev in engine.stream(chunk):
                if isinstance(ev, Done):
                    t = ev.timings
                    for k in ("preprocess_s", "vision_s", "vision_tokens", "prefill_s", "prefill_tokens",
                              "decode_s", "decode_tokens", "decode_steps"):
                        totals[k] += getattr(t, k)
                    totals["generated"] += sum(len(r.token_ids) for r in ev.results)
                    assert all(r.finish_reason == "stop" for r in ev.results), [r.finish_reason for r in ev.results]
    finally:
        generate.choose_tokens = original
        engine.max_batch = saved_batch
        del text.step  # the instance attribute goes; the class's method is back
    totals["wall_s"] = time.perf_counter() - t0
    totals["rows_per_step"] = dict(sorted(hist.items()))
    steps = totals["decode_steps"]
    totals["live_rows_per_step"] = round(totals["decode_tokens"] / steps, 2) if steps else 0.0
    return totals


def step_costs(engine, slots: int = 600, repeats: int = 11) -> dict[int, float]:
    """Median seconds of one decode step at 1…8 rows over ``slots`` cache slots, the row counts
    taking turns (so a burst of outside load hits them all alike)."""
    import numpy as np

    text, tc = engine.model.text, engine.model.config.text
    times: dict[int, list[float]] = {b: [] for b in range(1, 9)}
    caches = {b: text.new_cache(b, slots + 1) for b in times}
    rng = np.random.default_rng(0)
    for r in range(repeats):
        for b in (list(times) if r % 2 == 0 else list(times)[::-1]):
            emb = (rng.standard_normal((b, 1, tc.hidden_size)) * 0.02).astype(np.float32)
            cos, sin = np.ones((b, 1, tc.head_dim), np.float32), np.zeros((b, 1, tc.head_dim), np.float32)
            mask = np.zeros((b, 1, slots + 1), np.float32)
            t = time.perf_counter()
            text.step(emb, cos, sin, mask, slots, caches[b])
            times[b].append(time.perf_counter() - t)
    return {b: round(float(np.median(v)), 4) for b, v in times.items()}


def schedule(tokenizer, text: str, count: int, stop: int) -> list[int]:
    ids = [i for i in tokenizer.encode(text) if i != stop] or [tokenizer.encode("a")[0]]
    out = [ids[i % len(ids)] for i in range(count)]
    return out + [stop]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-bench-ckpt")
    ap.add_argument("--json", type=Path, help="write the numbers here too")
    ap.add_argument("--quick", action="store_true", help="skip the fixed-batch and batch-1 recognition runs")
    ap.add_argument("--rounds", type=int, default=0,
                    help="only the three ways to batch the recognition, taking turns this many times")
    ap.add_argument("--layout-s", type=float, help="skip the layout run; count this many seconds for it")
    ap.add_argument("--step-costs", action="store_true", help="only a decode step's median cost at 1-8 rows")
    ap.add_argument("--engines", default="numpy",
                    help="comma-separated engines, each measured in its own process (numpy, openvino, ...)")
    ap.add_argument("--extra", action="append", default=[], metavar="ENGINE:KEY=VALUE",
                    help="an engine option, e.g. openvino:precision=f32 (repeatable)")
    args = ap.parse_args()
    if not (args.ckpt / "config.json").is_file():
        sys.exit(f"bench/pages.py: no checkpoint at {args.ckpt}: make one with "
                 "`python bench/engine.py --keep` (or pass --ckpt DIR)")
    names = [e.strip() for e in args.engines.split(",") if e.strip()]
    if len(names) > 1:  # one process per engine, so each peak memory is the engine's own
        import subprocess

        for name in names:
            argv = [a for a in sys.argv[1:] if not a.startswith("--engines")]
            if "--engines" in sys.argv:  # "--engines a,b" given as two words
                i = sys.argv.index("--engines")
                argv = sys.argv[1:i] + sys.argv[i + 2:]
            subprocess.run([sys.executable, __file__, *argv, f"--engines={name}"], check=False)
        return
    extra = tuple((k, v) for item in args.extra for name, _, kv in [item.partition(":")]
                  if name == names[0] for k, _, v in [kv.partition("=")])

    from mineru_tui.engines import EngineOptions, open_engine
    from mineru_tui.reader import protocol

    t0 = time.perf_counter()
    engine = open_engine(EngineOptions(engine=names[0], model=str(args.ckpt), extra=extra))
    load_s = time.perf_counter() - t0
    tok = engine.model.tokenizer
    stop = engine.model.stop_ids[0]
    page = page_image()
    results: dict = {"engine": names[0], "extra": dict(extra),
                     "machine": platform.processor() or platform.machine(), "python": platform.python_version(),
                     "page_px": [W, H], "blocks": len(BLOCKS), "load_s": round(load_s, 2)}

    if args.step_costs:
        results["step_s_by_rows"] = step_costs(engine)
        print(json.dumps(results, indent=1))
        if args.json:
            args.json.write_text(json.dumps(results, indent=1) + "\n")
        return

    # 1. layout
    lay = layout_answer()
    if args.layout_s is None:
        lay_req = protocol.layout_request(page, None)
        lay_sched = schedule(tok, lay, LAYOUT_TOKENS_PER_BLOCK * len(BLOCKS), stop)
        results["layout"] = run_forced(engine, [lay_req], [lay_sched], 1)
        print("layout", results["layout"], flush=True)

    # the page reader's own crops, prompts and knobs for the parsed layout
    blocks = protocol.parse_layout(lay)
    requests, indices = protocol.block_requests(page, blocks, False, None)
    answers = {i: block_answer(BLOCKS[i][0], BLOCKS[i][5]) for i in range(len(BLOCKS))}
    sched = [schedule(tok, answers[i][0], answers[i][1], stop) for i in indices]
    results["recognition_blocks"] = len(requests)
    results["recognition_answer_tokens"] = sum(len(s) for s in sched)
    results["crop_pixels"] = sum(r.image.size[0] * r.image.size[1] for r in requests)

    if args.rounds:  # the three ways to batch a page's blocks, taking turns; each scored by its best round
        modes = {"recognition_b8_continuous": (8, True), "recognition_b8_fixed": (8, False),
                 "recognition_b1": (1, True)}
        rounds = []
        for r in range(args.rounds):
            one = {}
            for key in (list(modes) if r % 2 == 0 else list(modes)[::-1]):
                one[key] = run_forced(engine, requests, sched, modes[key][0], continuous=modes[key][1])
                print(f"round {r + 1}", key, one[key], flush=True)
            rounds.append(one)
        results["rounds"] = rounds
        for key in modes:
            results[key] = min((one[key] for one in rounds), key=lambda t: t["wall_s"])
        # decode time from the rows of each step and a step's median cost at that many rows:
        # what the batching saves, without the outside load of the moment
        costs = results["step_s_by_rows"] = step_costs(engine)
        print("step seconds by rows", costs, flush=True)
        for key in modes:
            results[key]["modelled_decode_s"] = round(sum(n * costs[b] for b, n in results[key]["rows_per_step"].items()), 1)
        finish(args, results)
        return

    # 2. every block, one stream at batch 8 with refills
    results["recognition_b8_continuous"] = run_forced(engine, requests, sched, 8)
    print("recognition batch 8 continuous", results["recognition_b8_continuous"], flush=True)
    # 5. default effort on a text PDF: only the non-text-like blocks go to the model
    from mineru_tui.pdf.blocks_text import TEXT_LAYER_TYPES

    model_only = [k for k, i in enumerate(indices) if blocks[i]["type"] not in TEXT_LAYER_TYPES]
    results["recognition_default_effort_blocks"] = [blocks[indices[k]]["type"] for k in model_only]
    results["recognition_default_effort_b8"] = run_forced(engine, [requests[k] for k in model_only],
                                                          [sched[k] for k in model_only], 8)
    print("default effort", results["recognition_default_effort_b8"], flush=True)
    if not args.quick:
        # 3. fixed batches of 8 (each runs until its longest answer ends)
        results["recognition_b8_fixed"] = run_forced(engine, requests, sched, 8, continuous=False)
        print("recognition batch 8 fixed", results["recognition_b8_fixed"], flush=True)
        # 4. every block, one at a time
        results["recognition_b1"] = run_forced(engine, requests, sched, 1)
        print("recognition batch 1", results["recognition_b1"], flush=True)
    finish(args, results)


def finish(args, results: dict) -> None:
    """Peak memory, seconds and pages per minute of a page each way; printed (and written)."""
    results["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    layout_s = results["layout"]["wall_s"] if "layout" in results else args.layout_s
    for name, key in (("all_blocks_b8_continuous", "recognition_b8_continuous"),
                      ("all_blocks_b8_fixed", "recognition_b8_fixed"), ("all_blocks_b1", "recognition_b1"),
                      ("default_effort_text_pdf", "recognition_default_effort_b8")):
        if key in results and layout_s:
            page_s = layout_s + results[key]["wall_s"]
            results[f"page_s_{name}"] = round(page_s, 1)
            results[f"pages_per_min_{name}"] = round(60 / page_s, 3)
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
