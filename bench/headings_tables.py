"""Heading levels, heading F1 and rows kept in tables over several pages, beside peers.

    python bench/make_heading_pdfs.py /tmp/hp        # PDFs with groundtruth (needs reportlab)
    python bench/headings_tables.py /tmp/hp [--before OTHER_CHECKOUT]
        [--pymupdf4llm PYTHON] [--docling-rs PYTHON] [--mineru4 PYTHON] [--out FILE.json]

Each reader turns every ``*.pdf`` that has a ``*.truth.json`` (made PDFs) or a ``*.md`` of the
same name (the public PDFs of ``tests/corpus/pdf``, docling's groundtruth) into Markdown:

* **ours**: ``python -m mineru_tui parse PDF --effort low`` from this checkout (``--before``:
  the same from another checkout, e.g. main, through ``PYTHONPATH``);
* peers, each run with the Python of its own scratch venv (never a dependency here):
  ``pymupdf4llm.to_markdown``, docling-rs's ``DocumentConverter(text_layer_only=True)`` (its
  layout models cannot be fetched from a package registry), MinerU 4's
  ``MinerUParser(tier="flash")``.

Scores: **heading F1** (a heading matches a groundtruth one with the same text, letters and
digits compared; each used once), **level accuracy** (the share of groundtruth headings found
*with* their exact level: ``#`` count = level), and for tables, **rows kept** (groundtruth
data rows found, by their first cell, in the output's tables), the number of tables they
came out in (1 = joined) and of header rows left in the body. Public groundtruth Markdown
has no reliable levels (docling writes every heading as ``##``): only F1 counts there.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from testkit.mineru4_outline import outline  # noqa: E402  (the Markdown reader)

SNIPPETS = {
    "pymupdf4llm": "import sys, pymupdf4llm; sys.stdout.write(pymupdf4llm.to_markdown(sys.argv[1]))",
    "docling-rs": ("import sys; from docling_rs import DocumentConverter; sys.stdout.write("
                   "DocumentConverter(text_layer_only=True).convert(sys.argv[1]).document"
                   ".export_to_markdown())"),
    "mineru4-flash": ("import sys; from mineru.parser.mineru_parser import MinerUParser; "
                      "sys.stdout.write(MinerUParser(tier='flash').parse(sys.argv[1]).markdown())"),
}


def key(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def headings(markdown: str) -> list[tuple[int, str]]:
    return [(o[1], o[2]) for o in outline(markdown) if o[0] == "h"]


def score_headings(found: list[tuple[int, str]], truth: list[tuple[int, str]]) -> dict:
    pool = list(truth)
    matched, exact = 0, 0
    for level, text in found:
        k = key(text)
        hit = next((t for t in pool if key(t[1]) == k), None)
        if hit is None:
            continue
        pool.remove(hit)
        matched += 1
        exact += hit[0] == level
    p = matched / len(found) if found else 0.0
    r = matched / len(truth) if truth else 0.0
    return {"f1": round(2 * p * r / (p + r), 3) if p + r else 0.0,
            "level_accuracy": round(exact / len(truth), 3) if truth else None,
            "found": len(found), "truth": len(truth)}


def score_tables(markdown: str, tables: list[dict]) -> dict:
    found = [o[1] for o in outline(markdown) if o[0] == "table"]
    out = {}
    for t in tables:
        codes = {r[0] for r in t["rows"]}
        holding = [rows for rows in found if any(r and r[0] in codes for r in rows)]
        kept = {r[0] for rows in holding for r in rows if r and r[0] in codes}
        headers = sum(1 for rows in holding for r in rows[1:] if [key(c) for c in r] == [key(c) for c in t["header"]])
        out = {"rows_kept": len(kept), "rows": len(codes), "tables": len(holding),
               "headers_in_body": headers}
    return out


def truth_of(pdf: Path) -> dict | None:
    made = pdf.with_suffix(".truth.json")
    if made.is_file():
        return json.loads(made.read_text(encoding="utf-8"))
    md = pdf.with_suffix(".md")
    if md.is_file():
        return {"headings": headings(md.read_text(encoding="utf-8")), "public": True}
    return None


def run(cmd: list[str], env=None, cwd: Path = ROOT) -> tuple[str, float]:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900, cwd=cwd)
    return (r.stdout if r.returncode == 0 else ""), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--before", type=Path, help="another checkout of mineru-tui (e.g. main)")
    for name in SNIPPETS:
        ap.add_argument(f"--{name.split('-flash')[0]}", dest=name, metavar="PYTHON")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    readers = {"ours": lambda pdf: run([sys.executable, "-m", "mineru_tui", "parse", "-q", str(pdf.resolve()),
                                        "--effort", "low"])}
    if args.before:
        env = {**os.environ, "PYTHONPATH": str(args.before)}
        readers["before"] = lambda pdf: run([sys.executable, "-m", "mineru_tui", "parse", "-q",
                                             str(pdf.resolve()), "--effort", "low"], env, args.before)
    for name, snippet in SNIPPETS.items():
        python = getattr(args, name.replace("-", "_"), None) or vars(args).get(name)
        if python:
            readers[name] = (lambda py, sn: lambda pdf: run([py, "-c", sn, str(pdf)]))(python, snippet)
    results = []
    for folder in args.folders:
        for pdf in sorted(folder.glob("*.pdf")):
            truth = truth_of(pdf)
            if truth is None:
                continue
            row = {"file": pdf.name, "public": bool(truth.get("public"))}
            for name, read in readers.items():
                md, seconds = read(pdf)
                entry = {"seconds": round(seconds, 2), "empty": not md.strip()}
                entry.update(score_headings(headings(md), [tuple(h) for h in truth["headings"]]))
                if truth.get("public"):
                    entry.pop("level_accuracy")
                if truth.get("tables"):
                    entry["table"] = score_tables(md, truth["tables"])
                row[name] = entry
            results.append(row)
            print(json.dumps(row), flush=True)
    summary = {}
    for name in readers:
        made = [r[name] for r in results if not r["public"] and "table" not in r[name]]
        public = [r[name] for r in results if r["public"]]
        tables = [r[name]["table"] for r in results if "table" in r[name]]
        summary[name] = {
            "made_f1": round(sum(e["f1"] for e in made) / len(made), 3) if made else None,
            "made_level_accuracy": round(sum(e["level_accuracy"] for e in made) / len(made), 3) if made else None,
            "public_f1": round(sum(e["f1"] for e in public) / len(public), 3) if public else None,
            "table_rows_kept": f"{sum(t.get('rows_kept', 0) for t in tables)}/{sum(t.get('rows', 0) for t in tables)}",
            "tables_joined": f"{sum(1 for t in tables if t.get('tables') == 1)}/{len(tables)}",
            "headers_in_body": sum(t.get("headers_in_body", 0) for t in tables),
        }
    print(json.dumps(summary, indent=1))
    if args.out:
        args.out.write_text(json.dumps({"files": results, "summary": summary}, indent=1) + "\n")


if __name__ == "__main__":
    main()
