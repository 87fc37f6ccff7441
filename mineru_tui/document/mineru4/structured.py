"""MinerU 4's ``structured_content.json``: the middle JSON 2.0 with each block's content as
Markdown, page by page (docvortex's ``render_structured_content``).

Each top-level block keeps its metadata (``type``, ``bbox``, ``level``, ``sub_type``,
``continues_prev``...) without ``index`` and image payloads; its ``content`` becomes a
Markdown string. A table, picture or code block also gets ``captions`` and ``footnotes``
(``[{"bbox"?, "content"}]``) and, when it has a picture, ``image_source``. Blocks are
rendered where they were printed: continued paragraphs and tables are not joined here
(MinerU 4 joins them only in ``markdown.md``).
"""

from __future__ import annotations

import html
import re

_SPECIAL = re.compile(r"(?<!\\)([*_`~$])")
_HTML_LIKE = re.compile(r"</?[A-Za-z][^<>\n]*>|<!--.*?-->")
_BLOCK_PREFIX = re.compile(r"^(?P<indent>[ \t]{0,3})(?P<marker>#{1,6}|[+-])(?=[ \t])")
_WRAPPERS = {frozenset({"bold"}): "**", frozenset({"italic"}): "*",
             frozenset({"strikethrough"}): "~~", frozenset({"bold", "italic"}): "***"}
_DROPPED = {"content", "index", "guess_lang", "image_path", "image_base64", "image_url"}


def _escape(text: str) -> str:
    if "<" not in text:  # no tag-like part: one pass (most text)
        return _SPECIAL.sub(r"\\\1", text)
    parts, pos = [], 0
    for m in _HTML_LIKE.finditer(text):
        parts.append(_SPECIAL.sub(r"\\\1", text[pos:m.start()]))
        parts.append(html.escape(m.group(0), quote=False))
        pos = m.end()
    parts.append(_SPECIAL.sub(r"\\\1", text[pos:]))
    return "".join(parts)


def _html_styles(text: str, styles) -> str:
    if "superscript" in styles:
        text = f"<sup>{text}</sup>"
    elif "subscript" in styles:
        text = f"<sub>{text}</sub>"
    for style, tag in (("underline", "u"), ("bold", "strong"), ("italic", "em"),
                       ("strikethrough", "s")):
        if style in styles:
            text = f"<{tag}>{text}</{tag}>"
    return text


def _styled(text: str, styles) -> str:
    core = text.strip(" \t")
    if not styles or not core:
        return text
    lead, trail = text[: len(text) - len(text.lstrip(" \t"))], text[len(text.rstrip(" \t")):]
    wrapper = _WRAPPERS.get(frozenset(styles))
    inner = f"{wrapper}{core}{wrapper}" if wrapper else _html_styles(core, styles)
    return lead + inner + trail


def inline_md(spans: list[dict]) -> str:
    """Inline spans as Markdown: escaped text, ``**``/``*``/``~~`` or HTML styles, ``$..$``
    maths, backtick code, ``[label](url)`` links."""
    out = []
    for s in spans:
        t = s["type"]
        if t == "text":
            out.append(_styled(_escape(s["content"]), s.get("styles", [])))
        elif t == "equation_inline":
            out.append(f"${s['content']}$")
        elif t == "code_inline":
            body = s["content"].replace("\n", " ")
            fence = "`" * (max((len(m) for m in re.findall(r"`+", body)), default=0) + 1)
            out.append(f"{fence} {body} {fence}" if body[:1] in "` " or body[-1:] in "` "
                       else f"{fence}{body}{fence}")
        elif t == "hyperlink":
            label = re.sub(r"(?<!\\)([\[\]])", r"\\\1", inline_md(s["content"]))
            url = s["url"].replace("\\", "%5C").replace(" ", "%20").replace("(", "%28") \
                .replace(")", "%29")
            out.append(f"[{label}]({url})" if label else "")
    return "".join(out)


def _text_md(spans: list[dict]) -> str:
    text = inline_md(spans)
    m = _BLOCK_PREFIX.match(text)
    if m:  # a paragraph starting "# " or "- " is text, not a heading or list
        text = text[: m.start("marker")] + "\\" + text[m.start("marker"):]
    if text and (not text.strip("_") or not text.strip("-")):  # only "_" or only "-"
        text = "\\" + text
    return text


def _list_md(block: dict, depth: int = 0) -> str:
    lines = []
    for kid in block["content"]:
        if kid["type"] == "list":
            nested = _list_md(kid, depth + 1)
            if nested:
                lines.extend(nested.splitlines())
            continue
        item = inline_md(kid["content"])
        if item:
            lines.extend("    " * depth + l for l in item.splitlines())
    return "\n".join(lines)


def _fence(body: str, lang: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body}{'' if body.endswith(chr(10)) else chr(10)}{fence}"


def _visual(block: dict, asset_base_url: str) -> dict:
    out = {k: v for k, v in block.items() if k not in _DROPPED}
    body = next(k for k in block["content"] if k["type"].endswith("_body"))
    if body["type"] == "code_body":
        content = _fence(body["content"], block.get("guess_lang") or "txt")
    elif body["type"] == "algorithm_body":
        content = inline_md(body["content"])
    else:
        content = body["content"].strip()
    out["content"] = content
    for role in ("caption", "footnote"):
        out[role + "s"] = [{**({"bbox": k["bbox"]} if "bbox" in k else {}),
                            "content": inline_md(k["content"])}
                           for k in block["content"] if k["type"].endswith("_" + role)]
    if body.get("image_path"):
        out["image_source"] = asset_base_url + body["image_path"]
    elif body.get("image_url"):
        out["image_source"] = body["image_url"]
    return out


def _block(block: dict, asset_base_url: str) -> dict:
    t = block["type"]
    if t in ("table", "image", "chart", "code"):
        return _visual(block, asset_base_url)
    out = {k: v for k, v in block.items() if k not in _DROPPED}
    if t == "equation":
        out["content"] = block["content"].strip()
    elif t == "list":
        out["content"] = _list_md(block)
    elif t in ("doc_title", "paragraph_title", "text"):
        out["content"] = _text_md(block["content"])
    elif t == "ref_text":
        text = inline_md(block["content"])
        out["content"] = "\\" + text if text and set(text) <= {"-"} else text
    else:  # header, footer, page number, aside text, page footnote
        out["content"] = _text_md(block["content"])
    return out


def structured_head(middle: dict) -> dict:
    """``structured_content.json`` without its pages (``"pages"`` holds None, in its place)."""
    return {"pages": None, **{k: v for k, v in middle.items() if k not in ("pages", "schema", "schema_version")}}


def structured_page(page: dict, asset_base_url: str = "") -> dict:
    """One page of ``structured_content.json`` from the same page of the middle JSON."""
    return {"page_idx": page["page_idx"], "blocks": [_block(b, asset_base_url) for b in page["blocks"]]}


def to_structured_content(middle: dict, asset_base_url: str = "") -> dict:
    """``structured_content.json`` from MinerU 4's middle JSON (see :func:`to_middle_v2`)."""
    return {**structured_head(middle), "pages": [structured_page(p, asset_base_url) for p in middle["pages"]]}
