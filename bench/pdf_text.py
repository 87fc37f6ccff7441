"""The PDF's own text, read by us at ``--effort low`` and by peers, scored against
groundtruth Markdown (issue 20).

A corpus is a folder of ``NAME.pdf`` files, each with its groundtruth ``NAME.md`` beside it
(docling's ``tests/data/pdf/sources`` + ``tests/data/pdf/groundtruth`` give eleven such
pairs; ``tests/corpus/pdf`` holds five of them, committed). Results and the peers' venvs:
``docs/pdf.md``. Every tool runs in its own
process, in its own Python (peers live in their own venvs, never the project's: pymupdf is
AGPL)::

    .venv/bin/python bench/pdf_text.py --corpus DIR \\
        --tool ours --tool pypdfium2 \\
        --tool markitdown=PEERS/markitdown/bin/python \\
        --tool pymupdf4llm=PEERS/pymupdf4llm/bin/python \\
        --tool docling-rs=PEERS/doclingrs/bin/python \\
        --tool mineru=PEERS/mineru/bin/python --keep OUT

Scores (per tool, in one table):

* **words** — multiset F1 of the groundtruth's words and the output's (``md_metrics.md_words``:
  NFKC, case-folded, Markdown and HTML stripped), averaged over files;
* **order** — share of the groundtruth's adjacent word pairs found adjacent in the output
  (multiset), averaged over files;
* **headings** — groundtruth heading lines (``#``) whose words (in any order) equal an output heading's
  (``#`` line or ``<hN>``), over all files (recall); the precision beside it says how many
  of the output's headings are groundtruth headings;
* **tables** — for each groundtruth table (pipe or HTML), the best words F1 of an output
  table (the table's words, whatever its cells), averaged over all tables; **cells** the
  same with whole cells compared (normalised word strings, multiset): stricter, and it
  depends on the groundtruth's cell granularity (docling's groundtruth puts two stacked
  records in one cell, "OTSL HTML");
* **rtl** — the words F1 on the files whose groundtruth is mostly Arabic/Hebrew script;
* **s/page** — CPU seconds of the conversion call (imports excluded) per page, and wall.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from md_metrics import md_words, strip_markdown, words  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------- converters (child side)


def _ours(path: str) -> str:
    from mineru_tui.convert import ConvertOptions, convert
    from mineru_tui.document import to_markdown

    return to_markdown(convert(path, ConvertOptions(effort="low")))


def _pypdfium2(path: str) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    try:
        return "\n\n".join(page.get_textpage().get_text_range() for page in doc)
    finally:
        doc.close()


def _markitdown(path: str) -> str:
    from markitdown import MarkItDown

    return MarkItDown(enable_plugins=False).convert(path).text_content


def _pymupdf4llm(path: str) -> str:
    import pymupdf4llm

    return pymupdf4llm.to_markdown(path)


def _docling_rs(path: str) -> str:
    from docling_rs.mineru import parse

    return parse(path, tier="flash").markdown()


def _mineru(path: str) -> str:
    from mineru.parser import parse

    return parse(path, tier="flash").markdown()


CONVERTERS = {"ours": _ours, "pypdfium2": _pypdfium2, "markitdown": _markitdown,
              "pymupdf4llm": _pymupdf4llm, "docling-rs": _docling_rs, "mineru": _mineru}
VERSIONS = {"ours": "mineru-tui", "pypdfium2": "pypdfium2", "markitdown": "markitdown",
            "pymupdf4llm": "pymupdf4llm", "docling-rs": "docling-rs", "mineru": "mineru"}


def _page_count(path: str) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    n = len(doc)
    doc.close()
    return n


def run_child(tool: str, pdfs: list[str], out_dir: str) -> None:
    """Convert each PDF with ``tool`` in this process; one JSON line per file on stdout."""
    import importlib.metadata as md

    convert = CONVERTERS[tool]
    try:
        version = md.version(VERSIONS[tool])
    except md.PackageNotFoundError:
        version = "?"
    for pdf in pdfs:
        rec = {"file": Path(pdf).stem, "tool": tool, "version": version}
        try:
            c0, w0 = time.process_time(), time.perf_counter()
            text = convert(pdf)
            rec["cpu"], rec["wall"] = time.process_time() - c0, time.perf_counter() - w0
            # a lone surrogate (an unmapped glyph) must not lose the whole file's score
            Path(out_dir, Path(pdf).stem + ".md").write_text(text, encoding="utf-8",
                                                             errors="replace")
        except Exception as e:  # a peer failing on one file is a result, not a crash
            rec["error"] = f"{type(e).__name__}: {str(e)[:200]}"
        print(json.dumps(rec), flush=True)


# ---------------------------------------------------------------- scoring

_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def is_rtl(md: str) -> bool:
    """Mostly Hebrew/Arabic script (letters only)."""
    letters = [c for c in md if c.isalpha()]
    return bool(letters) and sum(bool(_RTL.match(c)) for c in letters) > 0.3 * len(letters)


def f1(ref: list, got: list) -> float:
    if not ref and not got:
        return 1.0
    hit = sum((Counter(ref) & Counter(got)).values())
    if not hit:
        return 0.0
    p, r = hit / len(got), hit / len(ref)
    return 2 * p * r / (p + r)


def order(ref: list[str], got: list[str]) -> float | None:
    pairs = list(zip(ref, ref[1:]))
    if not pairs:
        return None
    have = Counter(zip(got, got[1:]))
    return sum((Counter(pairs) & have).values()) / len(pairs)


_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def headings(md: str) -> list[str]:
    """Heading lines as normalised word strings."""
    body = _FENCE.sub("", md)
    found = re.findall(r"^ {0,3}#{1,6}\s+(.+?)\s*#*\s*$", body, re.M)
    found += re.findall(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]>", body, re.I | re.S)
    # words compared as a set: "1 Introduction" and "Introduction 1" are the same heading
    return [" ".join(sorted(words(strip_markdown(h)))) for h in found if words(strip_markdown(h))]


def _cell(text: str) -> str:
    return " ".join(words(strip_markdown(text)))


def tables(md: str) -> list[list[str]]:
    """Each table as its list of normalised cell strings (empty cells left out)."""
    out = []
    for m in re.finditer(r"<table\b.*?</table>", md, re.I | re.S):
        cells = re.findall(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", m.group(0), re.I | re.S)
        out.append([c for c in map(_cell, cells) if c])
    lines = md.splitlines()
    i = 0
    delim = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
    while i < len(lines) - 1:
        if lines[i].lstrip().startswith("|") and delim.match(lines[i + 1]) and "|" in lines[i + 1]:
            rows = [lines[i]]
            j = i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append(lines[j])
                j += 1
            cells = []
            for row in rows:
                row = row.strip().strip("|")
                cells += [c for c in map(_cell, re.split(r"(?<!\\)\|", row)) if c]
            out.append(cells)
            i = j
        else:
            i += 1
    return out


def _table_words(cells: list[str]) -> list[str]:
    return [w for c in cells for w in c.split()]


def score_file(ref_md: str, got_md: str) -> dict:
    rw, gw = md_words(ref_md), md_words(got_md)
    rh, gh = headings(ref_md), headings(got_md)
    rt, gt = tables(ref_md), tables(got_md)
    return {"words": f1(rw, gw), "order": order(rw, gw),
            "head_ref": len(rh), "head_found": sum((Counter(rh) & Counter(gh)).values()),
            "head_out": len(gh),
            "tables": [max((f1(_table_words(t), _table_words(g)) for g in gt), default=0.0) for t in rt],
            "cells": [max((f1(t, g) for g in gt), default=0.0) for t in rt],
            "rtl": is_rtl(ref_md)}


def summarise(scores: list[dict], runs: list[dict]) -> dict:
    def mean(xs):
        xs = [x for x in xs if x is not None]
        return sum(xs) / len(xs) if xs else None

    href = sum(s["head_ref"] for s in scores)
    hfound = sum(s["head_found"] for s in scores)
    hout = sum(s["head_out"] for s in scores)
    pages = sum(r.get("pages", 0) for r in runs if "error" not in r)
    return {"words": mean(s["words"] for s in scores), "order": mean(s["order"] for s in scores),
            "headings": hfound / href if href else None,
            "heading_precision": hfound / hout if hout else None,
            "tables": mean(t for s in scores for t in s["tables"]),
            "cells": mean(t for s in scores for t in s["cells"]),
            "rtl": mean(s["words"] for s in scores if s["rtl"]),
            "cpu_per_page": sum(r.get("cpu", 0) for r in runs) / pages if pages else None,
            "wall_per_page": sum(r.get("wall", 0) for r in runs) / pages if pages else None,
            "failed": [r["file"] for r in runs if "error" in r]}


# ---------------------------------------------------------------- driver


def corpus_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.pdf") if p.with_suffix(".md").exists())


def run_tool(tool: str, python: str, pdfs: list[Path], out_dir: Path, timeout: float) -> list[dict]:
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [python, str(Path(__file__).resolve()), "--child", tool, "--keep", str(out_dir)]
    try:
        proc = subprocess.run(cmd + [str(p) for p in pdfs], capture_output=True, text=True,
                              env=env, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return [{"file": p.stem, "tool": tool, "error": "timeout"} for p in pdfs]
    runs = []
    for line in proc.stdout.splitlines():
        try:
            runs.append(json.loads(line))
        except ValueError:
            continue
    for r in runs:
        r["pages"] = _page_count(str(next(p for p in pdfs if p.stem == r["file"])))
    done = {r["file"] for r in runs}
    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
    runs += [{"file": p.stem, "tool": tool, "error": f"exit {proc.returncode}: {tail}"}
             for p in pdfs if p.stem not in done]
    return runs


def _fmt(x, digits=3):
    return "–" if x is None else f"{x:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, help="folder of NAME.pdf + NAME.md pairs")
    ap.add_argument("--tool", action="append", default=[],
                    help="TOOL or TOOL=PYTHON (default: ours and pypdfium2 in this Python)")
    ap.add_argument("--keep", type=Path, help="write each tool's Markdown under KEEP/TOOL/")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per tool")
    ap.add_argument("--json", type=Path, help="also write the scores as JSON")
    ap.add_argument("--per-file", action="store_true", help="print per-file scores too")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("pdfs", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        run_child(a.child, a.pdfs, str(a.keep))
        return 0
    if not a.corpus or not a.corpus.is_dir():
        print("pdf_text: --corpus DIR (NAME.pdf + NAME.md pairs) is needed", file=sys.stderr)
        return 2
    pdfs = corpus_files(a.corpus)
    if not pdfs:
        print(f"pdf_text: no NAME.pdf with NAME.md in {a.corpus}", file=sys.stderr)
        return 2
    keep = a.keep or Path(tempfile.gettempdir()) / "pdf_text_out"
    tools = a.tool or ["ours", "pypdfium2"]
    pages = sum(_page_count(str(p)) for p in pdfs)
    print(f"corpus: {len(pdfs)} files, {pages} pages")
    results = {}
    for spec in tools:
        name, _, python = spec.partition("=")
        if name not in CONVERTERS:
            print(f"pdf_text: unknown tool {name!r} (known: {', '.join(CONVERTERS)})", file=sys.stderr)
            return 2
        runs = run_tool(name, python or sys.executable, pdfs, keep / name, a.timeout)
        scores = []
        for r in runs:
            ref = a.corpus.joinpath(r["file"] + ".md").read_text(encoding="utf-8")
            got_path = keep / name / (r["file"] + ".md")
            got = got_path.read_text(encoding="utf-8") if "error" not in r and got_path.exists() else ""
            s = score_file(ref, got)
            s["file"] = r["file"]
            scores.append(s)
        version = next((r.get("version") for r in runs if r.get("version")), "?")
        results[name] = {"version": version, "summary": summarise(scores, runs),
                         "files": scores, "runs": runs}
        if a.per_file:
            for s in scores:
                t = s["tables"]
                print(f"  {name:12} {s['file']:32} words {_fmt(s['words'])} order {_fmt(s['order'])} "
                      f"headings {s['head_found']}/{s['head_ref']} (out {s['head_out']}) "
                      f"tables {_fmt(sum(t) / len(t) if t else None)}")
    print("\n| tool | words F1 | order | headings (precision) | tables (cells) | right-to-left | CPU s/page | wall s/page |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, res in results.items():
        s = res["summary"]
        fail = f" ({len(s['failed'])} failed)" if s["failed"] else ""
        print(f"| {name} {res['version']}{fail} | {_fmt(s['words'])} | {_fmt(s['order'])} | "
              f"{_fmt(s['headings'], 2)} ({_fmt(s['heading_precision'], 2)}) | "
              f"{_fmt(s['tables'], 2)} ({_fmt(s['cells'], 2)}) | "
              f"{_fmt(s['rtl'])} | {_fmt(s['cpu_per_page'])} | {_fmt(s['wall_per_page'])} |")
    for name, res in results.items():
        for r in res["runs"]:
            if "error" in r:
                print(f"{name}: {r['file']}: {r['error']}", file=sys.stderr)
    if a.json:
        a.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
