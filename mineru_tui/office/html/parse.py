"""Bytes of an HTML or XHTML document to an lxml element tree, safely.

The bytes are decoded first (:mod:`.charset`), so the parser never guesses. XHTML (an
EPUB chapter) is tried with the hardened XML parser (no entities, no DTD, no network) and
falls back to the HTML parser when it is not well-formed (``&nbsp;`` without a DTD is
common). libxml2's HTML parser gives up past 2048 levels of nesting and drops the rest of
the document without an error; :func:`lost_text` tells when that happened.
"""

from __future__ import annotations

import html
import re

from mineru_tui.office.html.charset import decode, detect_encoding
from mineru_tui.office.limits import MAX_ELEMENTS

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
_DROPPED = re.compile(r"<!--.*?-->|<(script|style|head|template|noscript|textarea)\b.*?</\1\s*>",
                      re.I | re.S)
_BLOCK_TAG = re.compile(r"<\s*/?\s*(?:p|div|h[1-6]|li|pre|blockquote|td|th|tr|dt|dd|caption|br|"
                        r"table|ul|ol|section|article)\b[^>]*>", re.I)
_TAG = re.compile(r"<[^>]*>")
DEEP = 2000  # a tree this deep may have been cut by the parser


def to_text(data: bytes, transport: str | None = None) -> str:
    """The document's characters, decoded with the detected character set."""
    return decode(data, detect_encoding(data, transport))


_FEED = 64 << 10  # characters fed to a pull parser at a time (the overshoot past the bound)


def _html_parser(pull: bool = False):
    from lxml import etree

    kind = etree.HTMLPullParser if pull else etree.HTMLParser
    extra = {"events": ("start",)} if pull else {}
    return kind(no_network=True, huge_tree=True, remove_comments=True, remove_pis=True,
                default_doctype=False, **extra)


def _pulled(parser, data) -> tuple[object, bool]:
    """Feed ``data`` to a pull parser until :data:`MAX_ELEMENTS` elements have started;
    the tree (cut there when it had more) and whether it was cut."""
    started = 0
    cut = False
    for i in range(0, len(data), _FEED):
        parser.feed(data[i:i + _FEED])
        started += sum(1 for _ in parser.read_events())
        if started > MAX_ELEMENTS:
            cut = True
            break
    try:
        return parser.close(), cut
    except Exception:  # noqa: BLE001 - lxml raises on a document it found nothing in
        return None, cut


def parse_html(text: str):
    """An lxml tree of an HTML document (always with ``<html>`` and ``<body>``)."""
    return parse_html_bounded(text)[0]


def parse_html_bounded(text: str) -> tuple[object, bool]:
    """An lxml tree of an HTML document (always with ``<html>`` and ``<body>``), and
    whether it was cut after :data:`MAX_ELEMENTS` elements (the tree, not the bytes, is
    what costs memory: dense markup is 200 MB of tree per MiB).

    lxml's plain HTML parser, not ``lxml.html``'s: its elements need no Python class
    lookup, which made walking a large page a third slower. A text with fewer ``<`` than
    the bound is parsed in one call; a longer one is fed to the pull parser and counted.
    """
    from lxml import etree

    text = _XML_DECL.sub("", text, count=1)
    cut = False
    if not text.strip():
        root = None
    elif text.count("<") <= MAX_ELEMENTS:
        root = etree.fromstring(text, _html_parser())
    else:
        root, cut = _pulled(_html_parser(pull=True), text)
    if root is None:  # nothing but whitespace, comments or a declaration
        root = etree.fromstring("<html><body></body></html>", _html_parser())
    return root, cut


def parse_xhtml(data: bytes):
    """An lxml tree of an XHTML document: the XML parser when it can, else HTML."""
    return parse_xhtml_bounded(data)[0]


def parse_xhtml_bounded(data: bytes) -> tuple[object, bool]:
    """:func:`parse_xhtml`, and whether the tree was cut after :data:`MAX_ELEMENTS`
    elements (as :func:`parse_html_bounded`)."""
    from lxml import etree

    from mineru_tui.office.package import PARSER

    if data.count(b"<") <= MAX_ELEMENTS:
        try:
            root = etree.fromstring(data, PARSER)
            if root is not None:
                return root, False
        except etree.XMLSyntaxError:
            pass
    else:
        pull = etree.XMLPullParser(events=("start",), resolve_entities=False, no_network=True,
                                   huge_tree=False, load_dtd=False, recover=True)
        try:
            root, cut = _pulled(pull, data)
            if root is not None:
                return root, cut
        except etree.XMLSyntaxError:
            pass
    return parse_html_bounded(to_text(data))


def max_depth(root) -> int:
    """How deep the tree under ``root`` goes (iteratively: no recursion on hostile input).
    The walker asks only for subtrees it meets past its own depth limit."""
    deepest = 0
    stack = [(root, 1)]
    while stack:
        el, d = stack.pop()
        if d > deepest:
            deepest = d
        stack.extend((k, d + 1) for k in el)
    return deepest


def flat_paragraphs(text: str) -> list[str]:
    """The document's text split at block tags, without any tree (no depth limit)."""
    body = _DROPPED.sub(" ", text)
    out = []
    for piece in _BLOCK_TAG.split(body):
        line = " ".join(html.unescape(_TAG.sub("", piece)).split())
        if line:
            out.append(line)
    return out
