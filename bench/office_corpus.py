"""Assemble the wider Office corpus for the quality benchmark (not committed data).

Copies real .docx/.pptx/.xlsx files (and their origin groundtruth, when the origin
project ships one) out of bare git clones of public test suites into a folder outside
the repo, and writes ``SOURCES.tsv`` there. The committed corpus ``tests/corpus/office/``
is copied in too, so the wide corpus is a superset.

    python bench/office_corpus.py [--mirror DIR] [--out DIR] [--clone]

``--mirror`` holds one bare clone per origin as ``OWNER+NAME/repo`` (default: a folder in
the system temp folder); ``--clone`` makes the missing ones with
``git clone --bare https://github.com/OWNER/NAME DIR/OWNER+NAME/repo``. ``--out`` defaults to
``mineru-tui-office-corpus`` in the system temp folder, where ``bench/office_quality.py``
looks by default. The files are taken at each clone's HEAD (its commit is recorded).
"""
from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import tempfile
from pathlib import Path

MAX_BYTES = 2_000_000
TMP = Path(tempfile.gettempdir())
DEFAULT_MIRROR = TMP / "mineru-tui-mirror"
DEFAULT_OUT = TMP / "mineru-tui-office-corpus"

# repo dir under the mirror, origin, license, [(path, groundtruth path or "", gt kind)]
DOCLING_GT = "docling-regression-md"
PANDOC_GT = "pandoc-native-ast"
SELECTION: list[tuple[str, str, str, list[tuple[str, str, str]]]] = [
    ("docling-project+docling", "github:docling-project/docling", "MIT", [
        (f"tests/data/docx/sources/{n}.docx", f"tests/data/docx/groundtruth/{n}.docx.md", DOCLING_GT)
        for n in ["Strict", "docx_checkboxes", "docx_code_blocks", "docx_comments", "docx_grouped_images",
                  "docx_lists", "docx_rich_cells", "docx_vml_images", "drawingml", "list_after_num_headers",
                  "lorem_ipsum", "omml_frac_superscript", "omml_func_log", "omml_multi_equation_paragraph",
                  "omml_text_escapes_in_math", "table_with_equations", "tablecell", "textbox",
                  "unit_test_formatting", "unit_test_headers_numbered", "word_image_anchors"]
    ] + [
        (f"tests/data/pptx/sources/{n}.pptx", f"tests/data/pptx/groundtruth/{n}.pptx.md", DOCLING_GT)
        for n in ["powerpoint_bad_text", "powerpoint_comments", "powerpoint_issue_2663",
                  "powerpoint_malformed_pictures", "powerpoint_unrecognized_shape", "powerpoint_with_image",
                  "pptx_chart"]
    ] + [
        (f"tests/data/xlsx/sources/{n}", f"tests/data/xlsx/groundtruth/{n}.md", DOCLING_GT)
        for n in ["xlsx_02_sample_sales_data.xlsm", "xlsx_03_chartsheet.xlsx", "xlsx_04_inflated.xlsx",
                  "xlsx_05_table_with_title.xlsx", "xlsx_06_edge_cases_.xlsx", "xlsx_07_gap_tolerance_.xlsx",
                  "xlsx_08_one_cell_anchor.xlsx", "xlsx_09_section_label_header.xlsx", "xlsx_comments.xlsx"]
    ]),
    ("jgm+pandoc", "github:jgm/pandoc", "GPL-2.0-or-later", [
        (f"test/docx/{n}.docx", f"test/docx/{gt}.native", PANDOC_GT)
        for n, gt in [("links", "links"), ("instrText_hyperlink", "instrText_hyperlink"),
                      ("nested_instrText", "nested_instrText"), ("tables", "tables"),
                      ("table_header_rowspan", "table_header_rowspan"),
                      ("table_with_list_cell", "table_with_list_cell"),
                      ("track_changes_insertion", "track_changes_insertion_accept"),
                      ("track_changes_deletion", "track_changes_deletion_accept"),
                      ("comments", "comments"), ("headers", "headers"), ("inline_images", "inline_images"),
                      ("image_vml", "image_vml"), ("textbox_image", "textbox_image"),
                      ("lists_level_override", "lists_level_override"), ("i18n_blocks", "i18n_blocks"),
                      ("sdt_elements", "sdt_elements"), ("block_quotes", "block_quotes")]
    ] + [
        (f"test/pptx/{n}/output.pptx", f"test/pptx/{n}/input.native", "pandoc-source-ast")
        for n in ["lists", "list-level", "inline-formatting", "images", "comparison/both-columns",
                  "blanks/just-speaker-notes"]
    ]),
    ("Unstructured-IO+unstructured", "github:Unstructured-IO/unstructured", "Apache-2.0", [
        ("example-docs/fake.docx",
         "test_unstructured_ingest/expected-structured-output-markdown/google-drive/fake.docx.md",
         "unstructured-expected-md"),
        ("example-docs/science-exploration-1p.pptx",
         "test_unstructured_ingest/expected-structured-output-markdown/box/science-exploration-1p.pptx.md",
         "unstructured-expected-md"),
    ] + [(f"example-docs/{n}", "", "") for n in [
        "docx-tables.docx", "hlink-meta.docx", "example-list-items-multiple.docx", "contains-pictures.docx",
        "tables-with-incomplete-rows.docx", "fake-power-point-table.pptx", "group-shapes-nested.pptx",
        "sample-presentation.pptx", "vodafone.xlsx", "emoji.xlsx", "2023-half-year-analyses-by-segment.xlsx",
        "xlsx-subtable-cases.xlsx"]]),
    ("tafia+calamine", "github:tafia/calamine", "MIT", [
        (f"tests/{n}", "", "") for n in ["hyperlinks.xlsx", "merged_range.xlsx", "date.xlsx", "pivots.xlsx",
                                          "table-multiple.xlsx", "picture.xlsx"]]),
    ("scanny+python-pptx", "github:scanny/python-pptx", "MIT", [
        (f"features/steps/test_files/{n}", "", "") for n in ["tbl-cell.pptx", "shp-groupshape.pptx",
                                                              "prs-notes.pptx", "txt-text-frame.pptx"]]),
    ("python-openxml+python-docx", "github:python-openxml/python-docx", "MIT", [
        (f"features/steps/test_files/{n}", "", "") for n in ["tbl-having-tables.docx", "par-hyperlinks.docx",
                                                              "blk-paras-and-tables.docx"]]),
    ("microsoft+markitdown", "github:microsoft/markitdown", "MIT", [
        (f"packages/markitdown/tests/test_files/{n}", "", "") for n in [
            "equations.docx", "rlink.docx", "test.docx", "test_with_comment.docx", "test.pptx", "test.xlsx"]]),
    ("opendatalab+MinerU", "github:opendatalab/MinerU", "Apache-2.0 (MinerU Open Source License)", [
        (f"demo/office_docs/{n}", "", "") for n in ["docx_01.docx", "pptx_01.pptx", "xlsx_01.xlsx"]]),
    ("plutext+docx4j", "github:plutext/docx4j", "Apache-2.0", [
        (n, "", "") for n in [
            "docx4j-core-tests/src/test/resources/OpenDoPE/hyperlinks.docx",
            "docx4j-samples-docx4j/sample-docs/hyperlinks-internal.docx",
            "docx4j-core-tests/src/test/resources/multilingual/arabic/arabic_numbering.docx",
            "docx4j-samples-docx4j/sample-docs/sample-docx.docx",
            "docx4j-export-fo-tests/src/test/resources/tables/tblHeaderTestOne.docx"]]),
    ("mwilliamson+python-mammoth", "github:mwilliamson/python-mammoth", "BSD-2-Clause", [
        (f"tests/test-data/{n}", "", "") for n in ["tables.docx", "footnote-hyperlink.docx", "simple-list.docx",
                                                    "endnotes.docx"]]),
]


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--clone", action="store_true", help="git clone --bare the missing origins")
    ap.add_argument("--base", type=Path, default=Path(__file__).resolve().parents[1] / "tests/corpus/office")
    args = ap.parse_args()
    out: Path = args.out
    (out / "groundtruth").mkdir(parents=True, exist_ok=True)
    rows = []
    # 1. the committed corpus, with its own SOURCES.tsv rows
    with open(args.base / "SOURCES.tsv", newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            shutil.copy2(args.base / r["file"], out / r["file"])
            if r["groundtruth"]:
                shutil.copy2(args.base / r["groundtruth"], out / r["groundtruth"])
            rows.append({"file": r["file"], "origin": r["origin"], "path_in_origin": r["path_in_origin"],
                         "origin_commit": r["origin_commit"], "license": r["license"], "bytes": r["bytes"],
                         "groundtruth": r["groundtruth"], "groundtruth_path_in_origin": r["groundtruth_path_in_origin"],
                         "groundtruth_kind": r["groundtruth_kind"], "from": "tests/corpus/office"})
    have = {r["file"] for r in rows}
    # 2. more files from the snapshots
    for repo, origin, lic, items in SELECTION:
        git_dir = args.mirror / repo / "repo"
        if not git_dir.exists():
            url = "https://github.com/" + repo.replace("+", "/", 1)
            if not args.clone:
                raise SystemExit(f"missing {git_dir}: run with --clone, or "
                                 f"git clone --bare {url} {git_dir}")
            subprocess.run(["git", "clone", "--bare", "--quiet", url, str(git_dir)], check=True)
        commit = _git(git_dir, "rev-parse", "HEAD").decode().strip()
        prefix = repo.split("+")[1].replace("python-", "python").replace("-project", "").lower()
        prefix = {"pythonopenxml": "pythondocx", "markitdown": "markitdown", "mineru": "mineru", "docx4j": "docx4j", "pythonmammoth": "mammoth", "unstructured": "unstructured",
                  "pythonpptx": "pythonpptx"}.get(prefix, prefix)
        for path, gt_path, gt_kind in items:
            stem = path.split("/")[-1]
            if stem == "output.pptx":  # pandoc pptx tests: name by test folder
                stem = path.split("/test/pptx/")[-1] if "/test/pptx/" in path else path[len("test/pptx/"):]
                stem = stem.rsplit("/output.pptx", 1)[0].replace("/", "_") + ".pptx"
            name = f"{prefix}__{stem}"
            if name in have:
                continue
            data = _git(git_dir, "show", f"{commit}:{path}")
            if len(data) > MAX_BYTES:
                print(f"skip (size) {origin} {path}")
                continue
            (out / name).write_bytes(data)
            gt_rel = ""
            if gt_path:
                gt_data = _git(git_dir, "show", f"{commit}:{gt_path}")
                ext = ".native" if gt_path.endswith(".native") else ".md"
                gt_rel = f"groundtruth/{name}{ext}"
                (out / gt_rel).write_bytes(gt_data)
            rows.append({"file": name, "origin": origin, "path_in_origin": path, "origin_commit": commit,
                         "license": lic, "bytes": str(len(data)), "groundtruth": gt_rel,
                         "groundtruth_path_in_origin": gt_path, "groundtruth_kind": gt_kind if gt_path else "",
                         "from": "snapshot"})
            have.add(name)
    with open(out / "SOURCES.tsv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} files in {out}")


if __name__ == "__main__":
    main()
