"""SmartArt: the diagram data part (``dgm:dataModel``) to a list of its text.

A diagram's content is a tree of points (``dgm:pt``, types ``doc``, ``node``, ``asst``)
tied by ``parOf`` connections (``dgm:cxn srcId → destId``, ordered by ``srcOrd``); the
presentation points and transitions carry no user text. The list follows the tree
(depth = nesting) and falls back to the points' own order when there are no usable
connections. The drawn shapes (``dsp:`` drawing part) are ignored: they repeat the same text.
"""

from __future__ import annotations

from mineru_tui.document import Block, BlockType, Line, list_block, text_span
from mineru_tui.office.names import NS, q

_DGM = NS["dgm"]
_TEXT_TYPES = ("node", "asst")


def _point_text(pt) -> str:
    t = pt.find(q("dgm:t"))
    if t is None:
        return ""
    paras = []
    for p in t.iter(q("a:p")):
        text = "".join(x.text or "" for x in p.iter(q("a:t"))).strip()
        if text:
            paras.append(text)
    return "\n".join(paras)


def diagram_items(root) -> list[tuple[int, str]]:
    """``(depth, text)`` for every text point of a ``dgm:dataModel``, in reading order."""
    points = {}
    order = []
    for pt in root.iter(q("dgm:pt")):
        mid = pt.get("modelId")
        kind = pt.get("type") or "node"
        if mid is None:
            continue
        points[mid] = (kind, pt)
        order.append(mid)
    children: dict[str, list[tuple[float, str]]] = {}
    has_parent = set()
    for cxn in root.iter(q("dgm:cxn")):
        if (cxn.get("type") or "parOf") != "parOf":
            continue
        src, dest = cxn.get("srcId"), cxn.get("destId")
        if src not in points or dest not in points:
            continue
        try:
            rank = float(cxn.get("srcOrd") or 0)
        except ValueError:
            rank = 0.0
        children.setdefault(src, []).append((rank, dest))
        has_parent.add(dest)
    out: list[tuple[int, str]] = []
    seen = set()

    def visit(start: str, start_depth: int) -> None:
        stack = [(start, start_depth)]  # iterative: a hostile file may nest very deep
        while stack:
            mid, depth = stack.pop()
            if mid in seen:  # cycles in a hostile file
                continue
            seen.add(mid)
            kind, pt = points[mid]
            text = _point_text(pt) if kind in _TEXT_TYPES else ""
            if text:
                out.append((depth, text))
            next_depth = depth + 1 if kind in _TEXT_TYPES else depth
            kids = sorted(children.get(mid, ()), key=lambda x: x[0])
            stack.extend((child, next_depth) for _, child in reversed(kids))

    roots = [m for m in order if points[m][0] == "doc"] or [m for m in order if m not in has_parent]
    for mid in roots:
        visit(mid, 0)
    for mid in order:  # text points no connection reaches
        if mid not in seen and points[mid][0] in _TEXT_TYPES:
            visit(mid, 0)
    return out


def read_diagram(root) -> Block | None:
    """A list block of the diagram's text (None when it has none)."""
    items = []
    for depth, text in diagram_items(root):
        lines = [Line([text_span(t)]) for t in text.split("\n")]
        items.append(Block(BlockType.TEXT, lines=lines, depth=depth, marker="-"))
    return list_block(items) if items else None
