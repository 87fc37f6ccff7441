"""What an HTML, MHTML, EPUB or CSV/TSV file holds, read from the file itself.

The web formats' counterpart of ``bench/office_truth.py`` (same :class:`Truth`), written
apart from the readers under test: lxml.html's own charset handling, the stdlib ``email``
and ``zipfile`` and ``csv`` packages, nothing of ``mineru_tui``.

* **words** — the text a browser shows: ``<body>`` text without script, style, noscript,
  template, form controls, ``hidden`` elements and ``display:none`` ones; for EPUB every
  spine document in order; for CSV every cell (the delimiter sniffed by :mod:`csv`).
* **tables** — ``<table>`` elements with at least two cells (a CSV is one table);
* **headings** — ``<h1>``–``<h6>`` with text; **list_items** — ``<li>``, ``<dt>``, ``<dd>``
  with text; **links** — ``<a href>`` with text (a relative target counts too);
* **notes** (an extra count, not among the Office metrics) — footnote bodies: the targets
  of note references (``noteref``, ``doc-noteref``, ``footnote-ref``, or a short ``[1]`` link
  in ``<sup>``). A note's body is not a list item and its reference and back-links are not
  links: they are the note; **images** — ``<img>`` and SVG ``<image>`` with a source; **equations** —
  ``<math>``; **merged** — cells with ``colspan`` or ``rowspan`` above 1.

Two extra counts serve the fair scores of ``bench/web_fair.py``: **links_followable** —
the links a Markdown file written elsewhere can still follow (http(s), mailto, ``#id``, a
relative target only when the page states its own address); **images_obtainable** — the
pictures a converter can have without guessing (embedded, MHTML parts, files in the
page's folder, web addresses absolute or relative to the stated address).
"""
from __future__ import annotations

import csv
import io
import os
import posixpath
import re
import zipfile
from email import message_from_bytes, policy
from urllib.parse import unquote, urljoin

import lxml.html
from lxml import etree

from truth_record import Truth

WEB_KINDS = {".html": "html", ".htm": "html", ".xhtml": "html", ".mht": "mhtml", ".mhtml": "mhtml",
             ".epub": "epub", ".csv": "csv", ".tsv": "csv"}
_DROP = ("script", "style", "noscript", "template", "head", "input", "button", "select",
         "textarea", "option", "iframe", "object", "embed", "canvas", "audio", "video")
_BLOCKS = {"p", "div", "li", "td", "th", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "br", "dt", "dd",
           "pre", "section", "article", "table", "ul", "ol", "blockquote", "figure", "figcaption",
           "header", "footer", "nav", "aside", "hr", "caption", "main", "img", "address", "details",
           "summary", "dl", "body", "rt"}
_HIDDEN = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)


def web_kind(path: str) -> str | None:
    """The web kind of ``path`` from its name (the benchmark's corpus is named honestly)."""
    return WEB_KINDS.get(posixpath.splitext(path)[1].lower())


def _local(tag) -> str:
    return tag.rpartition("}")[2].lower() if isinstance(tag, str) else ""


def _html_into(data: bytes, t: Truth, texts: list[str], encoding: str | None = None,
               where: "_Where | None" = None) -> None:
    body = _body(data, t, encoding)
    if body is not None:
        if where is not None:
            where.base = getattr(t, "page_base", None) or where.base
        _count(body, t, texts, *_notes([body], _ids([body])), where=where)


class _Where:
    """Where a page's relative targets lead, for the fair counts (``links_followable``,
    ``images_obtainable``): the page's stated http(s) address, its folder on disk (an
    HTML file) or its sibling parts (an MHTML). None of it for an EPUB: its relative
    targets are members of the book and count as they are."""

    def __init__(self, base: str | None = None, folder: str | None = None, parts: set | None = None):
        self.base, self.folder, self.parts = base, folder, parts

    def followable(self, href: str) -> bool:
        """A link a Markdown file written elsewhere can still follow."""
        href = href.strip()
        if href.startswith("#"):
            return len(href) > 1
        scheme = re.match(r"([a-z][a-z0-9+.-]*):", href.lower())
        if scheme:
            return scheme.group(1) in ("http", "https", "mailto")
        return bool(self.base)

    def obtainable(self, src: str) -> bool:
        """A picture some converter can have without guessing: in the file (data URI,
        MHTML part), in the page's folder, or at a web address (absolute, or relative to
        the page's stated address)."""
        src = src.strip()
        low = src.lower()
        if low.startswith("data:image/") or low.startswith(("http://", "https://", "//")):
            return True
        if self.parts is not None and (src in self.parts or "<" + src[4:] + ">" in self.parts
                                       or (self.base and urljoin(self.base, src) in self.parts)):
            return True
        if re.match(r"[a-z][a-z0-9+.-]*:", low):
            return False
        if self.base:
            return True
        if self.folder:
            folder = os.path.realpath(self.folder)
            path = os.path.realpath(os.path.join(folder, unquote(src.split("?")[0].split("#")[0])))
            return path.startswith(folder + os.sep) and os.path.isfile(path)
        return False


def _page_base(root) -> str | None:
    """The page's own http(s) address: ``<base href>``, ``<link rel=canonical>``, ``og:url``."""
    for xpath in ("//base/@href", "//link[contains(concat(' ', @rel, ' '), ' canonical ')]/@href",
                  "//meta[@property='og:url']/@content"):
        for value in root.xpath(xpath):
            if str(value).strip().lower().startswith(("http://", "https://")):
                return str(value).strip()
    return None


def _ids(bodies) -> dict:
    """Element ids of one document (all chapters of a book: notes may be elsewhere)."""
    return {el.get("id"): el for b in bodies for el in b.iter()
            if isinstance(el.tag, str) and el.get("id")}


def _body(data: bytes, t: Truth, encoding: str | None = None):
    parser = lxml.html.HTMLParser(encoding=encoding, remove_comments=True, huge_tree=True)
    try:
        root = lxml.html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError) as e:
        t.notes.append(f"unparsable HTML: {e}")
        return None
    t.page_base = _page_base(root)  # read before <head> is dropped
    for el in list(root.iter()):
        if not isinstance(el.tag, str):
            continue
        if (_local(el.tag) in _DROP or el.get("hidden") is not None
                or _HIDDEN.search(el.get("style") or "")):
            if el.getparent() is not None:
                el.drop_tree()
    return next((el for el in root.iter() if _local(el.tag) == "body"), root)


def _count(body, t: Truth, texts: list[str], notes: set, note_links: set,
           where: _Where | None = None) -> None:
    for el in body.iter():
        tag = _local(el.tag)
        if el in note_links or el in notes:
            if el in notes:
                t.add("notes", " ".join("".join(el.itertext()).split()))
            if tag != "li":
                continue
        text = " ".join("".join(el.itertext()).split()) if tag else ""
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and text:
            t.add("headings", text)
        elif tag in ("li", "dt", "dd") and text and el not in notes:
            t.add("list_items", text)
        elif tag == "a" and el.get("href") and text:
            href = el.get("href").strip().lower()
            if href.startswith(("http:", "https:", "mailto:", "#")) or not re.match(r"[a-z][a-z0-9+.-]*:", href):
                t.add("links", text)
                if where is None or where.followable(el.get("href")):
                    t.add("links_followable", text)
        elif tag == "img" and el.get("src"):
            t.add("images", el.get("src")[:60])
            if where is None or where.obtainable(el.get("src")):
                t.add("images_obtainable", el.get("src")[:60])
        elif tag == "image" and (el.get("href") or el.get("{http://www.w3.org/1999/xlink}href")):
            t.add("images", "svg image")
            if where is None or where.obtainable(el.get("href") or el.get("{http://www.w3.org/1999/xlink}href")):
                t.add("images_obtainable", "svg image")
        elif tag == "math":
            t.add("equations", text)
        elif tag == "table":
            if sum(1 for c in el.iter("td", "th")) >= 2:
                t.add("tables", text[:60])
        elif tag in ("td", "th"):
            if int(re.sub(r"\D", "", el.get("colspan") or "") or 1) > 1 or \
                    int(re.sub(r"\D", "", el.get("rowspan") or "") or 1) > 1:
                t.add("merged", text)
    for el in body.iter():  # words part at block boundaries only (H<sub>2</sub>O is one word)
        if _local(el.tag) in _BLOCKS:
            el.tail = "\n" + (el.tail or "")
    texts.append("".join(body.itertext()))


def _notes(bodies: list, ids: dict) -> tuple[set, set]:
    """Footnotes: bodies (the targets of note references) and the links to and from them
    (references and back-links). They are counted as notes, not as links or list items."""
    refs = set()
    for a in (a for body in bodies for a in body.iter("a", "{http://www.w3.org/1999/xhtml}a")):
        href = (a.get("href") or "").strip()
        if "#" not in href:
            continue
        kinds = " ".join(filter(None, [a.get("{http://www.idpf.org/2007/ops}type"), a.get("epub:type"),
                                       a.get("role"), a.get("class")]))
        text = "".join(a.itertext()).strip()
        parent = a.getparent()
        short_sup = bool(re.fullmatch(r"[\[(]?\w{1,4}[\])]?", text)) and (
            (parent is not None and _local(parent.tag) == "sup")
            or any(_local(k.tag) == "sup" for k in a.iterdescendants()))
        target = ids.get(href.split("#")[-1])
        if ("noteref" in kinds or "footnote-ref" in kinds or short_sup) and target is not None \
                and _local(target.tag) not in ("sup", "a", "span"):  # not a back-link's target
            refs.add(a)
    bodies = {ids[a.get("href").split("#")[-1]] for a in refs}
    anchors = {x.get("id") for a in refs for x in (a, a.getparent()) if x is not None and x.get("id")}
    links = set(refs)
    for b in bodies:
        for a in b.iter("a", "{http://www.w3.org/1999/xhtml}a"):
            target = (a.get("href") or "").split("#")[-1]
            if target in anchors or "backlink" in " ".join(filter(None, [a.get("role"), a.get("class"),
                                                                      a.get("{http://www.idpf.org/2007/ops}type")])) \
                    or "".join(a.itertext()).strip() in ("↩", "↩︎", "^", "↑"):
                links.add(a)
    return bodies, links


def _epub(path: str, t: Truth, texts: list[str]) -> None:
    with zipfile.ZipFile(path) as z:
        container = etree.fromstring(z.read("META-INF/container.xml"))
        opf_name = next(el.get("full-path") for el in container.iter() if _local(el.tag) == "rootfile")
        opf = etree.fromstring(z.read(opf_name))
        folder = posixpath.dirname(opf_name)
        bodies = []
        items = {el.get("id"): (el.get("href"), el.get("media-type") or "")
                 for el in opf.iter() if _local(el.tag) == "item"}
        for ref in opf.iter():
            if _local(ref.tag) != "itemref" or ref.get("idref") not in items:
                continue
            href, media = items[ref.get("idref")]
            if "html" not in media:
                if media.startswith("image/"):
                    t.add("images", href)
                    t.add("images_obtainable", href)
                continue
            name = posixpath.normpath(posixpath.join(folder, unquote(href)))
            body = _body(z.read(name), t)
            if body is not None:
                bodies.append(body)
    notes = _notes(bodies, _ids(bodies))
    for body in bodies:
        _count(body, t, texts, *notes)


def _mhtml(path: str, t: Truth, texts: list[str]) -> None:
    with open(path, "rb") as f:
        msg = message_from_bytes(f.read(), policy=policy.compat32)
    parts = {v.strip() for part in msg.walk() for k in ("Content-Location", "Content-ID")
             for v in [part.get(k)] if v}
    parts |= {"<" + p + ">" for p in parts if not p.startswith("<")}
    for part in msg.walk():
        if part.get_content_type() == "text/html":
            where = _Where(base=(part.get("Content-Location") or "").strip() or None, parts=parts)
            _html_into(part.get_payload(decode=True) or b"", t, texts, part.get_content_charset(), where)
            return


def _csv(path: str, t: Truth, texts: list[str]) -> None:
    data = open(path, "rb").read()
    for enc in ("utf-8-sig", "cp932", "cp1252"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    try:
        dialect = csv.Sniffer().sniff(text[:20000], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    rows = list(csv.reader(io.StringIO(text), dialect))
    t.add("tables", path)
    texts.append("\n".join(" ".join(r) for r in rows))


def web_truth(path: str, kind: str) -> Truth:
    """Read the reference of one web-format file of ``kind``."""
    t = Truth()
    for extra in ("notes", "links_followable", "images_obtainable"):
        t.counts[extra], t.samples[extra] = 0, []
    texts: list[str] = []
    try:
        {"html": lambda p, tr, tx: _html_into(open(p, "rb").read(), tr, tx,
                                              where=_Where(folder=os.path.dirname(os.path.abspath(p)))),
         "mhtml": _mhtml, "epub": _epub, "csv": _csv}[kind](path, t, texts)
    except (OSError, KeyError, zipfile.BadZipFile, etree.XMLSyntaxError, StopIteration) as e:
        t.notes.append(f"unreadable: {type(e).__name__}: {e}")
    t.text = "\n".join(texts)
    return t
