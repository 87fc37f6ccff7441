"""Every real web-format file of tests/corpus/web/ through the CLI path.

The same three checks as the Office corpus (tests/office/test_corpus.py): the file parses
with ``mineru-tui parse FILE -o DIR`` into a complete output set; the words of its own
text (read here with lxml, zipfile, email and csv, apart from the readers) appear in our
Markdown; and the origin project's groundtruth (docling Markdown, pandoc native AST)
does too. Origins and licences: tests/corpus/web/SOURCES.tsv.
"""

from __future__ import annotations

import csv
import io
import json
import posixpath
import re
import zipfile
from collections import Counter
from email import message_from_bytes, policy
from pathlib import Path

import lxml.html
import pytest
from lxml import etree
from typer.testing import CliRunner

from mineru_tui.cli import app
from mineru_tui.detect import detect
from tests.office.test_corpus import pandoc_native_text, recall, words

CORPUS = Path(__file__).parents[1] / "corpus" / "web"
FILES = sorted(p for p in CORPUS.iterdir() if p.is_file() and p.name != "SOURCES.tsv")
GROUNDTRUTH = {p.name: CORPUS / "groundtruth" / (p.name + ext)
               for p in FILES for ext in (".md", ".native")
               if (CORPUS / "groundtruth" / (p.name + ext)).exists()}

# Measured with the readers of 2026-12-04. Own text: 1.000 on most files; the bars below
# are what code listings cost the word counter (a <pre> showing markup: "<span>" is a tag
# to it in our Markdown and a word in the source) and ruby fallbacks (<rp> is not shown).
OWN_DEFAULT = 0.97
# pandoc's features.epub is mostly MathML, which we write as LaTeX: "π" is "\\pi" there.
OWN_BAR = {"idpf__hefty-water.epub": 0.65, "docling__formatting.html": 0.9,
           "pandoc__features.epub": 0.95}
# Groundtruth: docling's Markdown keeps relative link targets ("/home2.html"), which the
# link allow-list drops (docs/markdown-safety.md); pandoc's features.epub is mostly MathML,
# which we write as LaTeX (its metadata is left out of the groundtruth here: it is no
# chapter's text).
GT_DEFAULT = 0.95
GT_BAR = {"docling__hyperlink_03.html": 0.8, "pandoc__features.epub": 0.9}

_DROP = ("script", "style", "noscript", "template", "head", "rp", "textarea", "select", "button")
_BLOCKS = {"p", "div", "li", "td", "th", "tr", "br", "dt", "dd", "pre", "h1", "h2", "h3", "h4",
           "h5", "h6", "table", "section", "blockquote", "figcaption", "caption"}


@pytest.fixture(scope="session")
def parsed(tmp_path_factory):
    done: dict[Path, tuple[int, str, Path]] = {}

    def run(path: Path) -> tuple[int, str, Path]:
        if path not in done:
            out = tmp_path_factory.mktemp("webcorpus")
            r = CliRunner().invoke(app, ["parse", str(path), "-o", str(out)])
            done[path] = (r.exit_code, r.stderr, out / path.stem)
        return done[path]
    return run


def _html_text(data: bytes, encoding: str | None = None) -> str:
    root = lxml.html.document_fromstring(
        data, parser=lxml.html.HTMLParser(encoding=encoding, remove_comments=True))
    for el in list(root.iter(*_DROP)) + [e for e in root.iter() if e.get("hidden") is not None]:
        el.drop_tree()
    for el in root.iter():
        if isinstance(el.tag, str) and el.tag in _BLOCKS:
            el.tail = "\n" + (el.tail or "")
    body = root.find("body")
    return "".join((body if body is not None else root).itertext())


def own_text(path: Path) -> str:
    kind = detect(path).kind
    if kind == "html":
        return _html_text(path.read_bytes())
    if kind == "mhtml":
        msg = message_from_bytes(path.read_bytes(), policy=policy.compat32)
        page = next(p for p in msg.walk() if p.get_content_type() == "text/html")
        return _html_text(page.get_payload(decode=True), page.get_content_charset())
    if kind == "epub":
        out = []
        with zipfile.ZipFile(path) as z:
            container = etree.fromstring(z.read("META-INF/container.xml"))
            opf_name = next(e.get("full-path") for e in container.iter() if str(e.tag).endswith("}rootfile"))
            opf = etree.fromstring(z.read(opf_name))
            items = {e.get("id"): e.get("href") for e in opf.iter() if str(e.tag).endswith("}item")}
            for ref in opf.iter():
                if str(ref.tag).endswith("}itemref") and items.get(ref.get("idref"), "").endswith(
                        ("html", "htm")):
                    name = posixpath.normpath(posixpath.join(posixpath.dirname(opf_name),
                                                             items[ref.get("idref")]))
                    out.append(_html_text(z.read(name)))
        return "\n".join(out)
    data = path.read_bytes()
    for enc in ("utf-8-sig", "cp932"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    return "\n".join(" ".join(row) for row in csv.reader(io.StringIO(text), delimiter=(
        "\t" if path.suffix == ".tsv" else ";" if ";" in text.splitlines()[0] else ",")))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_parses_through_the_cli(path, parsed):
    code, stderr, folder = parsed(path)
    assert code == 0, stderr
    md = (folder / f"{path.stem}.md").read_text(encoding="utf-8")
    assert md.strip(), "empty Markdown"
    content = json.loads((folder / f"{path.stem}_content_list.json").read_text(encoding="utf-8"))
    middle = json.loads((folder / f"{path.stem}_middle.json").read_text(encoding="utf-8"))
    assert content and middle["_backend"] == "office" and middle["pdf_info"]
    for entry in content:
        if entry.get("img_path"):
            assert (folder / entry["img_path"]).is_file(), entry["img_path"]
    for ref in re.findall(r"!\[[^\]]*\]\((images/[^)]+)\)", md):
        assert (folder / ref).is_file(), ref
    assert "<script" not in md.lower() and "javascript:" not in md.lower()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_own_text_recall(path, parsed):
    code, stderr, folder = parsed(path)
    assert code == 0, stderr
    ours = words((folder / f"{path.stem}.md").read_text(encoding="utf-8"))
    score, missing = recall(words(own_text(path)), ours)
    bar = OWN_BAR.get(path.name, OWN_DEFAULT)
    assert score >= bar, f"own-text recall {score:.3f} < {bar}; missing e.g. {missing[:15]}"


@pytest.mark.parametrize("name", sorted(GROUNDTRUTH), ids=str)
def test_groundtruth_recall(name, parsed):
    path = CORPUS / name
    code, stderr, folder = parsed(path)
    assert code == 0, stderr
    gt_path = GROUNDTRUTH[name]
    gt = gt_path.read_text(encoding="utf-8")
    if gt_path.suffix == ".native":  # the document's blocks, not its metadata (title, creators)
        gt = pandoc_native_text(re.split(r"^  \[", gt, maxsplit=1, flags=re.M)[-1])
    ours = words(_no_targets((folder / f"{path.stem}.md").read_text(encoding="utf-8")))
    score, missing = recall(Counter(set(words(_no_targets(gt)))), ours)
    bar = GT_BAR.get(name, GT_DEFAULT)
    assert score >= bar, f"groundtruth recall {score:.3f} < {bar}; missing e.g. {missing[:15]}"


def _no_targets(md: str) -> str:
    """Markdown without its link and image targets: an address is no text of the page
    (and in an HTML table cell it is an attribute, which ``words`` drops)."""
    return re.sub(r"\]\((?:[^()\s]|\([^()\s]*\))*\)", "] ", md)


def test_the_corpus_covers_every_web_kind():
    kinds = Counter(detect(p).kind for p in FILES)
    assert set(kinds) == {"html", "mhtml", "epub", "csv"}, kinds
    assert all(sum(words(own_text(p)).values()) >= 2 for p in FILES)
