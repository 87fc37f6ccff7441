"""CPU time of the text path per PDF page: reading the characters, classifying the page,
forming its lines (columns, rows, right-to-left order) and the whole model-free reading.

    .venv/bin/python bench/pdf_lines_cost.py --corpus DIR [--repeat 3] [--dense]
    .venv/bin/python bench/pdf_lines_cost.py --through-parse FILE.pdf [--pages 300]

Every PDF under DIR is read page by page; each step is timed with ``time.process_time``
(CPU of this process, so other jobs on the machine count less than in wall time), the best
of ``--repeat`` runs per page. Prints one row per file and the mean and worst page.
``--dense`` adds a synthetic worst case: a letter page of two columns of 80 lines in 7-pt
type (7,680 characters), written by the tests' PDF writer.

``--through-parse`` runs ``mineru-tui parse FILE --effort low -q -o TMP`` in this process
(the real path, collector pauses and all) and splits its CPU time by the line reader's
entry points, each timed with ``time.process_time`` where ``text_only`` calls it (an entry
called inside another is counted in the outer one only): forming the lines
(``page_lines``), tables (``take_tables``), headings, paragraphs and the rest of the
structure (``read``: the page's faces, rules and links). FILE ``corpus`` with ``--pages N``
reads ``tests/corpus/pdf`` joined to N pages (``testkit.pdf_fixtures.joined_pdf``, the PDF
of ``bench/effort_low.py``).

The line reader's loops run in C where ``pip install`` built ``mineru_tui/pdf/_lineloop.c``;
``MINERU_TUI_PURE_LINES=1`` before the command times its Python loops instead.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _page_cost(doc, index: int) -> dict[str, float]:
    from mineru_tui.pdf.chars import page_chars
    from mineru_tui.pdf.classify import classify_page
    from mineru_tui.pdf.lines import page_lines
    from mineru_tui.pdf.text_only import NeedsModelError, text_only_page

    page = doc.page(index)  # fresh: nothing cached
    t0 = time.process_time()
    chars = page_chars(page) or []
    t1 = time.process_time()
    classify_page(page, chars)
    t2 = time.process_time()
    page_lines([c for c in chars if c.visible])
    t3 = time.process_time()
    page.release()
    page = doc.page(index)
    t4 = time.process_time()
    try:
        text_only_page(page)
    except NeedsModelError:
        pass
    t5 = time.process_time()
    page.release()
    return {"chars": len(chars), "read": t1 - t0, "classify": t2 - t1, "lines": t3 - t2,
            "low page": t5 - t4}


def _dense_page() -> Path:
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from testkit import pdf_fixtures as F

    line = "Dense two-column text with many words per line f"
    items = [t for x in (40, 320) for t in F.text_lines([line] * 80, x=x, top=770, size=7, leading=9.4)]
    return F.write_pdf(Path(tempfile.mkdtemp()) / "synthetic-dense.pdf", [F.Page(items=items)])


def _through_parse(pdf: Path, pages: int | None) -> int:
    """CPU seconds of ``parse PDF --effort low -o`` and of the line reader's parts in it."""
    import functools
    import tempfile

    from mineru_tui.pdf import structure, text_only

    spent: dict[str, float] = {}
    inside = [False]  # an entry called from another one is the outer one's time

    def timed(owner, name: str) -> None:
        f = getattr(owner, name)

        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            if inside[0]:
                return f(*args, **kwargs)
            inside[0] = True
            t0 = time.process_time()
            try:
                return f(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - t0
                inside[0] = False
        setattr(owner, name, wrapper)

    for name in ("page_lines", "_paragraphs", "join_lines"):
        timed(text_only, name)
    for name in ("read", "take_tables", "heading_levels", "place_tables", "linked"):
        timed(structure.PageStructure, name)
    for name in ("split_type_sizes", "join_bare_bullets", "gather_lists"):
        timed(structure, name)
    with tempfile.TemporaryDirectory(prefix="lines-cost-") as tmp:
        if str(pdf) == "corpus":
            sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
            from testkit.pdf_fixtures import joined_pdf

            pdf = joined_pdf(Path(tmp) / "joined.pdf", pages or 300)
        from mineru_tui.__main__ import main as cli

        argv, sys.argv = sys.argv, ["mineru-tui", "parse", str(pdf), "--effort", "low", "-q",
                                    "-o", str(Path(tmp) / "out")]
        t0 = time.process_time()
        try:
            cli()
        except SystemExit:
            pass
        finally:
            sys.argv = argv
        total = time.process_time() - t0
    print(f"{pdf.name}: parse --effort low -o, CPU s of this process (load average "
          f"{__import__('os').getloadavg()[0]:.1f})")
    print("| part | CPU s |\n| --- | --- |")
    for name, s in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {s:.2f} |")
    print(f"| the line reader's parts together | {sum(spent.values()):.2f} |")
    print(f"| the whole parse | {total:.2f} |")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, help="folder of PDFs")
    ap.add_argument("--through-parse", type=Path, metavar="FILE",
                    help="split `parse FILE --effort low -o` by the line reader's parts "
                         "(FILE 'corpus': tests/corpus/pdf joined to --pages pages)")
    ap.add_argument("--pages", type=int, help="with --through-parse corpus: pages to join (300)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dense", action="store_true", help="add the synthetic dense page")
    args = ap.parse_args(argv)
    if args.through_parse is not None:
        return _through_parse(args.through_parse, args.pages)
    if args.corpus is None:
        ap.error("--corpus or --through-parse is needed")
    from mineru_tui.pdf import open_pdf

    files = sorted(args.corpus.rglob("*.pdf"))
    if args.dense:
        files.append(_dense_page())
    if not files:
        print(f"no PDF under {args.corpus}", file=sys.stderr)
        return 1
    keys = ["read", "classify", "lines", "low page"]
    rows, pages = [], []
    for path in files:
        with open_pdf(path) as doc:
            for i in range(len(doc)):
                runs = [_page_cost(doc, i) for _ in range(args.repeat)]
                best = {k: min(r[k] for r in runs) for k in keys}
                best["chars"] = runs[0]["chars"]
                pages.append(best)
                rows.append((path.name, i + 1, best))
    print(f"{'file':44s} {'page':>4s} {'chars':>6s} " + " ".join(f"{k:>9s}" for k in keys))
    for name, number, r in rows:
        print(f"{name[:44]:44s} {number:4d} {r['chars']:6d} " + " ".join(f"{r[k]:9.3f}" for k in keys))
    n = len(pages)
    print(f"{'mean of ' + str(n) + ' pages':44s} {'':4s} {sum(p['chars'] for p in pages) / n:6.0f} "
          + " ".join(f"{sum(p[k] for p in pages) / n:9.3f}" for k in keys))
    worst = max(pages, key=lambda p: p["low page"])
    print(f"{'worst page (low)':44s} {'':4s} {worst['chars']:6d} " + " ".join(f"{worst[k]:9.3f}" for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
