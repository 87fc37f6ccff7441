"""OpenDocument, RTF and legacy .doc/.xls/.ppt: files read, groundtruth recall, time per file.

Runs ``convert()`` on every file of a corpus folder (default: tests/corpus/odf_legacy) in
one process, timing each, and scores the Markdown against the origin project's groundtruth
where the corpus ships one (``groundtruth/<file>.md``, word recall as in
bench/office_quality.py). Peers (MarkItDown, Docling) are run when ``--peer-python`` names a
Python that has them; otherwise they are reported as skipped.

    .venv/bin/python bench/odf_legacy.py --doc docs/formats-odf-legacy.md
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from md_metrics import counts, groundtruth_words, md_words, recall  # noqa: E402

KINDS = [".odt", ".ods", ".odp", ".rtf", ".doc", ".xls", ".ppt"]
_PEER = r'''
import json, sys, time
tool, files = sys.argv[1], sys.argv[2:]
if tool == "markitdown":
    from markitdown import MarkItDown
    conv = MarkItDown()
    run = lambda f: conv.convert(f).text_content
else:
    from docling.document_converter import DocumentConverter
    conv = DocumentConverter()
    run = lambda f: conv.convert(f).document.export_to_markdown()
for f in files:
    t = time.perf_counter()
    try:
        md, err = run(f), ""
    except Exception as e:
        md, err = None, f"{type(e).__name__}: {e}"[:200]
    print(json.dumps({"file": f, "md": md, "error": err, "seconds": time.perf_counter() - t}))
'''


def ours(files: list[Path]) -> dict[str, dict]:
    from mineru_tui.convert import ConvertError, convert
    from mineru_tui.document import to_markdown

    out = {}
    for f in files:
        t = time.perf_counter()
        try:
            md, err = to_markdown(convert(f), ""), ""
        except ConvertError as e:
            md, err = None, e.reason
        out[f.name] = {"md": md, "error": err, "seconds": time.perf_counter() - t}
    return out


def peer(tool: str, python: str, files: list[Path]) -> dict[str, dict] | str:
    proc = subprocess.run([python, "-c", _PEER, tool] + [str(f) for f in files],
                          capture_output=True, text=True)
    if proc.returncode != 0 and not proc.stdout:
        return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "failed"
    res = {}
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        res[Path(rec["file"]).name] = rec
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=HERE.parent / "tests/corpus/odf_legacy")
    ap.add_argument("--peer-python", action="append", default=[], metavar="TOOL=PATH")
    ap.add_argument("--doc", type=Path, help="write the results table between the markers")
    args = ap.parse_args()
    files = sorted(p for p in args.corpus.iterdir() if p.suffix in KINDS)
    results = {"ours": ours(files)}
    skipped = {}
    for spec in args.peer_python:
        tool, python = spec.split("=", 1)
        got = peer(tool, python, files)
        if isinstance(got, str):
            skipped[tool] = got
        else:
            results[tool] = got
    rows = []
    by_kind: dict[tuple[str, str], list] = defaultdict(list)
    for f in files:
        gt = args.corpus / "groundtruth" / f"{f.name}.md"
        gtw = groundtruth_words(str(gt)) if gt.exists() else None
        for tool, res in results.items():
            rec = res.get(f.name, {"md": None, "seconds": None})
            md = rec["md"]
            c = counts(md) if md else {}
            by_kind[(f.suffix, tool)].append({
                "read": md is not None, "seconds": rec["seconds"],
                "gt": recall(gtw, md_words(md)) if gtw and md is not None else None,
                "tables": c.get("tables", 0), "headings": c.get("headings", 0)})
            rows.append((f.name, tool, md is not None, rec["seconds"], rec.get("error", "")))
    lines = ["| format | tool | files | read | groundtruth recall (files) | median ms | tables | headings |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for kind in KINDS:
        for tool in results:
            recs = by_kind.get((kind, tool), [])
            if not recs:
                continue
            gts = [r["gt"] for r in recs if r["gt"] is not None]
            ms = [1000 * r["seconds"] for r in recs if r["seconds"] is not None]
            lines.append(f"| {kind[1:]} | {tool} | {len(recs)} | {sum(r['read'] for r in recs)} | "
                         f"{statistics.mean(gts):.2f} ({len(gts)})" if gts else
                         f"| {kind[1:]} | {tool} | {len(recs)} | {sum(r['read'] for r in recs)} | — ")
            lines[-1] += (f" | {statistics.median(ms):.1f} | {sum(r['tables'] for r in recs)} | "
                          f"{sum(r['headings'] for r in recs)} |")
    total = sum(r["seconds"] for r in results["ours"].values())
    lines.append("")
    lines.append(f"Whole corpus through `convert()` in one process: {total:.2f} s for {len(files)} files.")
    for tool, why in skipped.items():
        lines.append(f"{tool}: skipped ({why}).")
    for name, tool, ok, _, err in rows:
        if not ok:
            lines.append(f"- {tool} refused {name}: {err}")
    text = "\n".join(lines)
    print(text)
    if args.doc:
        doc = args.doc.read_text()
        start, end = "<!-- results -->", "<!-- /results -->"
        head, _, rest = doc.partition(start)
        _, _, tail = rest.partition(end)
        args.doc.write_text(f"{head}{start}\n{text}\n{end}{tail}")


if __name__ == "__main__":
    main()
