"""OpenDocument, RTF and legacy .doc/.xls/.ppt: files read, groundtruth recall, time per file.

Runs ``convert()`` on every file of a corpus folder (default: tests/corpus/odf_legacy) in
one process, timing each, and scores the Markdown against the origin project's groundtruth
where the corpus ships one (``groundtruth/<file>.md``, word recall as in
bench/office_quality.py), then again under the fair rules of bench/odf_legacy_fair.py (the
same canonical form for every tool and the groundtruth). Peers (MarkItDown, Docling,
docling-rs, MinerU) are run when ``--peer-python`` names a Python that has them; otherwise
they are reported as skipped. Every tool makes ``--passes`` passes over the corpus and a
file's time is its best pass (a shared machine's load comes and goes).

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
from md_metrics import counts, groundtruth_words, md_words, recall, words  # noqa: E402
from odf_legacy_fair import (canonical_tables, headings, real_tables,  # noqa: E402
                             strip_labels, without_passages)

KINDS = [".odt", ".ods", ".odp", ".rtf", ".doc", ".xls", ".ppt"]
# Structure measured against the groundtruth's own counts (Markdown groundtruth only):
# each file scores min(found, expected) / expected, averaged over the files that have some.
STRUCT = ["tables", "merged", "headings", "list_items", "links", "images", "notes"]


def _notes(md: str) -> int:
    """Footnote definitions (``[^1]:``) or, in docling's Markdown, none to count."""
    import re
    return len(re.findall(r"^\[\^[^\]]+\]:", md, re.M))


def _mean(values: list) -> str:
    values = [v for v in values if v is not None]
    return f"{statistics.mean(values):.2f}" if values else "—"
_PEER = r'''
import json, sys, time
tool, passes, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
if tool == "markitdown":
    from markitdown import MarkItDown
    conv = MarkItDown()
    run = lambda f: conv.convert(f).text_content
elif tool == "mineru":  # MinerU's own readers for these formats (docvortex, "flash")
    import docvortex
    def run(f):
        md = docvortex.render_artifact(docvortex.parse(f).middle_json, "markdown").content
        return md.decode("utf-8", "replace") if isinstance(md, bytes) else md
elif tool == "docling-rs":
    from docling_rs import DocumentConverter
    conv = DocumentConverter()
    run = lambda f: conv.convert(f).document.export_to_markdown()
else:
    from docling.document_converter import DocumentConverter
    conv = DocumentConverter()
    run = lambda f: conv.convert(f).document.export_to_markdown()
best = {}
for k in range(passes):
    for f in files:
        t = time.perf_counter()
        try:
            md, err = run(f), ""
        except Exception as e:
            md, err = None, f"{type(e).__name__}: {e}"[:200]
        seconds = time.perf_counter() - t
        if f not in best:
            best[f] = {"file": f, "md": md, "error": err, "seconds": seconds}
        best[f]["seconds"] = min(best[f]["seconds"], seconds)
for rec in best.values():
    print(json.dumps(rec))
'''


def ours(files: list[Path], passes: int = 1) -> tuple[dict[str, dict], dict[str, list[str]]]:
    """Our Markdown of each file (its time: the best of ``passes`` passes over the corpus),
    and the passages each file's groundtruth leaves out on purpose (:func:`omitted`)."""
    from mineru_tui.convert import ConvertError, convert
    from mineru_tui.document import to_markdown

    out, passages = {}, {}
    for _ in range(passes):
        for f in files:
            t = time.perf_counter()
            try:
                doc = convert(f)
                md, err = to_markdown(doc, ""), ""
            except ConvertError as e:
                doc, md, err = None, None, e.reason
            seconds = time.perf_counter() - t
            if f.name in out:
                out[f.name]["seconds"] = min(out[f.name]["seconds"], seconds)
                continue
            out[f.name] = {"md": md, "error": err, "seconds": seconds}
            passages[f.name] = omitted(f, doc) if doc is not None else []
    return out, passages


def omitted(path: Path, doc) -> list[str]:
    """Real content of the file that the groundtruths leave out: the speaker notes of a
    presentation (each line) and the sheet names of a spreadsheet."""
    from mineru_tui.document import BlockType

    found = []
    if path.suffix in (".ods", ".xls"):
        found += [p.name for p in doc.pages if p.name]
    for block in doc.iter_blocks():
        if block.type == BlockType.NOTES:
            found += ["".join(s.content for s in line.spans) for line in block.lines]
    return found


def fair_scores(gt: Path, md: str | None, passages: list[str]) -> dict:
    """The same file scored under bench/odf_legacy_fair.py's rules (every tool alike):
    recall and precision of canonical words, precision without the omitted passages, and
    tables/headings counted the fair way (None where the groundtruth has none)."""
    text = gt.read_text(encoding="utf-8")
    if gt.suffix == ".md":
        gtw = md_words(canonical_tables(strip_labels(text)))
    else:
        gtw = groundtruth_words(str(gt))
    got = md_words(canonical_tables(strip_labels(md))) if md else []
    kept = without_passages(got, [words(p) for p in passages])
    out = {"recall": recall(gtw, got) if gtw else None,
           "precision": (recall(got, gtw) if got else 0.0) if gtw else None,
           "precision_kept": (recall(kept, gtw) if kept else 0.0) if gtw else None}
    if gt.suffix == ".md":
        for name, count in (("tables", real_tables), ("headings", headings)):
            expected = count(text)
            if expected:
                out[name] = min(count(md) if md else 0, expected) / expected
    return out


FAIR = ["recall", "precision", "precision_kept", "tables", "headings"]


def fair_table(by_kind: dict, tools: list[str]) -> list[str]:
    """The fair scores (bench/odf_legacy_fair.py) per format and tool, as Markdown lines."""
    lines = ["Fair scores (the same canonical form for every tool and the groundtruth; "
             "see bench/odf_legacy_fair.py):", "",
             "| format | tool | gt recall | gt precision | precision without notes, sheet "
             "names | tables | headings |", "|" + " --- |" * 7]
    for kind in KINDS:
        for tool in tools:
            recs = [r for r in by_kind.get((kind, tool), []) if r["fair"]]
            if not recs:
                continue
            cells = [kind[1:], tool] + [_mean([r["fair"].get(m) for r in recs]) for m in FAIR]
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def peer(tool: str, python: str, files: list[Path], passes: int = 1) -> dict[str, dict] | str:
    proc = subprocess.run([python, "-c", _PEER, tool, str(passes)] + [str(f) for f in files],
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
    ap.add_argument("--work", type=Path, help="cache peers' results here (re-run with --force)")
    ap.add_argument("--force", action="store_true", help="re-run peers even when cached")
    ap.add_argument("--passes", type=int, default=3,
                    help="passes over the corpus per tool; a file's time is its best pass")
    args = ap.parse_args()
    files = sorted(p for p in args.corpus.iterdir() if p.suffix in KINDS)
    mine, passages = ours(files, args.passes)
    results = {"ours": mine}
    skipped = {}
    for spec in args.peer_python:
        tool, python = spec.split("=", 1)
        cache = args.work / f"{tool}.json" if args.work else None
        if cache is not None and cache.exists() and not args.force:
            got = json.loads(cache.read_text())
        else:
            got = peer(tool, python, files, args.passes)
            if cache is not None and not isinstance(got, str):
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_text(json.dumps(got))
        if isinstance(got, str):
            skipped[tool] = got
        else:
            results[tool] = got
    rows = []
    by_kind: dict[tuple[str, str], list] = defaultdict(list)
    for f in files:
        gt = next((g for g in (args.corpus / "groundtruth" / f"{f.name}.md",
                               args.corpus / "groundtruth" / f"{f.name}.native") if g.exists()),
                  None)
        gtw = groundtruth_words(str(gt)) if gt else None
        gtc = counts(gt.read_text(encoding="utf-8")) if gt and gt.suffix == ".md" else None
        if gtc is not None:
            gtc["notes"] = _notes(gt.read_text(encoding="utf-8"))
        for tool, res in results.items():
            rec = res.get(f.name, {"md": None, "seconds": None})
            md = rec["md"] if rec.get("md") and rec["md"].strip() else None
            got = md_words(md) if md is not None else []
            c = counts(md) if md else {}
            if md:
                c["notes"] = _notes(md)
            struct = {}
            if gtc is not None:
                for m in STRUCT:
                    if gtc.get(m):
                        struct[m] = min(c.get(m, 0), gtc[m]) / gtc[m]
            by_kind[(f.suffix, tool)].append({
                "read": md is not None, "seconds": rec["seconds"],
                "recall": recall(gtw, got) if gtw else None,
                "precision": (recall(got, gtw) if got else 0.0) if gtw else None,
                "struct": struct,
                "fair": fair_scores(gt, md, passages.get(f.name, [])) if gt else {}})
            rows.append((f.name, tool, md is not None, rec["seconds"], rec.get("error", "")))
    tools = list(results)
    lines = ["| format | tool | read | gt recall | gt precision | " + " | ".join(STRUCT) +
             " | median ms |", "|" + " --- |" * (6 + len(STRUCT))]
    for kind in KINDS:
        for tool in tools:
            recs = by_kind.get((kind, tool), [])
            if not recs:
                continue
            cells = [kind[1:], tool, f"{sum(r['read'] for r in recs)}/{len(recs)}",
                     _mean([r["recall"] for r in recs]), _mean([r["precision"] for r in recs])]
            cells += [_mean([r["struct"][m] for r in recs if m in r["struct"]]) for m in STRUCT]
            ms = [1000 * r["seconds"] for r in recs if r["seconds"] is not None]
            cells.append(f"{statistics.median(ms):.1f}" if ms else "—")
            lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + fair_table(by_kind, tools) + [""]
    for tool in tools:
        secs = [r["seconds"] for r in results[tool].values() if r.get("seconds") is not None]
        lines.append(f"- {tool}: {len(files)} files in {sum(secs):.2f} s in one process "
                     f"(median {1000 * statistics.median(secs):.1f} ms a file; each file's "
                     f"best of {args.passes} passes)")
    for tool, why in skipped.items():
        lines.append(f"- {tool}: skipped ({why})")
    lines.append("")
    for tool in tools:  # what each tool did not read: ours by name, the peers by count
        failed = [(name, err) for name, t, ok, _, err in rows if t == tool and not ok]
        if tool == "ours":
            lines += [f"- ours refused {name}: {err[:120]}" if err else
                      f"- ours gave no content for {name} (with a warning saying so)"
                      for name, err in failed]
        elif failed:
            kinds = sorted({Path(name).suffix for name, _ in failed})
            lines.append(f"- {tool} did not read {len(failed)} files ({', '.join(kinds)})")
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
