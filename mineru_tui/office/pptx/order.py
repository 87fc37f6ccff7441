"""Reading order of the shapes on a slide: a recursive XY-cut over their boxes.

A set of boxes is cut in two at the widest band of the slide that is free of boxes:
a horizontal cut gives rows (read top to bottom), a vertical cut columns (read left to
right, each column whole before the next); each part is cut again. Cutting only at
the widest gap, across either axis, reads a two-column layout column by column even
when the boxes of the columns line up in rows, and keeps a title band above them first. Boxes are shrunk a little before testing so
that sloppy overlaps of a few points do not block a cut. When nothing can be cut, a box
that overlaps all the others (a background picture, a panel) is read first and the
rest are cut again; otherwise the boxes are read top-left first.
"""

from __future__ import annotations

Box = tuple[float, float, float, float]  # x, y, width, height (EMU)

_SLACK = 45720.0  # EMU (0.05 in) shaved off each side, at most 10% of the size
_MAX_DEPTH = 200


def _span(box: Box, axis: int) -> tuple[float, float]:
    start, size = box[axis], box[axis + 2]
    slack = min(_SLACK, 0.1 * size)
    return start + slack, start + size - slack


def _split(idx: list[int], boxes: list[Box], axis: int) -> tuple[list[list[int]], float]:
    """Split ``idx`` in two along ``axis`` (0 = x → columns, 1 = y → rows) at the widest
    free gap. Returns the parts in order (one part when there is no gap) and the gap."""
    spans = sorted(((_span(boxes[i], axis), i) for i in idx), key=lambda t: t[0][0])
    best, widest = 0, 0.0
    end = None
    for k, ((lo, hi), _) in enumerate(spans):
        if end is not None and lo >= end and (lo - end > widest or not best):
            best, widest = k, lo - end
        end = hi if end is None else max(end, hi)
    if not best:
        return [list(idx)], 0.0
    order = [i for _, i in spans]
    return [order[:best], order[best:]], widest


def _top_left(idx: list[int], boxes: list[Box]) -> list[int]:
    return sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0], i))


def _intersects(a: Box, b: Box) -> bool:
    return (a[0] < b[0] + b[2] and b[0] < a[0] + a[2]
            and a[1] < b[1] + b[3] and b[1] < a[1] + a[3])


def _cut(idx: list[int], boxes: list[Box], depth: int) -> list[int]:
    if len(idx) <= 1:
        return list(idx)
    if depth > _MAX_DEPTH:
        return _top_left(idx, boxes)
    rows, row_gap = _split(idx, boxes, 1)
    cols, col_gap = _split(idx, boxes, 0)
    if len(rows) > 1 or len(cols) > 1:
        use_cols = len(cols) > 1 and (len(rows) == 1 or col_gap > row_gap)
        parts = cols if use_cols else rows
        return [i for part in parts for i in _cut(part, boxes, depth + 1)]
    if len(idx) >= 3:
        big = max(idx, key=lambda i: (boxes[i][2] * boxes[i][3], -i))
        if all(_intersects(boxes[big], boxes[i]) for i in idx if i != big):
            return [big] + _cut([i for i in idx if i != big], boxes, depth + 1)
    return _top_left(idx, boxes)


def reading_order(boxes: list[Box]) -> list[int]:
    """The indices of ``boxes`` in reading order (ties keep their document order)."""
    return _cut(list(range(len(boxes))), boxes, 0)
