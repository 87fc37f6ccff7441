"""Peak memory and time of ``mineru-tui parse`` on crafted Office bombs (issue 9).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/office_bombs.py
        [--work DIR] [--timeout S] [--only NAME ...] [--doc docs/office-bench.md]

Builds each bomb in a temporary folder (or ``--work``), then runs
``python -m mineru_tui parse FILE`` on it in a fresh process (stdout to /dev/null) and
reports the wall time, the child's peak RSS (``wait4``'s ``ru_maxrss``), the exit code and
the first line of stderr. The bombs stay under the zip limits of :mod:`mineru_tui.detect`
(members of at most 16 MiB need no ratio check, and 1 GiB declared in all), so only the
readers' parse budget (:data:`mineru_tui.office.package.PARSE_BUDGET`) stands in the way.

* ``docx-60-headers``: a 3 MB .docx whose body references 60 headers of 16 MiB of
  one-letter paragraphs each;
* ``docx-body-16m``: one 16 MiB body of one-letter paragraphs;
* ``xlsx-63-sheets``: 63 sheets of 16 MiB of numeric cells each;
* ``xlsx-1000x1000``: one sheet of 1000 x 1000 numbers (the cell cap);
* ``docx-altchunk-deep``: an altChunk HTML part with 100,000 nested ``<div>``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def _filled(head: str, unit: str, tail: str, size: int) -> bytes:
    """``head`` + ``unit`` repeated + ``tail``, just under ``size`` bytes."""
    n = (size - len(head) - len(tail) - 64) // len(unit)
    return (head + unit * n + tail).encode()


def _content_types(overrides: dict[str, str], defaults: dict[str, str] | None = None) -> str:
    defaults = {"rels": "application/vnd.openxmlformats-package.relationships+xml",
                "xml": "application/xml", **(defaults or {})}
    return ('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types">' + "".join(f'<Default Extension="{e}" ContentType="{t}"/>'
                                        for e, t in defaults.items())
            + "".join(f'<Override PartName="/{p}" ContentType="{t}"/>'
                      for p, t in overrides.items()) + "</Types>")


def _rels(items: list[tuple[str, str, str]]) -> str:
    return ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/'
            'package/2006/relationships">' + "".join(
                f'<Relationship Id="{i}" Type="{RT}{t}" Target="{g}"/>' for i, t, g in items)
            + "</Relationships>")


DOCX_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
XLSX_MAIN = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"


def docx(path: Path, body: str, parts: dict[str, bytes] | None = None,
         rels: list[tuple[str, str, str]] = (), defaults: dict[str, str] | None = None) -> Path:
    """A .docx with ``body`` (inner XML of w:body) and extra parts related from it."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types({"word/document.xml": DOCX_MAIN},
                                                         defaults))
        z.writestr("_rels/.rels", _rels([("rId1", "officeDocument", "word/document.xml")]))
        z.writestr("word/_rels/document.xml.rels", _rels(list(rels)))
        doc = f'<w:document xmlns:w="{W}" xmlns:r="{R}"><w:body>{body}</w:body></w:document>'
        z.writestr("word/document.xml", doc.encode() if isinstance(doc, str) else doc)
        for name, data in (parts or {}).items():
            z.writestr(name, data)
    return path


def xlsx(path: Path, sheets: list[bytes]) -> Path:
    """An .xlsx whose sheets are the given worksheet XML parts."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _content_types({"xl/workbook.xml": XLSX_MAIN}))
        z.writestr("_rels/.rels", _rels([("rId1", "officeDocument", "xl/workbook.xml")]))
        z.writestr("xl/_rels/workbook.xml.rels", _rels(
            [(f"rId{i + 1}", "worksheet", f"worksheets/sheet{i + 1}.xml")
             for i in range(len(sheets))]))
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{S}" xmlns:r="{R}"><sheets>' + "".join(
            f'<sheet name="S{i + 1}" sheetId="{i + 1}" r:id="rId{i + 1}"/>'
            for i in range(len(sheets))) + "</sheets></workbook>")
        for i, data in enumerate(sheets):
            z.writestr(f"xl/worksheets/sheet{i + 1}.xml", data)
    return path


def build(work: Path) -> dict[str, Path]:
    para = "<w:p><w:r><w:t>a</w:t></w:r></w:p>"
    header = _filled(f'<w:hdr xmlns:w="{W}">', para, "</w:hdr>", 16 * MIB)
    sect = "".join(f'<w:headerReference w:type="default" r:id="rIdH{i}"/>' for i in range(60))
    cells_row = "".join(f'<c r="{chr(65 + c)}{{r}}"><v>{c}</v></c>' for c in range(10))

    def sheet(size: int) -> bytes:
        head, tail = f'<worksheet xmlns="{S}"><sheetData>', "</sheetData></worksheet>"
        rows, n, r = [], len(head) + len(tail), 1
        while True:
            row = f'<row r="{r}">' + cells_row.replace("{r}", str(r)) + "</row>"
            if n + len(row) > size - 64:
                break
            rows.append(row)
            n += len(row)
            r += 1
        return (head + "".join(rows) + tail).encode()

    big_sheet = sheet(16 * MIB)
    grid = "".join(f'<row r="{r + 1}">' + "".join(f'<c r="{_col(c)}{r + 1}"><v>{r}</v></c>'
                                                   for c in range(1000)) + "</row>"
                   for r in range(1000))
    deep = "<html><body>" + "<div>" * 100_000 + "deep text" + "</div>" * 100_000 + "</body></html>"
    out = {
        "docx-60-headers": docx(
            work / "headers.docx", f"<w:p/><w:sectPr>{sect}</w:sectPr>",
            {f"word/header{i}.xml": header for i in range(60)},
            [(f"rIdH{i}", "header", f"header{i}.xml") for i in range(60)]),
        "docx-body-16m": docx(work / "body.docx", _filled("", para, "", 16 * MIB - 4096).decode()),
        "xlsx-63-sheets": xlsx(work / "sheets.xlsx", [big_sheet] * 63),
        "xlsx-1000x1000": xlsx(work / "grid.xlsx", [
            f'<worksheet xmlns="{S}"><sheetData>{grid}</sheetData></worksheet>'.encode()]),
        "docx-altchunk-deep": docx(
            work / "deep.docx", '<w:altChunk r:id="rIdA"/>', {"word/chunk.html": deep.encode()},
            [("rIdA", "aFChunk", "chunk.html")], {"html": "text/html"}),
    }
    return out


def _col(c: int) -> str:
    name = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        name = chr(65 + rem) + name
    return name


def run(path: Path, timeout: float) -> dict:
    """Parse ``path`` in a fresh process; wall time, peak RSS, exit code, stderr's first line."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["PYTHONPATH"] = str(ROOT)
    err = tempfile.TemporaryFile()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "mineru_tui", "parse", str(path)], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=err)
    deadline = t0 + timeout
    status = rusage = None
    while time.perf_counter() < deadline:
        pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.05)
    else:
        proc.kill()
        _, status, rusage = os.wait4(proc.pid, 0)
        status = None
    wall = time.perf_counter() - t0
    err.seek(0)
    first = err.read().decode("utf-8", "replace").strip().splitlines()
    return {"wall": wall, "rss_mib": rusage.ru_maxrss / 1024,
            "rc": "timeout" if status is None else os.waitstatus_to_exitcode(status),
            "stderr": first[0][:160] if first else ""}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, help="folder for the bombs (default: a temp folder)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--doc", type=Path, help="append the table to this Markdown file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mineru-tui-bombs-") as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        files = build(work)
        lines = ["| bomb | file size | wall s | peak RSS MiB | exit | stderr |",
                 "|---|---:|---:|---:|---|---|"]
        for name, path in files.items():
            if args.only and name not in args.only:
                continue
            r = run(path, args.timeout)
            r["stderr"] = r["stderr"].replace(str(work) + os.sep, "")  # no machine paths in docs
            row = (f"| {name} | {path.stat().st_size / MIB:.1f} MiB | {r['wall']:.1f} | "
                   f"{r['rss_mib']:.0f} | {r['rc']} | {r['stderr'].replace('|', '/')} |")
            print(row, flush=True)
            lines.append(row)
    if args.doc:
        shown_args = [_relative(a) for a in sys.argv[1:]]
        cmd = ("env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE .venv/bin/python bench/office_bombs.py "
               + " ".join(shlex.quote(a) for a in shown_args))
        block = "\n".join([
            "<!-- bombs:start -->", "## Crafted bombs (issue 9)", "",
            f"Written by `bench/office_bombs.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
            f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"mineru-tui commit {_commit()}, shared machine (run under the heavy-job lock).", "",
            "```sh", cmd, "```", "",
            "Each bomb is parsed by `python -m mineru_tui parse FILE` in a fresh process; wall "
            "time, peak RSS of that process, exit code and the first stderr line. What each bomb "
            "is: see the script's docstring; limits: docs/office-limits.md.", "",
            *lines, "<!-- bombs:end -->"])
        old = args.doc.read_text(encoding="utf-8") if args.doc.exists() else ""
        start, end = "<!-- bombs:start -->", "<!-- bombs:end -->"
        if start in old and end in old:
            old = old[:old.index(start)] + block + old[old.index(end) + len(end):]
        else:
            old = old.rstrip("\n") + "\n\n" + block + "\n"
        args.doc.write_text(old, encoding="utf-8")


def _relative(arg: str) -> str:
    """A path argument inside the repository, relative to it (the command is run from a clone)."""
    try:
        return str(Path(arg).resolve().relative_to(ROOT))
    except ValueError:
        return arg


def _commit() -> str:
    r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True, check=False)
    return r.stdout.strip() or "?"

if __name__ == "__main__":
    main()
