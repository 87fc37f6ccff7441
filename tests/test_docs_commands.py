"""The commands the README, docs/ and the bench scripts' usage lines give a user run from a clone.

A person copies them: every option they name must exist, no path may point outside the clone
(a folder on the machine they were written on), and a bench script asked for ``--help`` answers
with its usage and writes nothing (``make_heading_pdfs.py --help`` made a folder named
``--help``). Commands that need a Mac, a GPU or a multi-GB model are not run here; their options
are still checked against the command's own ``--help``.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.cli_fixtures import cli

ROOT = Path(__file__).resolve().parents[1]
BENCH = sorted((ROOT / "bench").glob("*.py"))


def _docs() -> list[tuple[str, str]]:
    """(where, text) of the README, each docs page and each bench script's docstring, with
    backslash-continued command lines joined."""
    out = [("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))]
    out += [(f"docs/{p.name}", p.read_text(encoding="utf-8")) for p in sorted((ROOT / "docs").glob("*.md"))]
    for p in BENCH:
        doc = ast.get_docstring(ast.parse(p.read_text(encoding="utf-8"))) or ""
        out.append((f"bench/{p.name}", doc))
    return [(where, re.sub(r"\\\n\s*", " ", text)) for where, text in out]


def _this_machine() -> list[str]:
    """Folders of the machine the test runs on, where pages get written: its home directory and
    the folder the clone sits in (unless that is ``/`` or the temp folder, which pages use for
    scratch files)."""
    skip = {Path("/"), Path(tempfile.gettempdir()).resolve()}
    return [re.escape(str(p).rstrip("/") + "/") for p in (Path.home().resolve(), ROOT.parent)
            if p not in skip]


# A folder of the machine a page was written on (this one's, or any user's home other than the
# examples' /home/me), or a sibling checkout (../main).
MACHINE_PATH = re.compile(r"(?<![\w.])(" + "|".join(
    _this_machine() + [r"/Users/(?!me/)\w", r"/home/(?!me/)\w", r"\.\./main\b"]) + ")")


def test_docs_name_no_path_outside_the_clone():
    found = [f"{where}: {m.group(0)!r} in {line.strip()[:100]}"
             for where, text in _docs() for line in text.splitlines()
             for m in [MACHINE_PATH.search(line)] if m]
    assert found == []


COMMAND = re.compile(r"mineru-tui\s+(parse|watch|serve|generate|model\s+[a-z]+|bundle\s+[a-z]+)\b([^`#\n]*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")


def test_every_option_of_a_documented_mineru_tui_command_exists():
    helps: dict[str, str] = {}
    missing = []
    for where, text in _docs():
        for m in COMMAND.finditer(text):
            sub = m.group(1).split()
            if sub[0] in ("model", "bundle") and sub[1] not in ("fetch", "show", "verify", "build"):
                continue  # prose ("bundle verify passes it"), not a command
            key = " ".join(sub)
            if key not in helps:
                r = cli(*sub, "--help")
                assert r.exit_code == 0, (key, r.output)
                helps[key] = r.stdout
            missing += [f"{where}: mineru-tui {key} {flag}" for flag in FLAG.findall(m.group(2))
                        if flag not in helps[key]]
    assert helps, "no command found: the pattern is wrong"
    assert missing == []


def _documented_scripts() -> list[Path]:
    """The bench scripts a page or a usage line tells a user to run (``bench/X.py`` followed by
    arguments or options), not the helper modules the others import."""
    named = set()
    for _, text in _docs():
        named.update(re.findall(r"bench/([a-z_]+\.py)[ \t]+[-\w\[/]", text))
    return [p for p in BENCH if p.name in named]


@pytest.mark.slow  # one Python process per script
@pytest.mark.parametrize("script", _documented_scripts(), ids=lambda p: p.name)
def test_a_documented_bench_script_answers_help_and_writes_nothing(script, tmp_path):
    r = subprocess.run([sys.executable, str(script), "--help"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", r.stderr)
    if missing and not missing.group(1).startswith("mineru_tui"):
        pytest.skip(f"{script.name} runs where {missing.group(1)} is installed (its usage says so)")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "usage:" in r.stdout.lower()
    assert list(tmp_path.iterdir()) == []  # --help is not a folder name, nor a run


@pytest.mark.slow  # one Python process per script
def test_every_option_of_a_documented_bench_command_exists():
    """Each ``--flag`` after ``bench/X.py`` in a page or usage line is in that script's --help
    (argparse's help is read without running the script: its parser is built by its main)."""
    wanted: dict[Path, set[str]] = {}
    for _, text in _docs():
        for name, rest in re.findall(r"bench/([a-z_]+\.py)([^`#\n]*)", text):
            flags = set(FLAG.findall(rest.split("bench/")[0]))
            if flags and (ROOT / "bench" / name).exists():
                wanted.setdefault(ROOT / "bench" / name, set()).update(flags)
    assert wanted
    missing = []
    for script, flags in sorted(wanted.items()):
        r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                           timeout=600)
        if re.search(r"ModuleNotFoundError: No module named '(?!mineru_tui)", r.stderr):
            continue  # needs a peer's packages (torch...): checked where they are installed
        missing += [f"{script.name} {f}" for f in sorted(flags) if f not in r.stdout]
    assert missing == []
