"""Side-by-side quality benchmark of Office parsing: ours vs MinerU, Docling, MarkItDown.

Scores every tool's Markdown against what the source file itself holds (see
``bench/office_truth.py``) and against the origin project's groundtruth, file by file,
then reports per metric per tool (overall and by kind), the failures, and — for ours —
the worst files per metric with what is missing.

Typical run, from the repository root (see docs/office-quality.md for the full recipe)::

    python bench/office_corpus.py --clone        # the wide corpus, once
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/office_quality.py \\
        --run-peers --doc bench/results/DATE-office-quality.md

Peers run in their own venvs through ``bench/office_peers.py`` (outputs cached under
``--work``); their Pythons default to ``.peer-venvs/<venv>/bin/python`` in the repository
(made as docs/office-quality.md says; ``--peer-python TOOL=PATH`` overrides). Ours runs
in-process from the ``--ours`` source tree (default: this repository) via
``mineru_tui.office.read_office`` and ``mineru_tui.document.to_markdown(doc, "")``.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from md_metrics import counts as md_counts  # noqa: E402
from md_metrics import groundtruth_words, md_words, missing_words, recall, strip_markdown, words  # noqa: E402
from office_truth import METRICS, kind_of, truth  # noqa: E402
from web_fair import add_fair, fair_tables_md  # noqa: E402 — web formats' fair scores

PEERS = {  # tool → default python of its venv (see docs/office-quality.md for making them)
    "mineru": str(HERE.parent / ".peer-venvs/mineru/bin/python"),
    "docling": str(HERE.parent / ".peer-venvs/docling/bin/python"),
    "markitdown": str(HERE.parent / ".peer-venvs/docling/bin/python"),
    "docling-rs": str(HERE.parent / ".peer-venvs/docling-rs/bin/python"),
}
TMP = Path(tempfile.gettempdir())
TOOLS = ["ours", "mineru", "docling", "markitdown"]
COLUMNS = ["parsed", "text", "precision", "groundtruth"] + list(METRICS)
KINDS = ["docx", "pptx", "xlsx"]
WEB_KINDS = ["html", "mhtml", "epub", "csv"]  # bench/web_truth.py (docs/formats-web.md)
KINDS += WEB_KINDS
SUFFIXES = (".docx", ".pptx", ".xlsx", ".xlsm", ".html", ".htm", ".xhtml", ".mht", ".mhtml",
            ".epub", ".csv", ".tsv")


# ---------------------------------------------------------------- running

def run_ours(files: list[Path], src: Path, out: Path) -> dict[str, dict]:
    """Parse each file with our readers from ``src``; Markdown cached to ``out``."""
    sys.path.insert(0, str(src))
    for mod in [m for m in sys.modules if m == "mineru_tui" or m.startswith("mineru_tui.")]:
        del sys.modules[mod]
    from mineru_tui.document import to_markdown
    from mineru_tui.office import read_office
    import mineru_tui
    out.mkdir(parents=True, exist_ok=True)
    res = {}
    for f in files:
        kind = kind_of(str(f)) or "docx"
        rec = {"file": f.name, "ok": False, "error": "", "seconds": None, "warnings": []}
        t = time.perf_counter()
        try:
            doc = read_office(f, kind)
            text = to_markdown(doc, "")
            rec["ok"] = True
            rec["warnings"] = list(getattr(doc, "warnings", []) or [])[:10]
            (out / f"{f.name}.md").write_text(text, encoding="utf-8")
        except BaseException as e:  # noqa: BLE001 — a failure is a result
            if isinstance(e, KeyboardInterrupt):
                raise
            rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
            tb = traceback.extract_tb(e.__traceback__)
            if tb:
                last = tb[-1]
                rec["error"] += f" [{Path(last.filename).name}:{last.lineno}]"
        rec["seconds"] = round(time.perf_counter() - t, 4)
        res[f.name] = rec
    res["__version__"] = {"version": getattr(mineru_tui, "__version__", "?"), "src": str(src)}
    return res


def run_peer(tool: str, python: str, files: list[Path], work: Path, force: bool) -> None:
    cmd = [python, str(HERE / "office_peers.py"), "--tool", tool, "--out", str(work / "peers")]
    if force:
        cmd.append("--force")
    env = dict(os.environ, HF_HUB_OFFLINE="1", OMP_NUM_THREADS="1")
    for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(k, None)
    subprocess.run(cmd + [str(f) for f in files], env=env, check=False)


def load_peer(tool: str, work: Path) -> dict[str, dict]:
    res = {}
    path = work / "peers" / tool / "results.jsonl"
    if not path.exists():
        return res
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        res[rec["file"]] = rec  # the last run of a file wins
    return res


# ---------------------------------------------------------------- scoring

_HEAD = re.compile(r"^ {0,3}#{1,6}\s+(.*)$", re.M)
_LINKTXT = re.compile(r"(?<!!)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(|<a\s[^>]*>(.*?)</a>", re.S | re.I)
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$|<li\b[^>]*>(.*?)</li>", re.M | re.S | re.I)


def _items(md: str, metric: str) -> list[str]:
    if metric == "headings":
        found = _HEAD.findall(md)
    elif metric == "links":
        found = [a or b for a, b in _LINKTXT.findall(md)]
    elif metric == "list_items":
        found = [a or b for a, b in _LIST.findall(md)]
    else:
        return []
    return [" ".join(words(strip_markdown(x))) for x in found]


def missing_items(samples: list[str], md: str, metric: str) -> list[str]:
    """Truth items (headings, link texts, list items) not found as such in ``md``."""
    found = _items(md, metric)
    miss = []
    for s in samples:
        key = " ".join(words(s))
        if not key:
            continue
        if not any(key in f or (f and f in key and len(f) > 0.6 * len(key)) for f in found):
            miss.append(s)
    return miss


def score_file(f: Path, gt: Path | None, mds: dict[str, str | None]) -> dict:
    kind = kind_of(str(f)) or "?"
    tr = truth(str(f), kind)
    ref = words(tr.text)
    gtw = groundtruth_words(str(gt)) if gt else None
    row = {"file": f.name, "kind": kind, "truth": tr.counts, "ref_words": len(ref),
           "gt_words": len(gtw) if gtw is not None else None, "notes": tr.notes, "tools": {}}
    for tool, md in mds.items():
        cell = {"ok": md is not None}
        got = md_words(md) if md is not None else []
        c = md_counts(md) if md is not None else {m: 0 for m in METRICS}
        cell["found"] = c
        cell["text"] = recall(ref, got)
        cell["precision"] = recall(got, ref) if md is not None else None  # our words in the file
        cell["groundtruth"] = recall(gtw, got) if gtw else None
        cell["scores"] = {m: (min(c[m], tr.counts[m]) / tr.counts[m] if tr.counts[m] else None) for m in METRICS}
        if tool == "ours" and md is not None:
            cell["missing_text"] = missing_words(ref, got)
            cell["missing_gt"] = missing_words(gtw, got) if gtw else []
            cell["missing_items"] = {m: missing_items(tr.samples[m], md, m)[:8]
                                     for m in ("headings", "links", "list_items") if tr.counts[m]}
        row["tools"][tool] = cell
    row["samples"] = tr.samples
    add_fair(row, ref, gt, mds)
    return row


def _val(cell: dict, col: str) -> float | None:
    if col == "parsed":
        return 1.0 if cell["ok"] else 0.0
    if col == "text":
        return cell["text"]
    if col == "precision":
        return cell.get("precision")
    if col == "groundtruth":
        return cell["groundtruth"]
    return cell["scores"][col]


def aggregate(rows: list[dict], tools: list[str]) -> dict:
    """tool → kind ("all" too) → column → (mean, n). Failed files score 0 on every metric
    whose truth is non-empty (a failure loses everything)."""
    agg = {}
    for tool in tools:
        agg[tool] = {}
        for kind in ["all"] + KINDS:
            sub = [r for r in rows if kind in ("all", r["kind"]) and tool in r["tools"]]
            agg[tool][kind] = {}
            for col in COLUMNS:
                vals = []
                for r in sub:
                    cell = r["tools"][tool]
                    if col in ("text", "precision") and not r["ref_words"]:
                        continue
                    if col == "groundtruth" and not r["gt_words"]:
                        continue
                    if col in METRICS and not r["truth"][col]:
                        continue
                    v = _val(cell, col)
                    vals.append(0.0 if v is None else v)
                agg[tool][kind][col] = (statistics.fmean(vals) if vals else None, len(vals))
    return agg


# ---------------------------------------------------------------- report

def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def table_md(agg: dict, tools: list[str], kind: str, rows: list[dict]) -> str:
    n_files = len([r for r in rows if kind in ("all", r["kind"])])
    head = "| tool | " + " | ".join(COLUMNS) + " |"
    sep = "|---|" + "---|" * len(COLUMNS)
    lines = [head, sep]
    best = {}
    for col in COLUMNS:
        peer_vals = [agg[t][kind][col][0] for t in tools if t != "ours" and agg[t][kind][col][0] is not None]
        best[col] = max(peer_vals) if peer_vals else None
    for t in tools:
        cells = []
        for col in COLUMNS:
            v, n = agg[t][kind][col]
            s = _fmt(v)
            if col == "parsed" and v is not None:
                s = f"{round(v * n)}/{n}"
            if t == "ours" and v is not None and best[col] is not None:
                s += " ✓" if v >= best[col] - 1e-9 else " ✗"
            cells.append(s)
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    ns = " · ".join(f"{col}: n={agg[tools[0]][kind][col][1]}" for col in COLUMNS[1:])
    return "\n".join(lines) + f"\n\n{n_files} files; files scored per column ({ns})."


def totals_md(rows: list[dict], tools: list[str]) -> str:
    lines = ["| tool | " + " | ".join(METRICS) + " |", "|---|" + "---|" * len(METRICS)]
    tt = {m: sum(r["truth"][m] for r in rows) for m in METRICS}
    lines.append("| *truth (from the XML)* | " + " | ".join(str(tt[m]) for m in METRICS) + " |")
    for t in tools:
        found = {m: sum(r["tools"][t]["found"][m] for r in rows if t in r["tools"]) for m in METRICS}
        lines.append(f"| {t} | " + " | ".join(str(found[m]) for m in METRICS) + " |")
    return "\n".join(lines)


def gt_by_kind_md(rows: list[dict], tools: list[str]) -> str:
    """Groundtruth recall split by whose expected output it is (Docling's own favours Docling)."""
    kinds = sorted({r["gt_kind"].split(" ")[0] for r in rows if r.get("gt_kind")})
    lines = ["| tool | " + " | ".join(f"{k} (n={sum(1 for r in rows if r.get('gt_kind', '').startswith(k))})"
                                     for k in kinds) + " |", "|---|" + "---|" * len(kinds)]
    for t in tools:
        cells = []
        for k in kinds:
            vals = [(r["tools"][t]["groundtruth"] or 0.0) for r in rows
                    if r.get("gt_kind", "").startswith(k) and r["gt_words"]]
            cells.append(_fmt(statistics.fmean(vals)) if vals else "—")
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def notes_md(rows: list[dict], tools: list[str], work: Path) -> str:
    """Footnote bodies the file holds (bench/web_truth.py) and Markdown footnote definitions
    (``[^x]:``) each tool wrote for those files (a peer may write notes as a list instead)."""
    with_notes = [r for r in rows if r["truth"].get("notes")]
    lines = [f"{len(with_notes)} files hold {sum(r['truth']['notes'] for r in with_notes)} "
             "footnotes; Markdown footnote definitions written:", ""]
    for t in tools:
        n = 0
        for r in with_notes:
            base = work / ("ours" if t == "ours" else f"peers/{t}")
            path = base / f"{r['file']}.md"
            if r["tools"][t]["ok"] and path.exists():
                n += len(re.findall(r"^\[\^[^\]]+\]:", path.read_text(encoding="utf-8"), re.M))
        lines.append(f"- {t}: {n}")
    return "\n".join(lines)


def times_md(rows: list[dict], results: dict[str, dict], tools: list[str], kinds: list[str]) -> str:
    """Median milliseconds per file by kind, and the total over the files every tool read."""
    lines = ["| tool | " + " | ".join(f"{k} median ms" for k in kinds) + " | total s (all read) |",
             "|---|" + "---|" * (len(kinds) + 1)]
    common = [r["file"] for r in rows if all(r["tools"][t]["ok"] for t in tools)]
    for t in tools:
        cells = []
        for k in kinds:
            vals = [results[t][r["file"]]["seconds"] for r in rows
                    if r["kind"] == k and r["tools"][t]["ok"] and results[t].get(r["file"], {}).get("seconds") is not None]
            cells.append(f"{statistics.median(vals) * 1000:.1f}" if vals else "—")
        total = sum(results[t][f]["seconds"] or 0.0 for f in common)
        lines.append(f"| {t} | " + " | ".join(cells) + f" | {total:.2f} |")
    return "\n".join(lines) + f"\n\nTotal over the {len(common)} files every tool read."


def failures_md(rows: list[dict], results: dict[str, dict], tools: list[str]) -> str:
    out = []
    for t in tools:
        bad = [(r["file"], results[t].get(r["file"], {}).get("error", "no result"))
               for r in rows if not r["tools"][t]["ok"]]
        out.append(f"- **{t}**: {len(bad)} failed" + ("" if bad else "."))
        for name, err in bad:
            out.append(f"  - `{name}` — {err.splitlines()[0][:200] if err else 'no output'}")
    return "\n".join(out)


def worst_md(rows: list[dict], tools: list[str], k: int = 6) -> str:
    """For ours: per metric, the files where we trail the best peer most (or score lowest)."""
    out = []
    peers = [t for t in tools if t != "ours"]
    for col in ["text", "groundtruth"] + list(METRICS):
        cand = []
        for r in rows:
            if "ours" not in r["tools"]:
                continue
            ours = _val(r["tools"]["ours"], col)
            if col in METRICS and not r["truth"][col]:
                continue
            if col == "text" and not r["ref_words"] or col == "groundtruth" and not r["gt_words"]:
                continue
            ours = ours or 0.0
            pv = [(_val(r["tools"][p], col) or 0.0, p) for p in peers if p in r["tools"]]
            bv, bp = max(pv) if pv else (0.0, "-")
            if ours < 0.999 or ours < bv:
                cand.append((ours - bv, ours, bv, bp, r))
        cand.sort(key=lambda x: (x[0], x[1]))
        if not cand:
            out.append(f"### {col}\n\nnothing missing.\n")
            continue
        out.append(f"### {col}\n")
        for _gap, ours, bv, bp, r in cand[:k]:
            cell = r["tools"]["ours"]
            if not cell["ok"]:
                detail = "ours failed to parse"
            elif col == "text":
                detail = "missing words: " + ", ".join(cell["missing_text"][:10])
            elif col == "groundtruth":
                detail = "missing words: " + ", ".join(cell["missing_gt"][:10])
            else:
                f = cell["found"][col]
                detail = f"truth {r['truth'][col]}, ours {f}, " + ", ".join(
                    f"{p} {r['tools'][p]['found'][col]}" for p in peers if p in r["tools"])
                mi = cell.get("missing_items", {}).get(col)
                if mi:
                    detail += "; not found: " + "; ".join(f"“{x[:50]}”" for x in mi[:4])
                elif r["samples"][col] and col in ("tables", "merged", "equations"):
                    detail += "; e.g. " + "; ".join(f"“{x[:40]}”" for x in r["samples"][col][:3])
            out.append(f"- `{r['file']}` ({r['kind']}): ours {_fmt(ours)} vs best peer {bp} {_fmt(bv)} — {detail}")
        out.append("")
    return "\n".join(out)


READER = {"docx": "docx", "pptx": "pptx", "xlsx": "xlsx"}


def feedback_md(rows: list[dict], tools: list[str]) -> str:
    """Per reader: files × metrics where ours trails the best peer, with what is missing."""
    peers = [t for t in tools if t != "ours"]
    sections = {k: [] for k in KINDS + ["omml"]}
    for r in rows:
        cell = r["tools"].get("ours")
        if cell is None:
            continue
        for col in ["parsed", "text", "groundtruth"] + list(METRICS):
            if col in METRICS and not r["truth"][col]:
                continue
            if col == "text" and not r["ref_words"] or col == "groundtruth" and not r["gt_words"]:
                continue
            ours = _val(cell, col) or 0.0
            pv = [(_val(r["tools"][p], col) or 0.0, p) for p in peers if p in r["tools"]]
            bv, bp = max(pv) if pv else (0.0, "-")
            trails = ours + 1e-9 < bv
            if not trails and ours >= 0.999:
                continue
            sec = "omml" if col == "equations" else r["kind"]
            if not cell["ok"]:
                what = f"ours FAILED: {cell.get('error', '')}"
            elif col == "text":
                what = "missing words: " + ", ".join(cell["missing_text"][:10])
            elif col == "groundtruth":
                what = "missing groundtruth words: " + ", ".join(cell["missing_gt"][:10])
            elif col == "parsed":
                what = "failed"
            else:
                what = (f"truth {r['truth'][col]}; ours {cell['found'][col]}; "
                        + ", ".join(f"{p} {r['tools'][p]['found'][col]}" for p in peers))
                mi = cell.get("missing_items", {}).get(col)
                if mi:
                    what += "; not found: " + "; ".join(f"“{x[:50]}”" for x in mi[:4])
                elif r["samples"][col]:
                    what += "; e.g. " + "; ".join(f"“{x[:40]}”" for x in r["samples"][col][:3])
            tag = "TRAILS" if trails else "below truth (no peer does better)"
            sections[sec].append((0 if tag == "TRAILS" else 1, r["file"], col,
                                  f"- [{tag}] `{r['file']}` **{col}**: ours {_fmt(ours)} vs {bp} {_fmt(bv)} — {what}"))
    # over-counting (not in the scores, but a sign of split or duplicated structure)
    for r in rows:
        cell = r["tools"].get("ours")
        if cell is None or not cell["ok"] or r["kind"] == "xlsx":
            continue
        for col in ("headings", "links", "list_items", "tables", "images", "equations"):
            t, f = r["truth"][col], cell["found"][col]
            pmax = max((r["tools"][p]["found"][col] for p in peers if p in r["tools"]), default=0)
            if f > 1.5 * t + 1 and f > pmax:
                sec = "omml" if col == "equations" else r["kind"]
                sections[sec].append((2, r["file"], col,
                                      f"- [OVER] `{r['file']}` **{col}**: truth {t}, ours {f} — "
                                      + ", ".join(f"{p} {r['tools'][p]['found'][col]}" for p in peers)))
    out = []
    for sec, items in sections.items():
        items.sort()
        out.append(f"## {sec} reader\n")
        out.extend(x[3] for x in items) if items else out.append("- nothing where we trail.")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=TMP / "mineru-tui-office-corpus",
                    help="the wide corpus of bench/office_corpus.py (its default --out)")
    ap.add_argument("--ours", type=Path, default=HERE.parent, help="source tree holding mineru_tui/")
    ap.add_argument("--work", type=Path, default=TMP / "mineru-tui-office-bench",
                    help="cache of outputs")
    ap.add_argument("--peer-python", action="append", default=[], metavar="TOOL=PATH",
                    help="the Python of a peer's venv (default: .peer-venvs/...)")
    ap.add_argument("--run-peers", action="store_true", help="run peers for files not cached yet")
    ap.add_argument("--force-peers", action="store_true", help="re-run peers on every file")
    ap.add_argument("--peers", default="mineru,docling,markitdown")
    ap.add_argument("--doc", type=Path, help="write results between the markers in this Markdown file")
    ap.add_argument("--feedback", type=Path, help="write per-reader feedback here")
    ap.add_argument("--json", type=Path, help="write per-file scores as JSON")
    ap.add_argument("--feedback-notes", type=Path, help="hand-written summary put at the top of --feedback")
    ap.add_argument("--kinds", help="only files of these kinds (e.g. html,mhtml,epub,csv)")
    args = ap.parse_args()

    files = sorted(p for p in args.corpus.iterdir() if p.suffix.lower() in SUFFIXES and p.name != "SOURCES.tsv"
                   and (args.kinds is None or kind_of(str(p)) in args.kinds.split(",")))
    gts = {}
    gt_kinds = {}
    src_tsv = args.corpus / "SOURCES.tsv"
    if src_tsv.exists():
        with open(src_tsv, newline="") as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                if r.get("groundtruth"):
                    gts[r["file"]] = args.corpus / r["groundtruth"]
                    gt_kinds[r["file"]] = r.get("groundtruth_kind", "") or "?"
    peers = [p for p in args.peers.split(",") if p]
    for item in args.peer_python:
        tool, _, path = item.partition("=")
        PEERS[tool] = path
    if args.run_peers or args.force_peers:
        for p in peers:
            run_peer(p, PEERS[p], files, args.work, args.force_peers)
    results = {p: load_peer(p, args.work) for p in peers}
    results["ours"] = run_ours(files, args.ours.resolve(), args.work / "ours")
    tools = ["ours"] + peers

    rows = []
    for f in files:
        mds = {}
        for t in tools:
            rec = results[t].get(f.name)
            if rec and rec.get("ok"):
                base = args.work / ("ours" if t == "ours" else f"peers/{t}")
                mds[t] = (base / f"{f.name}.md").read_text(encoding="utf-8")
            else:
                mds[t] = None
        row = score_file(f, gts.get(f.name), mds)
        row["gt_kind"] = gt_kinds.get(f.name, "")
        if results["ours"].get(f.name, {}).get("error"):
            row["tools"]["ours"]["error"] = results["ours"][f.name]["error"]
        rows.append(row)
    agg = aggregate(rows, tools)

    times = [results["ours"][f.name]["seconds"] for f in files if results["ours"][f.name]["ok"]]
    versions = {t: next((r.get("version") for r in results[t].values() if isinstance(r, dict) and r.get("version")), "?")
                for t in peers}
    present = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    by_kind = ", ".join(f"{k} {sum(r['kind'] == k for r in rows)}" for k in present)
    commit = subprocess.run(["git", "-C", str(args.ours), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "?"
    parts = [f"Corpus: `{args.corpus.name}` — {len(files)} files "
             f"({by_kind}), "
             f"{sum(1 for r in rows if r['gt_words'])} with origin groundtruth. "
             f"Ours from commit {commit}; peers: " + ", ".join(f"{t} {v}" for t, v in versions.items()) + ".",
             f"Ours: median {statistics.median(times) * 1000:.1f} ms/file in-process (not the speed benchmark)."
             if times else "Ours: no file parsed."]
    parts.append("\n### All files\n\n" + table_md(agg, tools, "all", rows))
    for k in present:
        parts.append(f"\n### {k}\n\n" + table_md(agg, tools, k, rows))
    if any(r["truth"].get("notes") for r in rows):
        parts.append("\n### Footnotes (web formats)\n\n" + notes_md(rows, tools, args.work))
    if any("fair" in r for r in rows):
        parts.append("\n### The same, scored by the fair rules (bench/web_fair.py)\n\n"
                     + fair_tables_md(rows, tools, present))
    parts.append("\n### Time per file (in each tool's own process, one file at a time)\n\n"
                 + times_md(rows, results, tools, present))
    parts.append("\n### Totals found (sum over files; over-counting is not penalised in the scores)\n\n"
                 + totals_md(rows, tools))
    parts.append("\n### Groundtruth recall by whose groundtruth it is\n\n" + gt_by_kind_md(rows, tools))
    parts.append("\n### Failures\n\n" + failures_md(rows, results, tools))
    parts.append("\n### Ours: worst files per metric\n\n" + worst_md(rows, tools))
    report = "\n".join(parts) + "\n"
    print(report)
    if args.doc:
        doc = args.doc.read_text(encoding="utf-8") if args.doc.exists() else ""
        start, end = "<!-- results:start -->", "<!-- results:end -->"
        block = f"{start}\n{report}{end}"
        if start in doc and end in doc:
            doc = doc[:doc.index(start)] + block + doc[doc.index(end) + len(end):]
        else:
            doc += "\n" + block + "\n"
        args.doc.write_text(doc, encoding="utf-8")
    if args.feedback:
        args.feedback.write_text(
            "# Office quality feedback for the reader engineers\n\n"
            f"Generated by `bench/office_quality.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
            f"from `{args.ours}` over `{args.corpus}` ({len(files)} files). "
            "Scores are per file: text/groundtruth = multiset word recall; counts = min(found, truth)/truth, "
            f"truth read from the file's XML. Our Markdown is in `{args.work}/ours/`, peers' in "
            f"`{args.work}/peers/<tool>/`.\n\n"
            + (args.feedback_notes.read_text(encoding="utf-8") + "\n" if args.feedback_notes else "")
            + "# Per reader, file by file (generated)\n\n"
            "TRAILS = a peer does better on that file; below truth = no peer does better but we miss "
            "part of what the XML holds; OVER = we find far more than the XML holds and more than any peer "
            "(split or duplicated structure).\n\n"
            + feedback_md(rows, tools), encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "agg": agg}, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
