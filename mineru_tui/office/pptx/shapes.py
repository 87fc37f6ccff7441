"""Shape elements of a slide tree: their parts and their geometry.

Positions are EMU boxes ``(x, y, width, height)`` on the slide. A group maps its
children's coordinates onto its own box: ``chOff``/``chExt`` is the child space,
``off``/``ext`` where it lands; nested groups compose these transforms.
"""

from __future__ import annotations

from mineru_tui.office.pptx.order import Box
from mineru_tui.office.package import local
from mineru_tui.office.names import q

SHAPE_TAGS = {q("p:sp"), q("p:pic"), q("p:graphicFrame"), q("p:grpSp"), q("p:cxnSp")}


def ph_of(el):
    """The ``p:ph`` of a shape, or None when it is not a placeholder."""
    for child in el:
        if local(child).startswith("nv"):
            nvpr = child.find(q("p:nvPr"))
            return nvpr.find(q("p:ph")) if nvpr is not None else None
    return None


def cnvpr_of(el):
    """The ``p:cNvPr`` (id, name, alt text, click link) of a shape."""
    for child in el:
        if local(child).startswith("nv"):
            return child.find(q("p:cNvPr"))
    return None


def xfrm_of(el):
    """The ``a:xfrm`` / ``p:xfrm`` that positions a shape, or None."""
    tag = local(el)
    if tag == "graphicFrame":
        return el.find(q("p:xfrm"))
    if tag == "grpSp":
        pr = el.find(q("p:grpSpPr"))
    else:
        pr = el.find(q("p:spPr"))
    return pr.find(q("a:xfrm")) if pr is not None else None


def num(el, attr: str) -> float:
    """A numeric attribute (0 when absent or malformed)."""
    try:
        return float(el.get(attr) or 0)
    except ValueError:
        return 0.0


def box_of(xfrm) -> Box | None:
    """The box of an ``xfrm`` element (None when it has no offset or extent)."""
    if xfrm is None:
        return None
    off, ext = xfrm.find(q("a:off")), xfrm.find(q("a:ext"))
    if off is None or ext is None:
        return None
    return (num(off, "x"), num(off, "y"), max(0.0, num(ext, "cx")), max(0.0, num(ext, "cy")))


# A transform from a group's child coordinates to slide coordinates: x*sx + tx, y*sy + ty.
Transform = tuple[float, float, float, float]
IDENTITY: Transform = (1.0, 0.0, 1.0, 0.0)


def apply(t: Transform, box: Box) -> Box:
    """A box in child coordinates mapped through ``t``."""
    sx, tx, sy, ty = t
    return (box[0] * sx + tx, box[1] * sy + ty, box[2] * sx, box[3] * sy)


def group_transform(xfrm, parent: Transform) -> Transform:
    """Compose a group's ``chOff``/``chExt`` mapping with its parent's transform."""
    if xfrm is None:
        return parent
    off, ext = xfrm.find(q("a:off")), xfrm.find(q("a:ext"))
    choff, chext = xfrm.find(q("a:chOff")), xfrm.find(q("a:chExt"))
    if off is None or ext is None or choff is None or chext is None:
        return parent
    sx = num(ext, "cx") / num(chext, "cx") if num(chext, "cx") else 1.0
    sy = num(ext, "cy") / num(chext, "cy") if num(chext, "cy") else 1.0
    tx = num(off, "x") - num(choff, "x") * sx
    ty = num(off, "y") - num(choff, "y") * sy
    psx, ptx, psy, pty = parent
    return (sx * psx, tx * psx + ptx, sy * psy, ty * psy + pty)


def union(boxes: list[Box]) -> Box | None:
    """The smallest box holding all the given boxes (None for none)."""
    boxes = [b for b in boxes if b is not None]
    if not boxes:
        return None
    x0 = min(b[0] for b in boxes)
    y0 = min(b[1] for b in boxes)
    x1 = max(b[0] + b[2] for b in boxes)
    y1 = max(b[1] + b[3] for b in boxes)
    return (x0, y0, x1 - x0, y1 - y0)


def lst_style(el):
    """The ``a:lstStyle`` of a shape's text body, or None."""
    if el is None:
        return None
    body = el.find(q("p:txBody"))
    return body.find(q("a:lstStyle")) if body is not None else None


def choose_alternate(alt) -> list:
    """The shapes of an ``mc:AlternateContent`` to read: the first choice holding shapes
    (``a14`` math text, Office 2016 charts...), else the fallback (ink and other
    content parts have no shapes, so their fallback picture is read)."""
    for choice in alt.iterfind(q("mc:Choice")):
        shapes = [el for el in choice if el.tag in SHAPE_TAGS]
        if shapes:
            return shapes
    fallback = alt.find(q("mc:Fallback"))
    return [el for el in fallback if el.tag in SHAPE_TAGS] if fallback is not None else []
