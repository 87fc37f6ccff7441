"""``-o DIR``: what is replaced, what is left alone, names, and writers sharing DIR.

Issue 9: ``-o`` must never delete what it did not write, output sets go to the next free
name, names of any shape can be written, and two writers on one folder both succeed.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mineru_tui.document import Document, Page, text_block, text_span
from mineru_tui.output import (MANIFEST, MAX_STEM_BYTES, OutputBusy, assign_stems,
                               output_stem, owned_set, write_outputs)
from tests.cli_fixtures import ROOT, cli


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry below ``root``: files with their bytes, folders as None."""
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        out[rel] = None if p.is_dir() else p.read_bytes()
    return out


def hidden_entries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def doc_saying(text: str) -> Document:
    doc = Document()
    doc.pages.append(Page(0, [text_block([text_span(text)])]))
    return doc


# ---------------------------------------------------------------------------------------
# nothing replaced that this tool did not write


def test_user_folder_and_file_under_a_stem_are_left_alone(fake_reader, docs, tmp_path):
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "notes.txt").write_text("mine")
    (out / "b").write_text("a plain file named like the stem")
    before = tree(out)
    r = cli("parse", docs["a.docx"], docs["b.pptx"], "-o", out)
    assert r.exit_code == 0, r.stderr
    after = tree(out)
    assert {k: v for k, v in after.items() if k in before} == before  # all still there
    assert (out / "a_2" / "a_2.md").read_text().startswith("# From a.docx")
    assert (out / "b_2" / "b_2.md").read_text().startswith("# From b.pptx")
    notes = [l for l in r.stderr.splitlines() if l.startswith("note: ")]
    assert notes == [
        f"note: {docs['a.docx']}: written to {out / 'a_2'}/ ('a' in the output folder is "
        "not written by mineru-tui; left alone)",
        f"note: {docs['b.pptx']}: written to {out / 'b_2'}/ ('b' in the output folder is "
        "a file; left alone)"]
    # A second run replaces its own a_2/b_2 (not a_3) and still leaves the user's alone.
    r = cli("parse", docs["a.docx"], docs["b.pptx"], "-o", out)
    assert r.exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["a", "a_2", "b", "b_2"]
    assert tree(out) == after


def test_our_folder_with_a_file_added_is_left_alone(fake_reader, docs, tmp_path):
    out = tmp_path / "out"
    assert cli("parse", docs["a.docx"], "-o", out).exit_code == 0
    (out / "a" / "my-notes.md").write_text("added by the user")
    r = cli("parse", docs["a.docx"], "-o", out)
    assert r.exit_code == 0
    assert (out / "a" / "my-notes.md").read_text() == "added by the user"
    assert (out / "a_2" / "a_2.md").exists()


def test_symlink_under_a_stem_is_left_alone(fake_reader, docs, tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("x")
    (out / "a").symlink_to(elsewhere, target_is_directory=True)
    assert cli("parse", docs["a.docx"], "-o", out).exit_code == 0
    assert (out / "a").is_symlink() and (elsewhere / "keep.txt").read_text() == "x"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.txt"]
    assert (out / "a_2" / "a_2.md").exists()


def test_next_free_name_never_replaces_a_set_of_this_run(fake_reader, docs, tmp_path):
    out = tmp_path / "out"
    (out / "a").mkdir(parents=True)
    (out / "a" / "user.txt").write_text("u")
    other = tmp_path / "a_2.docx"  # its own stem is the name a.docx was moved to
    other.write_bytes(docs["a.docx"].read_bytes())
    r = cli("parse", docs["a.docx"], other, "-o", out)
    assert r.exit_code == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a", "a_2", "a_2_2"]
    assert json.loads((out / "a_2" / MANIFEST).read_text())["source"] == str(docs["a.docx"])
    assert json.loads((out / "a_2_2" / MANIFEST).read_text())["source"] == str(other)


def test_output_folder_is_the_input_folder(fake_reader, docs, tmp_path):
    """``parse docs -o docs`` deletes nothing and never reads its own outputs."""
    d = tmp_path / "docs"
    (d / "a").mkdir(parents=True)
    (d / "a.docx").write_bytes(docs["a.docx"].read_bytes())
    (d / "a" / "b.docx").write_bytes(docs["b.pptx"].read_bytes())
    (d / "a" / "readme.txt").write_text("the user's")
    before = tree(d)
    for _run in range(2):
        fake_reader.clear()
        r = cli("parse", d, "-o", d)
        assert r.exit_code == 0, r.stderr
        assert sorted(n for n, _ in fake_reader) == ["a.docx", "b.docx"]  # inputs only
        assert "skipped" not in r.stderr  # the images of our sets were not even looked at
        after = tree(d)
        assert {k: v for k, v in after.items() if k in before} == before
        assert sorted(p.name for p in d.iterdir()) == ["a", "a.docx", "a_2", "b"]
    assert (d / "a_2" / "a_2.md").read_text().startswith("# From a.docx")
    assert (d / "b" / "b.md").read_text().startswith("# From b.docx")


def test_leftovers_of_a_killed_writer_are_removed(tmp_path):
    out = tmp_path / "out"
    (out / ".mineru-tui.partial-k1ll3d" / "images").mkdir(parents=True)
    (out / ".mineru-tui.old-k1ll3d" / "set").mkdir(parents=True)
    (out / ".keep-me").mkdir()  # not ours
    done = write_outputs(doc_saying("hi"), out, "x")
    assert done.path == out / "x" and done.notes == []
    assert sorted(p.name for p in out.iterdir()) == [".keep-me", "x"]


def test_owned_set_checks_manifest_and_contents(tmp_path):
    done = write_outputs(doc_saying("hi"), tmp_path, "x")
    assert owned_set(done.path)
    (done.path / MANIFEST).write_text("{not json")
    assert not owned_set(done.path)
    assert not owned_set(tmp_path / "missing")


# ---------------------------------------------------------------------------------------
# names


def test_long_cjk_stem_is_written_with_a_note(fake_reader, docs, tmp_path):
    name = "報告書" * 27 + "表"  # 82 characters, 246 bytes of UTF-8
    src = tmp_path / f"{name}.docx"
    src.write_bytes(docs["a.docx"].read_bytes())
    out = tmp_path / "out"
    r = cli("parse", src, "-o", out)
    assert r.exit_code == 0, r.stderr
    [folder] = out.iterdir()
    assert name.startswith(folder.name) and len(folder.name.encode()) <= MAX_STEM_BYTES
    for p in folder.iterdir():
        assert len(p.name.encode()) <= 255
    assert (folder / f"{folder.name}_content_list.json").exists()
    assert f"longer than {MAX_STEM_BYTES} bytes; shortened" in r.stderr
    assert hidden_entries(out) == []
    # A second run finds the shortened set again and replaces it.
    assert cli("parse", src, "-o", out).exit_code == 0
    assert [p.name for p in out.iterdir()] == [folder.name]


@pytest.mark.parametrize("stem,folder", [("   ", "___"), ("..", "__"), (".hidden", "_hidden"),
                                         ("tab\tname", "tab_name")])
def test_odd_stems_get_a_sane_folder_and_a_true_note(fake_reader, docs, tmp_path, stem,
                                                     folder):
    src = tmp_path / f"{stem}.docx"
    src.write_bytes(docs["a.docx"].read_bytes())
    out = tmp_path / "out"
    r = cli("parse", src, "-o", out)
    assert r.exit_code == 0, r.stderr
    assert [p.name for p in out.iterdir()] == [folder]
    assert (out / folder / f"{folder}.md").exists()
    [note] = [l for l in r.stderr.splitlines() if l.startswith("note: ")]
    assert "taken in this batch" not in note
    assert note.endswith(("cannot be a folder name)", "would be hidden)",
                          "has control characters)"))


def test_output_stem_rules():
    assert output_stem(Path("report.docx")) == ("report", None)
    assert output_stem(Path(" report .docx")) == ("report", None)
    assert output_stem(Path("a\x1b[31mb.docx"))[0] == "a_[31mb"
    assert output_stem(Path("x\u202ecod.exe.docx"))[0] == "x_cod.exe"
    stem, why = output_stem(Path("é" * 150 + ".docx"))  # 300 bytes
    assert stem == "é" * 100 and "shortened" in why
    stem, _ = output_stem(Path("a" + "é" * 150 + ".docx"))  # the cut falls inside a char
    assert stem == "a" + "é" * 99
    assert [s for s, _ in assign_stems([Path("a/x.docx"), Path("b/X.pptx")])] == ["x", "X_2"]


# ---------------------------------------------------------------------------------------
# two writers on one folder


def test_a_writer_waits_for_the_lock_then_writes(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    with pytest.raises(OutputBusy):
        write_outputs(doc_saying("one"), out, "x", lock_timeout=0.3)
    threading.Timer(0.3, os.close, [fd]).start()  # the other writer finishes
    t0 = time.monotonic()
    done = write_outputs(doc_saying("two"), out, "x", lock_timeout=10)
    assert time.monotonic() - t0 >= 0.2
    assert (done.path / "x.md").read_text() == "two\n"
    assert hidden_entries(out) == []


def test_two_parse_runs_on_one_filled_folder_both_succeed(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(4):
        (src / f"d{i}.docx").write_bytes((ROOT / "examples" / "sample.docx").read_bytes())
    out = tmp_path / "out"
    (out / "d0").mkdir(parents=True)
    (out / "d0" / "user.txt").write_text("keep")
    cmd = [sys.executable, "-m", "mineru_tui", "parse", "-q", str(src), "-o", str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    assert subprocess.run(cmd, cwd=ROOT, env=env, timeout=60).returncode == 0
    expected = sorted(p.name for p in out.iterdir())
    for _ in range(3):
        procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
                 for _ in range(2)]
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0 and err == "", err
        assert sorted(p.name for p in out.iterdir()) == expected
        assert (out / "d0" / "user.txt").read_text() == "keep"
        for name in expected:
            if name != "d0":
                assert owned_set(out / name) and (out / name / f"{name}.md").exists()


def test_a_watch_style_writer_and_a_parse_share_a_folder(tmp_path):
    """The watch app writes through write_outputs too: both take turns on the lock."""
    src = tmp_path / "src"
    src.mkdir()
    for i in range(4):
        (src / f"d{i}.docx").write_bytes((ROOT / "examples" / "sample.docx").read_bytes())
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "mineru_tui", "parse", "-q", str(src), "-o",
                             str(out)], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            stderr=subprocess.PIPE, text=True)
    rounds = 0
    while proc.poll() is None or rounds < 5:
        done = write_outputs(doc_saying(f"round {rounds}"), out, "d1", source=src / "d1.docx")
        assert done.path == out / "d1"  # ours, whoever wrote it last: replaced, never d1_2
        rounds += 1
    assert proc.wait(timeout=60) == 0 and proc.stderr.read() == ""
    assert sorted(p.name for p in out.iterdir()) == ["d0", "d1", "d2", "d3"]
    assert all(owned_set(p) for p in out.iterdir())


@pytest.mark.parametrize("text", [
    "plain ascii {\"a\": [1, 2]}",  # nothing to escape: the same text back
    "ascii with DEL \x7f inside",  # the one escaped character ASCII has
    "C1 \x9b and bidi \u202e and isolates \u2066\u2069, separators \u2028\u2029, lone \udc80",
    "non-ASCII text with nothing to escape: caf\u00e9 \u2013 \u4e2d\u6587",
])
def test_a_json_piece_is_escaped_as_the_full_search_escapes_it(text):
    """The writers' pieces skip the search when the text is ASCII without DEL; the result is
    what the search gives for every piece."""
    from mineru_tui.console import JSON_ESCAPED
    from mineru_tui.output import _json_escaped, _no_surrogates

    assert _json_escaped(text) == JSON_ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    assert _no_surrogates(text) == text.replace("\udc80", "\ufffd")
