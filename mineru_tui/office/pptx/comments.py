"""Review comments on slides: legacy ``p:cmLst`` parts and modern threaded comments.

Each comment (and each reply of a thread) becomes an ``aside_text`` block,
``"Author (AB): text"``, which the reader puts at the end of its slide's page, after the
speaker notes: they are commentary about the slide, not part of its content, but
readers of a reviewed deck (and the origin projects' groundtruth) expect them.
"""

from __future__ import annotations

from mineru_tui.document import Block, BlockType, Line, text_span
from mineru_tui.office.package import local
from mineru_tui.office.names import NS

_P = NS["p"]


def read_authors(root) -> dict[str, str]:
    """Author display names by id, from ``p:cmAuthorLst`` or ``p188:authorLst``."""
    out = {}
    for el in (root if root is not None else ()):
        if local(el) not in ("cmAuthor", "author") or el.get("id") is None:
            continue
        name = (el.get("name") or "").strip()
        initials = (el.get("initials") or "").strip()
        out[el.get("id")] = f"{name} ({initials})" if name and initials else name or initials
    return out


def _text(el) -> str:
    """A comment's text: ``p:text`` (legacy) or the paragraphs of a text body (modern)."""
    paras = []
    for child in el:
        tag = local(child)
        if tag == "text":
            paras.append((child.text or "").strip())
        elif tag == "txBody":
            for p in child:
                if local(p) == "p":
                    paras.append("".join(t.text or "" for t in p.iter(f"{{{NS['a']}}}t")).strip())
    return "\n".join(p for p in paras if p)


def _block(author: str, text: str) -> Block:
    lines = text.split("\n")
    first = [text_span(f"{author}: ", {"italic"})] if author else []
    return Block(BlockType.ASIDE_TEXT,
                 lines=[Line(first + [text_span(lines[0])])] + [Line([text_span(l)])
                                                                for l in lines[1:]])


def read_comments(root, authors: dict[str, str]) -> list[Block]:
    """The comment blocks of one comments part, threads followed by their replies."""
    out = []
    for cm in root:
        if local(cm) != "cm":
            continue
        entries = [cm]
        for child in cm:
            if local(child) == "replyLst":
                entries += [r for r in child if local(r) == "reply"]
        for entry in entries:
            text = _text(entry)
            if text:
                out.append(_block(authors.get(entry.get("authorId") or "", ""), text))
    return out
