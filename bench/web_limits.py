"""What the web/RTF/CSV readers' bounds allow, measured: the worst crafted file for each
bound (built here), read by ``mineru-tui parse FILE -o OUT`` in a child; its CPU time and
peak RSS (``wait4``), and the ``content cut:`` line it printed.

    .venv/bin/python bench/web_limits.py [--out bench/results/web-limits-DATE.md]

CPU time rather than wall time: the machine is shared. Each file is what a bound of
``mineru_tui/office/limits.py`` stops (docs/office-limits.md prints the figures).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CONTAINER = ('<?xml version="1.0"?><container version="1.0" '
              'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
              '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
              '</rootfiles></container>')


def _epub(path: Path, chapters: dict[str, str], extra: dict[str, bytes] | None = None) -> None:
    items = "".join(f'<item id="c{i}" href="{c}" media-type="application/xhtml+xml"/>'
                    for i, c in enumerate(chapters))
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        z.writestr("META-INF/container.xml", _CONTAINER)
        z.writestr("OEBPS/content.opf", '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                   f'version="3.0"><metadata/><manifest>{items}</manifest><spine>{spine}</spine></package>')
        for name, body in chapters.items():
            z.writestr(f"OEBPS/{name}", '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">'
                       f"<head><title>c</title></head><body>{body}</body></html>")
        for name, data in (extra or {}).items():
            z.writestr(f"OEBPS/{name}", data)


def cases(d: Path) -> list[tuple[str, Path]]:
    """(what the file tests, its path)."""
    out = []
    p = d / "li.html"  # 4 MiB of <li>a: the densest markup per piece (MAX_PIECES)
    p.write_text("<html><body><ul>" + "<li>a" * ((4 << 20) // 5) + "</ul></body></html>")
    out.append(("HTML 4 MiB of `<li>a` (MAX_PIECES, MAX_ELEMENTS)", p))
    p = d / "p32.html"  # the HTML file limit, dense paragraphs
    p.write_text("<html><body>" + "<p>a</p>" * ((32 << 20) // 8 - 8) + "</body></html>")
    out.append(("HTML 32 MiB of `<p>a</p>` (MAX_HTML_BYTES)", p))
    p = d / "dense.epub"  # 20 chapters of 3 MiB each: trees one at a time
    _epub(p, {f"c{i}.xhtml": "<p>a</p>" * (3 << 17) for i in range(20)})
    out.append(("EPUB 20 chapters × 3 MiB of `<p>a</p>` (one tree at a time)", p))
    p = d / "spellings.epub"  # one 16 MiB picture under 400 spellings
    refs = "".join(f'<img src="{"./" * k}p.png"/>' for k in range(400))
    _epub(p, {"c.xhtml": refs}, {"p.png": b"\x89PNG\r\n\x1a\n" + os.urandom(16 << 20)})
    out.append(("EPUB one 16 MiB picture, 400 spellings (pictures by identity)", p))
    p = d / "par.rtf"  # a\par: a paragraph each (MAX_RTF_PARAGRAPHS)
    p.write_bytes(rb"{\rtf1 " + rb"a\par " * 2_000_000 + b"}")
    out.append(("RTF 12 MB of `a\\par` (MAX_RTF_PARAGRAPHS)", p))
    p = d / "cell.rtf"  # \cell without \row
    p.write_bytes(rb"{\rtf1\trowd\cellx100 " + rb"\intbl a\cell " * 2_000_000 + b"}")
    out.append(("RTF 28 MB of `\\cell` without `\\row`", p))
    p = d / "tokens.rtf"  # control words only (MAX_RTF_TOKENS)
    p.write_bytes(rb"{\rtf1 " + rb"\b" * 24_000_000 + b" x}")
    out.append(("RTF 48 MB of `\\b` (MAX_RTF_TOKENS)", p))
    p = d / "commas.csv"  # one line of commas (MAX_CSV_LINE)
    p.write_text("a,b\n" + "," * (150 << 20) + "\n")
    out.append(("CSV one 150 MB line of commas (MAX_CSV_LINE)", p))
    p = d / "fields.csv"  # many separators on short lines (MAX_CSV_SEPARATORS)
    p.write_text("a,b\n" + ("," * 1000 + "\n") * 20_000)
    out.append(("CSV 20 MB, 1,000 fields a line (MAX_CSV_SEPARATORS)", p))
    return out


def measure(path: Path, out: Path) -> tuple[float, int, int, str]:
    """(CPU seconds, peak RSS in MB, exit status, the first `content cut:` line), from GNU
    time (a small parent, so the peak is the child's own, not inherited from this script)."""
    report = out.with_suffix(".time")
    r = subprocess.run(["/usr/bin/time", "-o", str(report), "-f", "%U %S %M",
                        sys.executable, "-m", "mineru_tui", "parse", str(path), "-o", str(out)],
                       cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    user, system, rss_kb = report.read_text().split()[-3:]
    cut = next((line.split("content cut: ", 1)[1] for line in r.stderr.splitlines()
                if "content cut:" in line), "")
    return float(user) + float(system), int(rss_kb) // 1024, r.returncode, cut


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="also write the table here (Markdown)")
    args = ap.parse_args()
    rows = [f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
            "shared with other jobs (CPU time is reported, not wall time).", "",
            "| file | CPU s | peak RSS MB | exit | cut |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for what, path in cases(d):
            cpu, rss, code, cut = measure(path, d / "out")
            rows.append(f"| {what} | {cpu:.1f} | {rss} | {code} | {cut[:90]} |")
            print(rows[-1], flush=True)
            path.unlink()
    if args.out:
        args.out.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
