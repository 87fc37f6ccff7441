"""Run one peer converter over Office files, one file at a time, caching Markdown.

Runs inside the peer's own venv (never the project's), e.g.::

    .peer-venvs/docling/bin/python bench/office_peers.py --tool docling --out OUT FILE...
    .peer-venvs/mineru/bin/python bench/office_peers.py --tool mineru --out OUT FILE...

(the venvs are made as docs/office-quality.md says; bench/office_quality.py calls this).

Writes ``OUT/<tool>/<file>.md`` and one JSON line per file to ``OUT/<tool>/results.jsonl``
(``file``, ``ok``, ``error``, ``seconds``, ``version``). Files already in results.jsonl are
skipped unless ``--force``. Each file gets a wall-clock limit (``--timeout``).
"""
from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from office_truth import kind_of  # noqa: E402


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _markitdown():
    from markitdown import MarkItDown
    conv = MarkItDown(enable_plugins=False)
    return md.version("markitdown"), lambda path, kind: conv.convert(path).text_content


def _docling():
    from docling.document_converter import DocumentConverter
    conv = DocumentConverter()
    return md.version("docling"), lambda path, kind: conv.convert(path).document.export_to_markdown()


def _mineru():
    from mineru.backend.analyze import doc_analyze
    from mineru.render.markdown import render_markdown

    def run(path, kind):
        data = Path(path).read_bytes()
        middle, _ = doc_analyze(data, effort="flash", file_suffix=kind)
        return render_markdown(middle, asset_base_url="images")
    return f"{md.version('mineru')} (docvortex {md.version('docvortex')})", run


def _docling_rs():
    from docling_rs import DocumentConverter
    conv = DocumentConverter()
    return md.version("docling-rs"), lambda path, kind: conv.convert(path).document.export_to_markdown()


TOOLS = {"markitdown": _markitdown, "docling": _docling, "mineru": _mineru, "docling-rs": _docling_rs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True, choices=sorted(TOOLS))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--force", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    out = args.out / args.tool
    out.mkdir(parents=True, exist_ok=True)
    res_path = out / "results.jsonl"
    done = set()
    if res_path.exists() and not args.force:
        for line in res_path.read_text().splitlines():
            try:
                done.add(json.loads(line)["file"])
            except (ValueError, KeyError):
                pass
    todo = [f for f in args.files if os.path.basename(f) not in done]
    if not todo:
        return
    t0 = time.perf_counter()
    version, convert = TOOLS[args.tool]()
    print(f"{args.tool} {version}: loaded in {time.perf_counter() - t0:.1f}s; {len(todo)} files", file=sys.stderr)
    signal.signal(signal.SIGALRM, _alarm)
    with open(res_path, "a") as res:
        for f in todo:
            name = os.path.basename(f)
            kind = kind_of(f) or "docx"
            if kind not in ("docx", "pptx", "xlsx"):  # web formats: the name's own suffix
                kind = Path(f).suffix.lower().lstrip(".")
            rec = {"file": name, "ok": False, "error": "", "seconds": None, "version": version}
            t = time.perf_counter()
            signal.alarm(args.timeout)
            try:
                text = convert(f, kind)
                rec["ok"] = True
                (out / f"{name}.md").write_text(text or "", encoding="utf-8")
            except _Timeout:
                rec["error"] = f"timeout after {args.timeout}s"
            except BaseException as e:  # noqa: BLE001 — a peer's failure is a result
                if isinstance(e, KeyboardInterrupt):
                    raise
                rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                traceback.print_exc(limit=3)
            finally:
                signal.alarm(0)
            rec["seconds"] = round(time.perf_counter() - t, 4)
            res.write(json.dumps(rec) + "\n")
            res.flush()
            print(f"{args.tool} {name}: {'ok' if rec['ok'] else rec['error']} {rec['seconds']}s", file=sys.stderr)


if __name__ == "__main__":
    main()
