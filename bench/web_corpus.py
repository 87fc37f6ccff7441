"""Assemble the web-format corpus (HTML, MHTML, EPUB, CSV/TSV) for the quality benchmark.

Copies real files (and the origin's groundtruth where it ships one) out of bare git
clones of public test suites into ``--out`` and writes ``SOURCES.tsv`` there:

* HTML: docling's ``tests/data/html`` (MIT, docling Markdown groundtruth), MarkItDown's
  test pages (MIT), pandoc's ``html-reader.html`` (GPL-2.0-or-later, native AST groundtruth);
* EPUB: pandoc's ``test/epub`` (native AST groundtruth for three), docling's and
  MarkItDown's test books, and IDPF ``epub3-samples`` (CC-BY-SA-3.0) and W3C ``epub-tests``
  (W3C test-suite licence / BSD-3-Clause) publications, which those repositories keep
  unpacked: they are packed here as their own pack scripts do (``mimetype`` first, stored);
* MHTML: no public test suite with a licence ships web archives, so four of the HTML pages
  above are packed into MHTML here the way browsers save them (quoted-printable HTML,
  base64 pictures with ``Content-Location``), with the stdlib :mod:`email` package;
* CSV/TSV: docling's ``tests/data/csv`` (groundtruth), MarkItDown's Shift-JIS CSV, pandoc's
  CSV tables, and a TSV made from docling's tab-separated one (renamed only).

    python bench/web_corpus.py [--mirror DIR] [--out DIR] [--clone]

``--mirror`` holds one bare clone per origin as ``OWNER+NAME/repo``; ``--clone`` makes the
missing ones. The files are taken at each clone's HEAD (its commit is recorded).
"""
from __future__ import annotations

import argparse
import base64
import csv
import io
import mimetypes
import posixpath
import quopri
import subprocess
import tempfile
import zipfile
from pathlib import Path

TMP = Path(tempfile.gettempdir())
DEFAULT_MIRROR = TMP / "mineru-tui-mirror"
DEFAULT_OUT = TMP / "mineru-tui-web-corpus"
DOCLING_GT, PANDOC_GT = "docling-regression-md", "pandoc-native-ast"

# (repo dir, origin, licence, [(path, groundtruth path or "", gt kind)])
FILES: list[tuple[str, str, str, list[tuple[str, str, str]]]] = [
    ("docling-project+docling", "github:docling-project/docling", "MIT", [
        (f"tests/data/html/sources/{n}.html", f"tests/data/html/groundtruth/{n}.html.md", DOCLING_GT)
        for n in ["example_01", "example_03", "example_05", "example_07", "example_08", "formatting",
                  "html_code_snippets", "html_description_list", "html_heading_in_p",
                  "html_nested_block_in_list_item", "html_rich_table_cells", "hyperlink_03",
                  "kvp_data_example", "table_05", "table_06", "wiki_duck"]
    ] + [
        (f"tests/data/csv/sources/{n}.csv", f"tests/data/csv/groundtruth/{n}.csv.md", DOCLING_GT)
        for n in ["csv-comma", "csv-comma-in-cell", "csv-inconsistent-header", "csv-pipe",
                  "csv-semicolon", "csv-single-column", "csv-tab", "csv-too-few-columns",
                  "csv-too-many-columns"]
    ] + [("tests/data/epub/sources/epub_purvis_poetry.epub",
          "tests/data/epub/groundtruth/epub_purvis_poetry.epub.md", DOCLING_GT)]),
    ("microsoft+markitdown", "github:microsoft/markitdown", "MIT", [
        (f"packages/markitdown/tests/test_files/{n}", "", "")
        for n in ["test_blog.html", "test_wikipedia.html", "test.epub", "test_mskanji.csv"]]),
    ("jgm+pandoc", "github:jgm/pandoc", "GPL-2.0-or-later", [
        ("test/html-reader.html", "test/html-reader.native", PANDOC_GT),
        ("test/epub/features.epub", "test/epub/features.native", PANDOC_GT),
        ("test/epub/formatting.epub", "test/epub/formatting.native", PANDOC_GT),
        ("test/epub/wasteland.epub", "test/epub/wasteland.native", PANDOC_GT),
    ] + [(f"test/epub/{n}.epub", "", "") for n in
         ["epub2_cover", "epub2_no_cover", "epub2_picture", "img", "img_no_cover"]]
      + [("pandoc-lua-engine/test/lua/module/sample.epub", "", ""),
         ("test/command/01.csv", "", ""), ("test/command/3533-rst-csv-tables.csv", "", "")]),
]
# unpacked publications: (repo dir, origin, licence, folder)
PACKED = [
    ("IDPF+epub3-samples", "github:IDPF/epub3-samples", "CC-BY-SA-3.0", f"30/{n}")
    for n in ["wasteland", "regime-anticancer-arabic", "hefty-water", "internallinks",
              "childrens-literature", "trees"]
] + [
    ("w3c+epub-tests", "github:w3c/epub-tests", "W3C-test-suite/BSD-3-Clause", f"tests/{n}")
    for n in ["cnt-mathml-support", "cnt-xhtml-support"]
]
# HTML pages packed as web archives: (repo dir, origin, licence, path)
MHTML = [
    ("docling-project+docling", "github:docling-project/docling", "MIT",
     "tests/data/html/sources/example_01.html"),
    ("docling-project+docling", "github:docling-project/docling", "MIT",
     "tests/data/html/sources/html_rich_table_cells.html"),
    ("docling-project+docling", "github:docling-project/docling", "MIT",
     "tests/data/html/sources/wiki_duck.html"),
    ("microsoft+markitdown", "github:microsoft/markitdown", "MIT",
     "packages/markitdown/tests/test_files/test_blog.html"),
]


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


_PREFIX = {"IDPF+epub3-samples": "idpf", "w3c+epub-tests": "w3c"}


def _prefix(repo_dir: str) -> str:
    return _PREFIX.get(repo_dir) or repo_dir.split("+", 1)[1].split("-")[0]


def pack_epub(repo: Path, folder: str) -> bytes:
    """An unpacked publication as an .epub: ``mimetype`` first and stored, the rest deflated."""
    names = [n for n in _git(repo, "ls-tree", "-r", "--name-only", "HEAD", folder).decode().splitlines()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), _git(repo, "show", f"HEAD:{folder}/mimetype").strip(),
                   compress_type=zipfile.ZIP_STORED)
        for n in names:
            rel = n[len(folder) + 1:]
            if rel == "mimetype":
                continue
            z.writestr(rel, _git(repo, "show", f"HEAD:{n}"), compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def pack_mhtml(repo: Path, path: str) -> bytes:
    """An HTML page and the pictures beside it in the origin as one MHTML message."""
    import re

    html = _git(repo, "show", f"HEAD:{path}")
    location = f"https://example.org/{posixpath.basename(path)}"
    boundary = "----MultipartBoundary--mineru-tui-corpus----"
    out = [f"From: <Saved by Blink>\r\nSnapshot-Content-Location: {location}\r\n"
           f"Subject: {posixpath.basename(path)}\r\nMIME-Version: 1.0\r\n"
           f"Content-Type: multipart/related;\r\n\ttype=\"text/html\";\r\n\tboundary=\"{boundary}\"\r\n\r\n"]
    out.append(f"--{boundary}\r\nContent-Type: text/html\r\nContent-ID: <frame-0@mhtml.blink>\r\n"
               f"Content-Transfer-Encoding: quoted-printable\r\nContent-Location: {location}\r\n\r\n")
    out.append(quopri.encodestring(html).decode("ascii").replace("\n", "\r\n") + "\r\n")
    folder = posixpath.dirname(path)
    for src in sorted(set(re.findall(rb"""<img[^>]+src=["']([^"':]+)["']""", html))):
        member = posixpath.normpath(posixpath.join(folder, src.decode()))
        try:
            data = _git(repo, "show", f"HEAD:{member}")
        except subprocess.CalledProcessError:
            continue
        ctype = mimetypes.guess_type(member)[0] or "application/octet-stream"
        body = base64.encodebytes(data).decode("ascii").replace("\n", "\r\n")
        out.append(f"--{boundary}\r\nContent-Type: {ctype}\r\nContent-Transfer-Encoding: base64\r\n"
                   f"Content-Location: https://example.org/{src.decode()}\r\n\r\n{body}\r\n")
    out.append(f"--{boundary}--\r\n")
    return "".join(out).encode("ascii")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--clone", action="store_true", help="git clone --bare the missing origins")
    args = ap.parse_args()
    (args.out / "groundtruth").mkdir(parents=True, exist_ok=True)
    rows = []

    def repo_of(repo_dir: str) -> Path:
        repo = args.mirror / repo_dir / "repo"
        if not repo.exists() and args.clone:
            owner, name = repo_dir.split("+", 1)
            subprocess.run(["git", "clone", "--bare", f"https://github.com/{owner}/{name}", str(repo)],
                           check=True)
        return repo

    for repo_dir, origin, licence, files in FILES:
        repo = repo_of(repo_dir)
        commit = _git(repo, "rev-parse", "HEAD").decode().strip()
        for path, gt, gt_kind in files:
            name = f"{_prefix(repo_dir)}__{posixpath.basename(path)}"
            data = _git(repo, "show", f"HEAD:{path}")
            (args.out / name).write_bytes(data)
            gt_name = ""
            if gt:
                gt_name = f"groundtruth/{name}{posixpath.splitext(gt)[1]}"
                (args.out / gt_name).write_bytes(_git(repo, "show", f"HEAD:{gt}"))
            rows.append([name, origin, path, commit, licence, len(data), "", gt_name, gt, gt_kind])
            if name == "docling__csv-tab.csv":  # the same bytes under a .tsv name
                (args.out / "docling__csv-tab.tsv").write_bytes(data)
                rows.append(["docling__csv-tab.tsv", origin, path, commit, licence, len(data),
                             "renamed .tsv", "", "", ""])
    for repo_dir, origin, licence, folder in PACKED:
        repo = repo_of(repo_dir)
        commit = _git(repo, "rev-parse", "HEAD").decode().strip()
        name = f"{_prefix(repo_dir)}__{posixpath.basename(folder)}.epub"
        data = pack_epub(repo, folder)
        (args.out / name).write_bytes(data)
        rows.append([name, origin, folder + "/", commit, licence, len(data), "packed from the folder",
                     "", "", ""])
    for repo_dir, origin, licence, path in MHTML:
        repo = repo_of(repo_dir)
        commit = _git(repo, "rev-parse", "HEAD").decode().strip()
        name = f"{_prefix(repo_dir)}__{posixpath.splitext(posixpath.basename(path))[0]}.mhtml"
        data = pack_mhtml(repo, path)
        (args.out / name).write_bytes(data)
        rows.append([name, origin, path, commit, licence, len(data), "packed as MHTML", "", "", ""])
    with open(args.out / "SOURCES.tsv", "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(["file", "origin", "path_in_origin", "origin_commit", "license", "bytes", "made",
                    "groundtruth", "groundtruth_path_in_origin", "groundtruth_kind"])
        w.writerows(rows)
    print(f"{len(rows)} files in {args.out}")


if __name__ == "__main__":
    main()
