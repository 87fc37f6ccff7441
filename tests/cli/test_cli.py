"""The ``mineru-tui`` command: streams, exit codes, output layout, batches, bad inputs.

Most tests replace the Office readers with a tiny fake (so they test the CLI, not the
readers); tests/office/test_corpus.py runs the real readers through the same path.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mineru_tui.office
from mineru_tui import __version__
from mineru_tui.document import (to_content_list)
from mineru_tui.errors import InputError
from tests.cli_fixtures import (CT_XLSX, PNG, ROOT, cfb_bytes, cli, error_lines,
                                fake_doc, ooxml_bytes, zip_with_declared_size)

# ---------------------------------------------------------------------------------------
# stdout modes


def test_version_and_help():
    r = cli("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"mineru-tui {__version__}"
    r = cli("--help")
    assert r.exit_code == 0 and "parse" in r.stdout
    r = cli("parse", "--help")
    assert r.exit_code == 0
    for word in ("-o, --output", "--format", "Exit codes", "_content_list.json", "-q"):
        assert word in r.stdout


def test_serve_help_describes_its_own_default_engine():
    r = cli("serve", "--help")
    assert r.exit_code == 0
    text = " ".join(r.stdout.split())
    assert "[default: numpy]" in text and "numpy (the reference, the default)" in text
    assert "auto: Core AI" not in text  # parse's auto pick is not serve's default


def test_watch_help_names_every_format_and_promises_no_missing_flag():
    """`watch` reads every kind `parse` reads (the help named only .docx .pptx .xlsx), and it
    has no -v, so its --engine help does not send the user to one."""
    r = cli("watch", "--help")
    assert r.exit_code == 0
    text = " ".join(r.stdout.split())
    for name in ("OpenDocument", "RTF", ".doc", "HTML", "MHTML", "EPUB", "CSV", "--effort low"):
        assert name in text, name
    assert "-v says which" not in text and "--verbose" not in text


def test_bundle_help_names_all_three_targets():
    """`bundle build --target` takes coreml, coreai and openvino; the group's help and build's
    summary line named Core ML (and OpenVINO) only."""
    group = " ".join(cli("bundle", "--help").stdout.split())
    assert "Core ML" in group and "Core AI" in group and "OpenVINO" in group
    build = cli("bundle", "build", "--help").stdout
    summary = " ".join(build.split("\n\n")[1].split())  # the first paragraph after Usage
    assert "Core ML" in summary and "Core AI" in summary and "OpenVINO" in summary


def test_serve_without_the_model_says_how_to_get_it(tmp_path, monkeypatch):
    """`serve` with no model downloaded: parse's way forward in one line (it printed the
    hub's 330-character connection error and `hf download`)."""
    pytest.importorskip("uvicorn")
    import socket

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    monkeypatch.delenv("MINERU_TUI_MODEL", raising=False)
    with socket.socket() as s:  # a port free a moment ago: serve binds it before the model
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = cli("serve", "--port", str(port))
    assert r.exit_code == 1
    assert r.stderr.strip().splitlines() == [
        "error: needs the MinerU2.5 model (2.3 GB, not downloaded yet): run `mineru-tui model fetch` once"]


def test_model_fetch_under_hf_hub_offline_says_what_forbids_it(tmp_path, monkeypatch):
    """The README offers HF_HUB_OFFLINE=1 to forbid downloads; `model fetch` under it said
    "check the network" with the hub's message cut mid-word. It names the variable."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("MINERU_TUI_MODEL", raising=False)
    r = cli("model", "fetch", "-q")
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [
        "error: HF_HUB_OFFLINE is set, which forbids downloads: run `env -u HF_HUB_OFFLINE "
        "mineru-tui model fetch` once, or copy the model's folder here and pass --model DIR"]


def test_parse_help_lists_both_output_sets_under_o():
    """`-o` writes MinerU 3.x's set and MinerU 4's (README); the help's -o paragraph says so."""
    r = cli("parse", "--help")
    para = r.stdout[r.stdout.index("With -o DIR"):r.stdout.index("PDFs and images")]
    for name in ("<stem>_middle.json", "markdown.md", "middle_json.json",
                 "structured_content.json", "--mineru-format"):
        assert name in para, name


def test_parse_usage_shows_one_ellipsis_for_files():
    """The files argument is variadic: its usage reads `[FILE]...` once, not `[FILE...]...`."""
    r = cli("parse", "--help")
    assert "FILE" in r.stdout and "FILE...]..." not in r.stdout and "FILE......" not in r.stdout


def test_one_file_markdown_on_stdout_only(fake_reader, docs):
    r = cli("parse", docs["a.docx"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "# From a.docx\n\nA docx file.\n\n![picture](image_001.png)\n"
    assert r.stderr == ""  # not a terminal, no -v: nothing on stderr
    assert fake_reader == [("a.docx", "docx")]


def test_kind_passed_to_reader_comes_from_bytes(fake_reader, tmp_path):
    p = tmp_path / "really-a-workbook.docx"
    p.write_bytes(ooxml_bytes(CT_XLSX))
    assert cli("parse", p).exit_code == 0
    assert fake_reader == [("really-a-workbook.docx", "xlsx")]


def test_one_file_json_is_the_content_list(fake_reader, docs):
    r = cli("parse", "--format", "json", docs["b.pptx"])
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert data == to_content_list(fake_doc(docs["b.pptx"], "pptx"), image_prefix="")
    assert data[0] == {"type": "text", "text": "From b.pptx", "text_level": 1, "page_idx": 0}
    assert data[2]["img_path"] == "image_001.png"


def test_stdout_mode_writes_no_files(fake_reader, docs, tmp_path, monkeypatch):
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    assert cli("parse", docs["a.docx"], docs["b.pptx"]).exit_code == 0
    assert list(work.iterdir()) == []


def test_several_files_markdown_in_order_with_separators(fake_reader, docs):
    r = cli("parse", docs["c.xlsx"], docs["a.docx"])
    assert r.exit_code == 0
    marks = [l for l in r.stdout.splitlines() if l.startswith("<!-- mineru-tui: ")]
    assert marks == [f"<!-- mineru-tui: {docs['c.xlsx']} -->",
                     f"<!-- mineru-tui: {docs['a.docx']} -->"]
    assert r.stdout.index("From c.xlsx") < r.stdout.index("From a.docx")


def test_several_files_json_list_with_errors(fake_reader, docs, tmp_path):
    missing = tmp_path / "gone.docx"
    r = cli("parse", "-f", "json", docs["a.docx"], missing, docs["c.xlsx"])
    assert r.exit_code == 1
    data = json.loads(r.stdout)
    assert [e["file"] for e in data] == [str(docs["a.docx"]), str(missing), str(docs["c.xlsx"])]
    assert data[0]["content_list"][0]["text"] == "From a.docx"
    assert data[1] == {"file": str(missing), "error": "no such file"}
    assert error_lines(r.stderr) == [f"error: {missing}: no such file"]


def test_folder_argument_always_gives_the_batch_shape(fake_reader, docs, tmp_path):
    solo = tmp_path / "solo"
    solo.mkdir()
    (solo / "only.docx").write_bytes(docs["a.docx"].read_bytes())
    data = json.loads(cli("parse", "-f", "json", solo).stdout)
    assert isinstance(data, list) and data[0]["file"] == str(solo / "only.docx")


# ---------------------------------------------------------------------------------------
# -o DIR


def test_output_layout(fake_reader, docs, tmp_path):
    out = tmp_path / "out"
    r = cli("parse", docs["a.docx"], docs["b.pptx"], "-o", out)
    assert r.exit_code == 0, r.stderr
    assert r.stdout == ""
    assert sorted(p.name for p in out.iterdir()) == ["a", "b"]
    a = out / "a"
    assert sorted(p.name for p in a.iterdir()) == [".mineru-tui.json", "a.md",
                                                   "a_content_list.json", "a_middle.json",
                                                   "images", "markdown.md", "middle_json.json",
                                                   "structured_content.json"]  # 3.x and 4.x sets
    manifest = json.loads((a / ".mineru-tui.json").read_text())
    assert manifest["tool"] == "mineru-tui" and manifest["source"] == str(docs["a.docx"])
    assert manifest["files"] == ["a.md", "a_content_list.json", "a_middle.json",
                                 "images/image_001.png", "markdown.md", "middle_json.json",
                                 "structured_content.json"]
    assert (a / "images" / "image_001.png").read_bytes() == PNG
    md = (a / "a.md").read_text(encoding="utf-8")
    assert "![picture](images/image_001.png)" in md
    cl = json.loads((a / "a_content_list.json").read_text(encoding="utf-8"))
    assert cl[2] == {"type": "image", "img_path": "images/image_001.png",
                     "image_caption": [], "image_footnote": [], "page_idx": 0}
    mid = json.loads((a / "a_middle.json").read_text(encoding="utf-8"))
    assert mid["_backend"] == "office" and len(mid["pdf_info"]) == 1
    assert mid["pdf_info"][0]["para_blocks"][0]["type"] == "title"


def test_stem_collisions_do_not_overwrite(fake_reader, docs, tmp_path):
    for sub in ("one", "two"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "x.docx").write_bytes(docs["a.docx"].read_bytes())
    (tmp_path / "X.pptx").write_bytes(docs["b.pptx"].read_bytes())
    out = tmp_path / "out"
    r = cli("parse", tmp_path / "one" / "x.docx", tmp_path / "two" / "x.docx",
            tmp_path / "X.pptx", "-o", out)
    assert r.exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["X_3", "x", "x_2"]
    assert (out / "x_2" / "x_2.md").exists() and (out / "X_3" / "X_3_middle.json").exists()
    assert "(the name 'x' is taken in this batch)" in r.stderr
    # -q silences the note
    r = cli("parse", "-q", tmp_path / "one" / "x.docx", tmp_path / "two" / "x.docx", "-o", out)
    assert r.exit_code == 0 and r.stderr == ""


def test_rerun_replaces_our_folder_and_leaves_no_temp(fake_reader, docs, tmp_path):
    out = tmp_path / "out"
    assert cli("parse", docs["a.docx"], "-o", out).exit_code == 0
    (out / "a" / "images" / "image_001.png").write_bytes(b"edited")  # ours: replaced
    (out / "a" / "images" / "image_009.png").unlink(missing_ok=True)
    r = cli("parse", docs["a.docx"], "-o", out)
    assert r.exit_code == 0 and r.stderr == ""
    assert (out / "a" / "images" / "image_001.png").read_bytes() == PNG
    assert sorted(p.name for p in out.iterdir()) == ["a"]  # no .partial / .old folders


def test_interrupt_while_writing_leaves_no_half_output(fake_reader, docs, tmp_path,
                                                      monkeypatch):
    out = tmp_path / "out"
    assert cli("parse", docs["a.docx"], "-o", out).exit_code == 0
    before = (out / "a" / "a.md").read_text()
    import mineru_tui.output as output

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(output, "markdown_chunks", boom)  # mid-set: after the images are written
    r = cli("parse", docs["a.docx"], docs["b.pptx"], "-o", out)
    assert r.exit_code == 130
    assert "interrupted: 0 of 2 files done" in r.stderr and "Traceback" not in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a"]
    assert (out / "a" / "a.md").read_text() == before  # the earlier result is intact


def test_output_that_is_a_file_is_one_usage_error(fake_reader, docs, tmp_path):
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    for out in (blocker, blocker / "sub"):
        r = cli("parse", docs["a.docx"], docs["b.pptx"], docs["c.xlsx"], "-o", out)
        assert r.exit_code == 2
        assert r.stderr.count("file-not-dir") == 1 + (out != blocker)  # one message
        assert "is a file, not a folder" in r.stderr or "inside" in r.stderr
        assert fake_reader == [] and blocker.read_text() == "x"


def test_unwritable_output_is_a_failure_line(fake_reader, docs, tmp_path, monkeypatch):
    import mineru_tui.output as output

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(output.tempfile, "mkdtemp", refuse)  # root ignores chmod
    r = cli("parse", docs["a.docx"], docs["b.pptx"], "-o", tmp_path / "out")
    assert r.exit_code == 1
    assert error_lines(r.stderr) == [
        f"error: {docs[n]}: cannot write its output in {tmp_path / 'out'}: permission denied"
        for n in ("a.docx", "b.pptx")]


# ---------------------------------------------------------------------------------------
# folders


def test_folder_walk_sorted_recursive_and_quiet_skips(fake_reader, docs, tmp_path):
    root = tmp_path / "tree"
    (root / "b" / "deep").mkdir(parents=True)
    (root / ".hidden").mkdir()
    d = docs["a.docx"].read_bytes()
    (root / "z.docx").write_bytes(d)
    (root / "b" / "deep" / "m.xlsx").write_bytes(docs["c.xlsx"].read_bytes())
    (root / "b" / "a.pptx").write_bytes(docs["b.pptx"].read_bytes())
    (root / "b" / "named-wrong.txt").write_bytes(d)  # a docx by its bytes
    (root / ".hidden" / "h.docx").write_bytes(d)
    (root / ".dot.docx").write_bytes(d)
    (root / "~$z.docx").write_bytes(b"\x05owner")  # Word lock file
    (root / "notes.txt").write_text("plain text")
    (root / "data.zip").write_bytes(b"PK\x03\x04 broken")  # not named as a document
    r = cli("parse", "-v", root, "-o", tmp_path / "out")
    assert r.exit_code == 0, r.stderr
    assert [n for n, _ in fake_reader] == ["a.pptx", "m.xlsx", "named-wrong.txt", "z.docx"]
    assert error_lines(r.stderr) == []
    # PDFs and images in a folder are read too (these two are broken: one error line each)
    (root / "scan.png").write_bytes(PNG)
    (root / "paper.pdf").write_bytes(b"%PDF-1.7\n")
    r = cli("parse", "-q", root, "-o", tmp_path / "out")
    assert r.exit_code == 1
    assert [e.split(": ")[1] for e in error_lines(r.stderr)] == [str(root / "paper.pdf"),
                                                                 str(root / "scan.png")]


def test_folder_reports_broken_documents(fake_reader, docs, tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "good.docx").write_bytes(docs["a.docx"].read_bytes())
    (root / "broken.docx").write_bytes(docs["a.docx"].read_bytes()[:100])
    (root / "old.bin").write_bytes(cfb_bytes(["WordDocument"]))  # legacy: read, any name
    (root / "locked.bin").write_bytes(cfb_bytes(["EncryptionInfo", "EncryptedPackage"]))
    r = cli("parse", root, "-o", tmp_path / "out")
    assert r.exit_code == 1
    errs = error_lines(r.stderr)
    assert errs[0].startswith(f"error: {root / 'broken.docx'}: corrupt or truncated zip")
    assert errs[1].startswith(f"error: {root / 'locked.bin'}: password-protected")
    assert sorted(fake_reader) == [("good.docx", "docx"), ("old.bin", "doc")]


def test_output_folder_inside_input_folder_is_not_walked(fake_reader, docs, tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.docx").write_bytes(docs["a.docx"].read_bytes())
    for _ in range(2):
        r = cli("parse", root, "-o", root / "out")
        assert r.exit_code == 0
    assert "skipped" not in r.stderr  # out/a/images/image_001.png was not seen
    assert sorted(p.name for p in (root / "out").iterdir()) == ["a"]


def test_folder_with_nothing_supported(fake_reader, tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    (root / "readme.txt").write_text("hi")
    r = cli("parse", root)
    assert r.exit_code == 1
    [line] = error_lines(r.stderr)
    assert line.startswith(f"error: {root}: no documents found in this folder (supported: ")
    # every kind a folder walk picks up is named, the web formats too (they were left out)
    for name in (".docx", ".odt", ".rtf", ".doc", "PDF", "PNG", "HTML", "MHTML", "EPUB", "CSV/TSV"):
        assert name in line, name


def test_same_file_twice_is_parsed_once(fake_reader, docs):
    r = cli("parse", docs["a.docx"], docs["a.docx"].parent, docs["a.docx"])
    assert r.exit_code == 0
    assert [n for n, _ in fake_reader] == ["a.docx", "b.pptx", "c.xlsx"]


# ---------------------------------------------------------------------------------------
# bad inputs and failures


def bad_inputs(tmp_path: Path, docs) -> dict[str, tuple[Path, str]]:
    """name -> (file, the start of its one-line reason)."""
    good = docs["a.docx"].read_bytes()
    cases = {
        "missing": (None, "no such file"),
        "empty": (b"", "empty file"),
        "unknown": (b"just some text\n", "unknown file type"),
        "truncated": (good[: len(good) // 2], "corrupt or truncated zip"),
        "corrupt": (b"PK\x03\x04" + b"\xff" * 300, "corrupt or truncated zip"),
        "encrypted": (cfb_bytes(["EncryptionInfo", "EncryptedPackage"]),
                      "password-protected (encrypted) Office file"),
        "not-office-ole": (cfb_bytes(["__substg1.0"]), "an OLE compound file that is not"),
        "bomb": (zip_with_declared_size("word/media/x.bin", 0xFFFF0000), "refused: zip"),
        "pdf": (b"%PDF-1.7\n", "the PDF is truncated"),  # opened by mineru_tui.pdf
        "png": (PNG, "cannot read the image"),  # a PNG signature without image data
    }
    out = {}
    for name, (data, reason) in cases.items():
        p = tmp_path / f"{name}.docx"
        if data is not None:
            p.write_bytes(data)
        out[name] = (p, reason)
    return out


def test_every_bad_input_gets_one_line_and_exit_1(fake_reader, docs, tmp_path):
    cases = bad_inputs(tmp_path, docs)
    for name, (path, reason) in cases.items():
        r = cli("parse", path)
        assert r.exit_code == 1, name
        assert r.stdout == "", name
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, (name, lines)
        assert lines[0].startswith(f"error: {path}: {reason}"), (name, lines[0])
    assert fake_reader == []  # none of them reached a reader


def test_batch_goes_on_and_names_every_failure_when_it_happens(fake_reader, docs, tmp_path):
    cases = bad_inputs(tmp_path, docs)
    args = [docs["a.docx"]] + [p for p, _ in cases.values()] + [docs["c.xlsx"]]
    r = cli("parse", "-v", *args, "-o", tmp_path / "out")
    assert r.exit_code == 1
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a", "c"]
    errs = error_lines(r.stderr)
    assert [e.split(": ")[1] for e in errs] == [str(p) for p, _ in cases.values()]
    tail = [l for l in r.stderr.strip().splitlines() if not l.startswith("  detail: ")]
    assert tail[-1] == f"done: 2 ok, {len(cases)} failed"
    # each failure is said when it happens (before the last file's ok), in input order
    last_ok = next(i for i, line in enumerate(tail) if f"{docs['c.xlsx']}: ok" in line)
    assert [line for line in tail[:last_ok] if line.startswith("error: ")] == errs
    assert "Traceback" not in r.stderr


def test_reader_crash_is_one_line_and_the_batch_continues(monkeypatch, docs):
    def read(path, kind):
        if kind == "pptx":
            raise KeyError("rId7")
        return fake_doc(path, kind)

    monkeypatch.setattr(mineru_tui.office, "read_office", read)
    r = cli("parse", docs["a.docx"], docs["b.pptx"], docs["c.xlsx"])
    assert r.exit_code == 1
    assert "From a.docx" in r.stdout and "From c.xlsx" in r.stdout
    [line] = error_lines(r.stderr)
    assert line.startswith(f"error: {docs['b.pptx']}: internal error in the pptx reader "
                           "(KeyError: 'rId7'); this is a bug")
    assert "report" in line and "Traceback" not in r.stderr
    r = cli("parse", "--debug", docs["b.pptx"])
    assert "Traceback (most recent call last)" in r.stderr and "KeyError" in r.stderr


@pytest.mark.parametrize("mode", [[], ["-f", "json"], ["-o", "OUT"]])
def test_renderer_or_writer_crash_is_one_line(monkeypatch, docs, tmp_path, mode):
    import mineru_tui.document as document
    import mineru_tui.output as output

    def read(path, kind):
        doc = fake_doc(path, kind)
        if kind == "pptx":
            doc.pages[0].para_blocks[0].level = "not a number"  # breaks "#" * level
            doc.images["../escape.png"] = b"x"  # the writer refuses such a name
        return doc

    def broken_cl(doc, image_prefix=""):
        if any(isinstance(b.level, str) for b in doc.iter_blocks()):
            raise TypeError("bad level")
        return document.to_content_list(doc, image_prefix)

    monkeypatch.setattr(mineru_tui.office, "read_office", read)
    monkeypatch.setattr(output, "to_content_list", broken_cl)
    args = [str(tmp_path / "out") if a == "OUT" else a for a in mode]
    r = cli("parse", *args, docs["a.docx"], docs["b.pptx"], docs["c.xlsx"])
    assert r.exit_code == 1
    [line] = error_lines(r.stderr)
    assert line.startswith(f"error: {docs['b.pptx']}: internal error in the ")
    assert "this is a bug" in line and "Traceback" not in r.stderr
    if mode and mode[0] == "-o":
        assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a", "c"]
    elif mode:
        assert [e.get("error", "")[:14] for e in json.loads(r.stdout)] == [
            "", "internal error", ""]
    else:
        assert "From a.docx" in r.stdout and "From c.xlsx" in r.stdout


def test_reader_input_error_and_corrupt_member_at_read_time(monkeypatch, docs):
    import zipfile

    def read(path, kind):
        if kind == "docx":
            raise InputError("the document part is missing")
        raise zipfile.BadZipFile("Bad CRC-32 for file 'xl/sharedStrings.xml'")

    monkeypatch.setattr(mineru_tui.office, "read_office", read)
    r = cli("parse", docs["a.docx"], docs["c.xlsx"])
    assert error_lines(r.stderr) == [
        f"error: {docs['a.docx']}: the document part is missing",
        f"error: {docs['c.xlsx']}: corrupt file: its zip data is damaged"]
    assert "Bad CRC" not in r.stderr  # the library's words only with -v
    r = cli("parse", "-v", docs["c.xlsx"])
    assert "  detail: BadZipFile: Bad CRC-32 for file 'xl/sharedStrings.xml'" in r.stderr


def test_verbose_progress_and_warnings(fake_reader, docs):
    r = cli("parse", "-v", docs["a.docx"], docs["b.pptx"])
    assert r.exit_code == 0
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"[1/2] {docs['a.docx']}: ok (1 page, 1 image not written")
    assert lines[1] == f"warning: {docs['a.docx']}: skipped an odd part"
    assert lines[2].startswith(f"[2/2] {docs['b.pptx']}: ok (1 slide")
    assert lines[-1] == "done: 2 ok, 0 failed"
    assert "<!--" not in r.stderr and "[1/2]" not in r.stdout


@pytest.mark.parametrize("args", [
    [], ["parse"], ["parse", "--bogus", "x"], ["parse", "-v", "-q", "x"],
    ["parse", "--format", "xml", "x"], ["frobnicate"],
])
def test_usage_errors_exit_2(args):
    r = cli(*args)
    assert r.exit_code == 2, (args, r.stdout, r.stderr)


# ---------------------------------------------------------------------------------------
# real processes: startup imports, signals


def run_py(code: str, *args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, **kw)


HEAVY = ("numpy", "openpyxl", "docx", "pptx", "lxml", "PIL", "textual", "rich", "pydantic",
         "mineru_tui.document", "mineru_tui.office")

_PROBE = """
import sys
from mineru_tui.cli import main
try:
    main()
except SystemExit:
    pass
heavy = %r
print("LOADED", sorted(m for m in sys.modules if m in heavy or m.split(".")[0] in heavy),
      file=sys.stderr)
"""


def loaded_after(*cli_args: str) -> list[str]:
    code = "import sys; sys.argv = ['mineru-tui'] + sys.argv[1:]\n" + _PROBE % (HEAVY,)
    r = run_py(code, *cli_args)
    line = [l for l in r.stderr.splitlines() if l.startswith("LOADED")][-1]
    return eval(line[len("LOADED "):])


def test_help_and_non_office_parse_load_nothing_heavy(tmp_path):
    assert loaded_after("parse", "--help") == []
    pdf = tmp_path / "p.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    assert loaded_after("parse", str(pdf)) == []


def test_office_parse_loads_no_ui_or_numeric_stack():
    loaded = loaded_after("parse", str(ROOT / "examples" / "sample.docx"))
    assert "lxml" in loaded  # the reader ran, on lxml alone
    assert not {"numpy", "textual", "rich", "pydantic", "openpyxl", "pptx", "docx"} & set(loaded)


@pytest.mark.parametrize("name", ["docling__example_01.html", "pandoc__img.epub",
                                  "markitdown__test_mskanji.csv", "markitdown__test_blog.mhtml"])
def test_web_format_parse_loads_no_ui_or_numeric_stack(name):
    loaded = loaded_after("parse", str(ROOT / "tests" / "corpus" / "web" / name))
    assert "lxml" in loaded or name.endswith(".csv")
    assert not {"numpy", "textual", "rich", "pydantic", "openpyxl", "pptx", "docx"} & set(loaded)


def test_console_script_module_runs(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mineru_tui", "parse", str(tmp_path / "no.docx")],
                       cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"error: {tmp_path / 'no.docx'}: no such file\n"


_SLOW = """
import sys, time
from pathlib import Path
sys.path[:0] = [%r, %r]
import mineru_tui.office
from tests.cli_fixtures import fake_doc
def slow(path, kind):
    if Path(path).name != "a.docx":
        print("READY", file=sys.stderr, flush=True)
        time.sleep(30)
    return fake_doc(path, kind)
mineru_tui.office.read_office = slow
sys.argv = ["mineru-tui"] + sys.argv[1:]
from mineru_tui.cli import main
main()
"""


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_cleanly(docs, tmp_path, sig, code):
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", _SLOW % (str(ROOT), str(ROOT / "tests")),
                             "parse",
                             str(docs["a.docx"]), str(docs["b.pptx"]), "-o", str(out)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 30
    line = ""
    while "READY" not in line and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            break
    assert "READY" in line, proc.stderr.read()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert "1 of 2 files done" in err
    assert sorted(p.name for p in out.iterdir()) == ["a"]  # complete, nothing half-made
    assert (out / "a" / "a.md").exists()


def test_light_coercion_leaves_other_parameters_to_typer(tmp_path):
    """Our Pydantic-free conversion applies to plain paths/enums/bools only."""
    import typer

    other = typer.Typer()

    @other.command()
    def show(p: Path = typer.Argument(..., exists=True), n: int = 3, name: str = "x"):
        print(type(p).__name__, n * 2, name)

    runner = CliRunner()
    assert runner.invoke(other, [str(tmp_path / "missing")]).exit_code == 2
    r = runner.invoke(other, [str(tmp_path), "--n", "5", "--name", "y"])
    assert r.exit_code == 0 and r.stdout.split()[1:] == ["10", "y"]
    assert runner.invoke(other, [str(tmp_path), "--n", "five"]).exit_code == 2


def test_unreadable_subfolder_is_a_failure_line(fake_reader, docs, tmp_path, monkeypatch):
    import mineru_tui.cli.batch as batch

    real_walk = os.walk

    def walk(top, onerror=None, **kw):
        for entry in real_walk(top, onerror=onerror, **kw):
            yield entry
        onerror(PermissionError(13, "Permission denied", str(Path(top) / "locked")))

    monkeypatch.setattr(batch.os, "walk", walk)
    r = cli("parse", docs["a.docx"].parent)
    assert r.exit_code == 1
    assert error_lines(r.stderr) == [
        f"error: {docs['a.docx'].parent / 'locked'}: cannot read the folder: permission denied"]
    assert len(fake_reader) == 3  # the readable files were still parsed


def test_pages_syntax_is_checked_before_reading_and_office_files_say_they_are_read_whole(tmp_path):
    docx = ROOT / "examples" / "sample.docx"
    r = cli("parse", docx, "--pages", "1-x")
    assert r.exit_code == 2 and "'1-x' is not a page number" in r.stderr and r.stdout == ""
    r = cli("parse", docx, docx, "--pages", "2")
    assert r.exit_code == 0 and "# Quarterly report" in r.stdout
    notes = [ln for ln in r.stderr.splitlines() if "--pages" in ln]
    assert notes == ["note: " + str(docx) + ": read whole: --pages selects PDF pages and TIFF frames only"]
    assert "--pages" not in cli("parse", docx, "--pages", "2", "-q").stderr
