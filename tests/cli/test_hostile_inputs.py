"""``parse`` against hostile names and file-system oddities (issue 9): one line each, the
batch goes on, names printed escaped, messages as sentences."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import mineru_tui.office
from mineru_tui.console import line, shown
from mineru_tui.errors import InputError, cut_warning
from tests.cli_fixtures import CT_DOCX, ooxml_bytes
from tests.cli_fixtures import cli, error_lines, fake_doc


def test_symlink_loop_in_a_folder_is_one_line(fake_reader, docs, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    (d / "good.docx").write_bytes(docs["a.docx"].read_bytes())
    (d / "loop.docx").symlink_to("loop.docx")
    (d / "ring").symlink_to("ring")  # a loop not named as a document: skipped quietly
    for args in ([d], [d / "loop.docx", d / "good.docx"]):
        r = cli("parse", *args, "-o", tmp_path / "out")
        assert r.exit_code == 1 and "Traceback" not in r.stderr
        assert error_lines(r.stderr) == [
            f"error: {d / 'loop.docx'}: cannot read the file: a symbolic link loop"]
        assert (tmp_path / "out" / "good" / "good.md").exists()


def test_300_character_name_is_one_line(fake_reader, docs, tmp_path):
    long = tmp_path / ("n" * 300 + ".docx")
    r = cli("parse", long, docs["a.docx"])
    assert r.exit_code == 1 and "From a.docx" in r.stdout
    assert error_lines(r.stderr) == [f"error: {long}: cannot read the file: the name is too long"]


def test_unreadable_folder_and_file_are_one_line_each(fake_reader, docs, tmp_path,
                                                      monkeypatch):
    """Tests run as root, where chmod does not bite: the OS refusal is simulated."""
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x.docx").write_bytes(docs["a.docx"].read_bytes())
    real_stat, real_open, real_scandir = os.stat, os.open, os.scandir

    def deny(path, inside_only=True):  # like a folder of mode 000: no listing, no lookup
        p = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else ""
        if p.startswith(str(locked) + os.sep) or (not inside_only and p == str(locked)):
            raise PermissionError(errno.EACCES, "Permission denied", p)

    def stat(path, *a, **k):
        deny(path)
        return real_stat(path, *a, **k)

    def open_(path, *a, **k):
        deny(path)
        return real_open(path, *a, **k)

    def scandir(path="."):
        deny(path, inside_only=False)
        return real_scandir(path)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(os, "scandir", scandir)
    r = cli("parse", locked, locked / "x.docx", docs["c.xlsx"])
    assert r.exit_code == 1 and "From c.xlsx" in r.stdout and "Traceback" not in r.stderr
    assert error_lines(r.stderr) == [
        f"error: {locked}: cannot read the folder: permission denied",
        f"error: {locked / 'x.docx'}: cannot read the file: permission denied"]


def test_fifo_is_not_a_regular_file_and_never_blocks(fake_reader, docs, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    os.mkfifo(d / "pipe.docx")
    os.mkfifo(d / "quiet-pipe")  # not named as a document: skipped quietly
    (d / "good.docx").write_bytes(docs["a.docx"].read_bytes())
    r = cli("parse", d, d / "quiet-pipe")
    assert r.exit_code == 1 and "From good.docx" in r.stdout
    assert error_lines(r.stderr) == [
        f"error: {d / 'pipe.docx'}: not a regular file (a named pipe)",
        f"error: {d / 'quiet-pipe'}: not a regular file (a named pipe)"]


# ---------------------------------------------------------------------------------------
# names with control characters


FORGED = "x\nerror: fake.docx: forged line\x1b[2J\u202e.docx"


def test_control_characters_in_names_are_escaped_everywhere(fake_reader, docs, tmp_path):
    d = tmp_path / "d"
    d.mkdir()
    evil = d / FORGED
    evil.write_bytes(docs["a.docx"].read_bytes())
    broken = d / "bad\x1b]0;title\x07.docx"
    broken.write_bytes(b"PK\x03\x04 broken")
    shown_evil = shown(evil)
    assert "\n" not in shown_evil and "\x1b" not in shown_evil and "\u202e" not in shown_evil
    assert shown_evil.endswith("x\\nerror: fake.docx: forged line\\x1b[2J\\u202e.docx")

    r = cli("parse", "-v", d, "-o", tmp_path / "out")  # progress, notes, errors
    assert r.exit_code == 1
    for text in (r.stderr,):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    lines = r.stderr.splitlines()
    assert [l for l in lines if l.startswith("error: ")] == [
        f"error: {shown(broken)}: corrupt or truncated zip file: it has no zip directory"]
    assert not any(l.startswith("error: fake.docx") for l in lines)  # nothing forged
    assert any(l.startswith(f"[2/2] {shown_evil}: ok") for l in lines)
    assert any(l.startswith(f"note: {shown_evil}: written to ") for l in lines)

    r = cli("parse", evil, docs["a.docx"])  # the stdout header
    headers = [l for l in r.stdout.splitlines() if l.startswith("<!-- mineru-tui: ")]
    assert headers == [f"<!-- mineru-tui: {shown_evil} -->",
                       f"<!-- mineru-tui: {docs['a.docx']} -->"]

    r = cli("parse", "-f", "json", evil, broken)  # JSON keeps the real names
    assert [e["file"] for e in json.loads(r.stdout)] == [str(evil), str(broken)]


def test_name_that_is_not_utf8(fake_reader, docs, tmp_path):
    raw = os.fsencode(tmp_path) + b"/caf\xe9.docx"
    with open(raw, "wb") as f:
        f.write(docs["a.docx"].read_bytes())
    name = os.fsdecode(raw)
    r = cli("parse", "-v", name, tmp_path / "missing.docx", "-o", tmp_path / "out")
    assert r.exit_code == 1
    assert f"{tmp_path}/caf\\xe9.docx: ok" in r.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["caf_"]
    r = cli("parse", "-f", "json", name, tmp_path / "missing.docx")
    assert json.loads(r.stdout)[0]["file"] == name  # the same bytes back
    assert "\\udce9" in r.stdout


def test_console_helpers():
    assert shown("plain é 字") == "plain é 字"
    assert shown("a\tb\r\n\x00\x7f\x9b") == "a\\tb\\r\\n\\x00\\x7f\\x9b"
    assert shown("\u2028\u2066") == "\\u2028\\u2066"
    assert line("two\nlines\x1b[0m  here") == "two lines\\x1b[0m here"


# ---------------------------------------------------------------------------------------
# messages


def test_reader_error_names_the_file_once_and_reads_as_a_sentence(tmp_path):
    bad = tmp_path / "x.docx"
    bad.write_bytes(ooxml_bytes(CT_DOCX, main_xml=(
        b'<?xml version="1.0"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/'
        b'wordprocessingml/2006/main"><w:body>&xxe;</w:body></w:document>')))
    r = cli("parse", bad)
    assert r.exit_code == 1
    assert r.stderr == f"error: {bad}: not a readable Word document: its XML is malformed\n"
    r = cli("parse", "-v", bad)
    [detail] = [l for l in r.stderr.splitlines() if l.startswith("  detail: ")]
    assert "xxe" in detail  # the parser's own words, for those who ask


def test_reader_message_variants(monkeypatch, docs):
    def read(path, kind):
        name = Path(path).name
        if kind == "docx":
            raise InputError(f"{name}: not a PowerPoint presentation (its main part is foo)")
        raise InputError(f"{name}: the workbook is damaged", detail="KeyError: 'xl/x.xml'")

    monkeypatch.setattr(mineru_tui.office, "read_office", read)
    r = cli("parse", "-v", docs["a.docx"], docs["c.xlsx"])
    assert error_lines(r.stderr) == [
        f"error: {docs['a.docx']}: not a PowerPoint presentation (its main part is foo)",
        f"error: {docs['c.xlsx']}: the workbook is damaged"]
    assert "  detail: KeyError: 'xl/x.xml'" in r.stderr


def test_warnings_are_one_line_and_cut_content_is_always_reported(monkeypatch, docs):
    def read(path, kind):
        doc = fake_doc(path, kind)
        doc.warnings[:] = ["odd part\nsecond line\x1b[1m",
                           cut_warning("sheet 'Big': kept the first 100000 of 1000000 cells")]
        return doc

    monkeypatch.setattr(mineru_tui.office, "read_office", read)
    r = cli("parse", docs["c.xlsx"])  # no -v: only the cut is reported
    assert r.exit_code == 0
    assert r.stderr == (f"warning: {docs['c.xlsx']}: content cut: sheet 'Big': kept the "
                        "first 100000 of 1000000 cells\n")
    r = cli("parse", "-v", docs["c.xlsx"])
    warnings = [l for l in r.stderr.splitlines() if l.startswith("warning: ")]
    assert warnings[0] == f"warning: {docs['c.xlsx']}: odd part second line\\x1b[1m"
    assert len(warnings) == 2
    assert cli("parse", "-q", docs["c.xlsx"]).stderr == ""


def test_page_progress_line_and_watch_lines_escape_names():
    import io

    from mineru_tui import events as je
    from mineru_tui.cli.progress import ProgressLine
    from mineru_tui.watch.plain import describe

    line = ProgressLine(io.StringIO())
    line(je.FileStarted(f"/d/{FORGED}", "pdf"))
    assert "\x1b" not in line.text() and "\n" not in line.text()
    assert line.text().startswith("x\\nerror: fake.docx")
    text = describe(je.FileStarted(f"/d/{FORGED}", "docx"), "/d")
    assert text == "reading: x\\nerror: fake.docx: forged line\\x1b[2J\\u202e.docx (docx)"
