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


def parse_html(text: str):
    """An lxml tree of an HTML document (always with ``<html>`` and ``<body>``).

    lxml's plain HTML parser, not ``lxml.html``'s: its elements need no Python class
    lookup, which made walking a large page a third slower.
    """
    from lxml import etree

    text = _XML_DECL.sub("", text, count=1)
    parser = etree.HTMLParser(no_network=True, huge_tree=True, remove_comments=True,
                              remove_pis=True, default_doctype=False)
    root = etree.fromstring(text, parser) if text.strip() else None
    if root is None:  # nothing but whitespace, comments or a declaration
        root = etree.fromstring("<html><body></body></html>", parser)
    return root


def parse_xhtml(data: bytes):
    """An lxml tree of an XHTML document: the XML parser when it can, else HTML."""
    from lxml import etree

    from mineru_tui.office.package import PARSER

    try:
        root = etree.fromstring(data, PARSER)
        if root is not None:
            return root
    except etree.XMLSyntaxError:
        pass
    return parse_html(to_text(data))


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
