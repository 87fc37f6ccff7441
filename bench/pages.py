"""What one page costs with each engine, stage by stage, with realistic answers.

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

Runs, through each engine of ``--engines`` (default numpy; each in its own process, so peak
memory is the engine's own) and the page reader's own crops, prompts and knobs
(:mod:`mineru_tui.reader.protocol`):

1. layout: the 1036x1036 page image → vision, prefill, decode of the layout answer;
2. recognition, every block (``--effort high`` on a text PDF; any scan), batched by 8;
3. the same at batch 1 (what batching a page's blocks saves);
4. recognition at the default effort on a text PDF: text-like blocks come from the text
   layer, only the table and the equation go to the model.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/pages.py [--quick] \\
        [--engines numpy,openvino] [--extra openvino:precision=f32] [--ckpt CKPT] [--json pages-bench.json]

(the checkpoint comes from ``bench/engine.py --keep``, which leaves it as
``mineru-tui-bench-ckpt`` in the system temp folder, the default of ``--ckpt``; ``--quick``
skips run 3.)
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
    """Replaces the loop's greedy choice with scheduled tokens, one schedule per row."""

    def __init__(self, schedules: list[list[int]], stop: int):
        self.schedules = schedules
        self.stop = stop
        self.active = list(range(len(schedules)))
        self.pos = [0] * len(schedules)

    def __call__(self, logits):
        import numpy as np

        assert logits.shape[0] == len(self.active), (logits.shape, len(self.active))
        out = []
        for b in self.active:
            out.append(self.schedules[b][self.pos[b]])
            self.pos[b] += 1
        ended = [b for b in self.active if self.pos[b] >= len(self.schedules[b])]
        self.active = [b for b in self.active if b not in ended]
        return np.asarray(out, dtype=np.int64)


def run_forced(engine, requests, schedules, max_batch):
    """Stream the requests through the engine in chunks, forcing each row's tokens; returns
    summed stage seconds and token counts."""
    from mineru_tui.engines.numpy import generate
    from mineru_tui.engines.events import Done

    totals = dict(preprocess_s=0.0, vision_s=0.0, vision_tokens=0, prefill_s=0.0, prefill_tokens=0,
                  decode_s=0.0, decode_tokens=0, decode_steps=0, generated=0, wall_s=0.0)
    stop = engine.model.stop_ids[0]
    original = generate.greedy
    t0 = time.perf_counter()
    try:
        for start in range(0, len(requests), max_batch):
            chunk = requests[start:start + max_batch]
            generate.greedy = Forcer(schedules[start:start + max_batch], stop)
            for ev in engine.stream(chunk):
                if isinstance(ev, Done):
                    t = ev.timings
                    for k in ("preprocess_s", "vision_s", "vision_tokens", "prefill_s", "prefill_tokens",
                              "decode_s", "decode_tokens", "decode_steps"):
                        totals[k] += getattr(t, k)
                    totals["generated"] += sum(len(r.token_ids) for r in ev.results)
                    assert all(r.finish_reason == "stop" for r in ev.results), [r.finish_reason for r in ev.results]
    finally:
        generate.greedy = original
    totals["wall_s"] = time.perf_counter() - t0
    return totals


def schedule(tokenizer, text: str, count: int, stop: int) -> list[int]:
    ids = [i for i in tokenizer.encode(text) if i != stop] or [tokenizer.encode("a")[0]]
    out = [ids[i % len(ids)] for i in range(count)]
    return out + [stop]


def measure(ckpt: Path, engine_name: str, extra: tuple, quick: bool) -> dict:
    """Runs 1-4 through one engine, in this process (the parent runs one process per engine)."""
    from mineru_tui.engines import EngineOptions, open_engine
    from mineru_tui.reader import protocol

    t0 = time.perf_counter()
    engine = open_engine(EngineOptions(engine=engine_name, model=str(ckpt), extra=extra))
    load_s = time.perf_counter() - t0
    tok = engine.model.tokenizer
    stop = engine.model.stop_ids[0]
    page = page_image()
    results: dict = {"engine": engine_name, "extra": dict(extra), "machine": platform.processor() or platform.machine(),
                     "python": platform.python_version(), "page_px": [W, H], "blocks": len(BLOCKS),
                     "load_s": round(load_s, 2),
                     "rss_after_load_gib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)}

    # 1. layout
    lay = layout_answer()
    lay_req = protocol.layout_request(page, None)
    lay_sched = schedule(tok, lay, LAYOUT_TOKENS_PER_BLOCK * len(BLOCKS), stop)
    results["layout"] = run_forced(engine, [lay_req], [lay_sched], 1)
    print(engine_name, "layout", results["layout"], flush=True)

    # the page reader's own crops, prompts and knobs for the parsed layout
    blocks = protocol.parse_layout(lay)
    requests, indices = protocol.block_requests(page, blocks, False, None)
    answers = {i: block_answer(BLOCKS[i][0], BLOCKS[i][5]) for i in range(len(BLOCKS))}
    sched = [schedule(tok, answers[i][0], answers[i][1], stop) for i in indices]
    results["recognition_blocks"] = len(requests)
    results["recognition_answer_tokens"] = sum(len(s) for s in sched)
    results["crop_pixels"] = sum(r.image.size[0] * r.image.size[1] for r in requests)

    # 2. every block, batched by 8
    results["recognition_b8"] = run_forced(engine, requests, sched, 8)
    print(engine_name, "recognition batch 8", results["recognition_b8"], flush=True)
    # 4. default effort on a text PDF: only the non-text-like blocks go to the model
    from mineru_tui.pdf.blocks_text import TEXT_LAYER_TYPES

    model_only = [k for k, i in enumerate(indices) if blocks[i]["type"] not in TEXT_LAYER_TYPES]
    results["recognition_default_effort_blocks"] = [blocks[indices[k]]["type"] for k in model_only]
    results["recognition_default_effort_b8"] = run_forced(engine, [requests[k] for k in model_only],
                                                          [sched[k] for k in model_only], 8)
    print(engine_name, "default effort", results["recognition_default_effort_b8"], flush=True)
    # 3. every block, one at a time
    if not quick:
        results["recognition_b1"] = run_forced(engine, requests, sched, 1)
        print(engine_name, "recognition batch 1", results["recognition_b1"], flush=True)
    results["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    page_b8 = results["layout"]["wall_s"] + results["recognition_b8"]["wall_s"]
    page_default = results["layout"]["wall_s"] + results["recognition_default_effort_b8"]["wall_s"]
    results["page_s_all_blocks_b8"] = round(page_b8, 1)
    results["page_s_default_effort_text_pdf"] = round(page_default, 1)
    if "recognition_b1" in results:
        results["page_s_all_blocks_b1"] = round(results["layout"]["wall_s"] + results["recognition_b1"]["wall_s"], 1)
    engine.close()
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ckpt", type=Path, default=Path(tempfile.gettempdir()) / "mineru-tui-bench-ckpt")
    ap.add_argument("--json", type=Path, help="write the numbers here too")
    ap.add_argument("--quick", action="store_true", help="skip the batch-1 recognition run")
    ap.add_argument("--engines", default="numpy",
                    help="comma-separated engines, each measured in its own process (numpy, openvino, ...)")
    ap.add_argument("--extra", action="append", default=[], metavar="ENGINE:KEY=VALUE",
                    help="an engine option, e.g. openvino:precision=f32 (repeatable)")
    ap.add_argument("--_child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not (args.ckpt / "config.json").is_file():
        sys.exit(f"bench/pages.py: no checkpoint at {args.ckpt}: make one with "
                 "`python bench/engine.py --keep` (or pass --ckpt DIR)")
    extras: dict[str, list[tuple[str, str]]] = {}
    for item in args.extra:
        name, _, kv = item.partition(":")
        key, _, value = kv.partition("=")
        extras.setdefault(name, []).append((key, value))
    if args._child:
        res = measure(args.ckpt, args._child, tuple(extras.get(args._child, ())), args.quick)
        print("RESULT " + json.dumps(res), flush=True)
        return
    import subprocess

    results = {}
    for name in [e.strip() for e in args.engines.split(",") if e.strip()]:
        cmd = [sys.executable, __file__, "--_child", name, "--ckpt", str(args.ckpt)] + \
              (["--quick"] if args.quick else []) + [f"--extra={e}" for e in args.extra]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)  # stderr passes through
        for line in proc.stdout:
            if line.startswith("RESULT "):
                results[name] = json.loads(line[7:])
            else:
                print(line, end="", flush=True)
        proc.wait()
        if name not in results:
            print(f"bench/pages.py: the {name} run failed (exit {proc.returncode})", file=sys.stderr)
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
