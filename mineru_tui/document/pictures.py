"""What a picture may be before it is written into ``images/``: nothing that runs.

The readers copy pictures as they find them (never decoded), so a document can hand over
an SVG holding ``<script>``, ``onload=``, a ``<foreignObject>`` page or references to
other files and sites; opened from the output folder in a browser (or a forge's raw
view) it would run or fetch. :func:`safe_picture` is the gate :meth:`Document.add_image`
passes every picture through:

* an SVG (by its extension or its bytes) is rebuilt from its SVG elements only: no
  script, no element outside the SVG namespace (an XHTML ``<script>`` or ``<iframe>``
  nested in SVG runs too), no ``foreignObject``, no ``on*`` attribute, no animation that
  sets a link or a handler, no reference that leaves the file (``href`` other than
  ``#id`` or an embedded raster ``data:`` picture, ``url(...)`` in attributes and style
  sheets, ``@import``); no DTD or entity survives. An SVG that cannot be parsed even
  with libxml2's recovery is left out with a warning;
* any other extension must be a picture's (``png``, ``jpg``, ``emf``...): a part named
  ``x.html`` or ``x.js`` is written as ``.bin``, a name no browser runs.
"""

from __future__ import annotations

import re

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"

# File extensions a picture may keep: raster and vector formats no browser executes
# (SVG is cleaned first). Anything else is written as ".bin".
PICTURE_EXTENSIONS = frozenset({
    "png", "jpg", "jpeg", "gif", "bmp", "dib", "tif", "tiff", "webp", "ico", "avif", "heic",
    "heif", "jp2", "jpx", "j2k", "emf", "wmf", "emz", "wmz", "pict", "pct", "wdp", "jxr",
    "tga", "pcx", "eps", "svg", "bin"})

_DROPPED = {"script", "foreignObject", "handler", "listener", "iframe", "embed", "object"}
_ANIMATIONS = {"set", "animate", "animateMotion", "animateTransform", "animateColor",
               "discard"}
_RASTER_DATA = re.compile(r"\s*data:image/(?:png|jpe?g|gif|webp|bmp);base64,", re.IGNORECASE)
_URL = re.compile(r"url\s*\(\s*(['\"]?)\s*([^)'\"]*)", re.IGNORECASE)


def looks_like_svg(data: bytes) -> bool:
    """Whether ``data`` could be shown as SVG (an ``<svg`` element near its start)."""
    return b"<svg" in data[:4096].lower()


def _external_url(text: str) -> bool:
    """Whether CSS or an attribute value may refer outside the file: ``url(x)`` other than
    ``url(#id)``, ``@import``, ``image-set()``/``src()``, or a CSS escape next to a
    bracket (``\\75 rl(...)`` is ``url(`` to a browser)."""
    low = text.lower()
    if "@import" in low or "image-set(" in low or "src(" in low or "image(" in low:
        return True
    if "\\" in text and "(" in text:
        return True
    return any(not target.startswith("#") for _, target in _URL.findall(text))


def _safe_css(text: str) -> str:
    """A style sheet without what :func:`_external_url` finds: ``@import`` rules go,
    an outside ``url(...)`` becomes ``none``; when that is not enough, nothing is kept."""
    text = re.sub(r"@import[^;]*;?", "", text, flags=re.IGNORECASE)
    text = re.sub(r"url\s*\(\s*(?!['\"]?\s*#)[^)]*\)", "none", text, flags=re.IGNORECASE)
    return "" if _external_url(text) else text


def _local_ref(value: str) -> bool:
    """An ``href`` that stays in the file: ``#id`` or an embedded raster picture."""
    value = value.strip()
    return value.startswith("#") or bool(_RASTER_DATA.match(value))


def _clean_element(el) -> bool:
    """Strip ``el``'s live or external attributes; False when ``el`` itself must go."""
    tag = el.tag
    if not isinstance(tag, str):  # comments, processing instructions, entity references
        return False
    ns, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    if ns != SVG_NS or name in _DROPPED:
        return False
    if name in _ANIMATIONS:
        target = (el.get("attributeName") or "").strip().lower()
        if target.endswith("href") or target.startswith("on") or target == "style":
            return False
    for key in list(el.attrib):
        local = key.rpartition("}")[2]
        value = el.attrib[key]
        if (local.lower().startswith("on")
                or (local == "href" and not _local_ref(value))
                or _external_url(value)
                or (key.startswith("{") and not key.startswith(("{" + XLINK_NS,
                                                                "{http://www.w3.org/XML/")))):
            del el.attrib[key]
    if name == "style" and el.text and _external_url(el.text):
        el.text = _safe_css(el.text)
    return True


def _remove(el) -> None:
    """Take ``el`` out of its parent, keeping the text that followed it."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        before = el.getprevious()
        if before is not None:
            before.tail = (before.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def clean_svg(data: bytes) -> bytes | None:
    """``data`` as SVG that runs and fetches nothing (see the module's rules), or None when
    no SVG can be read from it."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                             load_dtd=False, recover=True, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        return None
    if root is None or root.tag != f"{{{SVG_NS}}}svg":
        return None
    stack = [root]
    while stack:  # on an explicit stack: an SVG can nest deeper than Python's frames
        el = stack.pop()
        if not _clean_element(el):
            _remove(el)
            continue
        stack.extend(el)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def safe_picture(data: bytes, ext: str) -> tuple[bytes, str] | None:
    """The bytes and extension to write a picture under; None when it must be left out (an
    SVG from which nothing can be read)."""
    from mineru_tui.detect import image_type

    ext = ext.lower().lstrip(".") or "bin"
    sniffed = image_type(data)
    if ext in ("svg", "svgz") or sniffed == "svg" or (sniffed is None and looks_like_svg(data)):
        cleaned = clean_svg(data)
        if cleaned is not None:
            return cleaned, "svg" if ext in ("svg", "svgz", "bin") else ext
        if ext in ("svg", "svgz") or sniffed == "svg":
            return None
    return data, ext if ext in PICTURE_EXTENSIONS else "bin"
