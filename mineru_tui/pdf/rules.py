"""The ruling lines a page draws: straight horizontal and vertical strokes and thin filled
rectangles from its path objects, in the display frame (points, origin top left).

Tables are drawn with these (cell borders, or booktabs' top/middle/bottom rules), so
:mod:`.tables` rebuilds rows and columns from them.
"""

from __future__ import annotations

from dataclasses import dataclass

THIN = 2.5  # points: a filled rectangle this thin is a line
MIN_LENGTH = 6.0  # points: shorter strokes are glyph parts, arrows, check marks
MAX_PATHS = 20_000  # a drawing with more paths than this is a figure, not a table


@dataclass(frozen=True, slots=True)
class Rule:
    """A horizontal (``y`` fixed, ``a``..``b`` along x) or vertical line (``x`` fixed)."""

    horizontal: bool
    at: float  # y for a horizontal rule, x for a vertical one
    a: float
    b: float


def page_rules(page) -> list[Rule]:
    """Every horizontal and vertical line drawn on ``page``, merged where collinear."""
    import ctypes

    import pypdfium2.raw as pdfium_c
    from pypdfium2 import PdfiumError

    from mineru_tui.pdf.pdfium import LOCK, kept_page_objects, unlocked

    path_kind = pdfium_c.FPDF_PAGEOBJ_PATH
    paths = [obj for kind, obj in kept_page_objects(page, max_depth=1) if kind == path_kind]
    if len(paths) > MAX_PATHS:
        return []
    found: list[Rule] = []
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    x, y = ctypes.c_float(), ctypes.c_float()
    left, bottom, right, top = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    m = pdfium_c.FS_MATRIX()
    fill_ref, stroke_ref, x_ref, y_ref = (ctypes.byref(v) for v in (fill, stroke, x, y))
    bounds_refs = [ctypes.byref(v) for v in (left, bottom, right, top)]
    m_ref = ctypes.byref(m)
    moveto, lineto = pdfium_c.FPDF_SEGMENT_MOVETO, pdfium_c.FPDF_SEGMENT_LINETO
    to_display, rect_to_display = page.to_display, page.rect_to_display
    with LOCK:  # PDFium held once for the page's paths, its functions called bare
        (draw_mode, get_bounds, get_matrix, count_segments, get_segment, segment_point,
         segment_type, segment_close) = unlocked(
            pdfium_c.FPDFPath_GetDrawMode, pdfium_c.FPDFPageObj_GetBounds,
            pdfium_c.FPDFPageObj_GetMatrix, pdfium_c.FPDFPath_CountSegments,
            pdfium_c.FPDFPath_GetPathSegment, pdfium_c.FPDFPathSegment_GetPoint,
            pdfium_c.FPDFPathSegment_GetType, pdfium_c.FPDFPathSegment_GetClose)
        for h in paths:
            if not draw_mode(h, fill_ref, stroke_ref):
                continue
            if not fill.value and not stroke.value:
                continue
            if not get_bounds(h, *bounds_refs):
                raise PdfiumError("Failed to locate pageobject.")
            box = rect_to_display(left.value, bottom.value, right.value, top.value)
            w, hgt = box[2] - box[0], box[3] - box[1]
            if max(w, hgt) < MIN_LENGTH:
                continue
            if hgt <= THIN:
                found.append(Rule(True, (box[1] + box[3]) / 2, box[0], box[2]))
                continue
            if w <= THIN:
                found.append(Rule(False, (box[0] + box[2]) / 2, box[1], box[3]))
                continue
            if not stroke.value:
                continue  # a filled area (shading, a figure): its edges are not drawn lines
            if not get_matrix(h, m_ref):
                continue
            n = count_segments(h)
            if n > 400:
                continue  # a curve-heavy drawing
            pts, start, prev = [], None, None
            for i in range(n):
                seg = get_segment(h, i)
                segment_point(seg, x_ref, y_ref)
                ux, uy = m.a * x.value + m.c * y.value + m.e, m.b * x.value + m.d * y.value + m.f
                p = to_display(ux, uy)
                kind = segment_type(seg)
                if kind == moveto:
                    start = p
                elif kind == lineto and prev is not None:
                    pts.append((prev, p))
                if segment_close(seg) and start is not None:
                    pts.append((p, start))
                prev = p
            for (x0, y0), (x1, y1) in pts:
                if abs(y1 - y0) <= 0.5 and abs(x1 - x0) >= MIN_LENGTH:
                    found.append(Rule(True, (y0 + y1) / 2, min(x0, x1), max(x0, x1)))
                elif abs(x1 - x0) <= 0.5 and abs(y1 - y0) >= MIN_LENGTH:
                    found.append(Rule(False, (x0 + x1) / 2, min(y0, y1), max(y0, y1)))
    return merge_rules(found)


def merge_rules(rules: list[Rule], tol: float = 1.5, gap: float = 2.0) -> list[Rule]:
    """Collinear rules that touch or overlap become one (a border drawn cell by cell)."""
    out: list[Rule] = []
    for horizontal in (True, False):
        group = sorted((r for r in rules if r.horizontal == horizontal), key=lambda r: (r.at, r.a))
        lines: list[list[Rule]] = []
        for r in group:
            if lines and abs(r.at - lines[-1][0].at) <= tol:
                lines[-1].append(r)
            else:
                lines.append([r])
        for line in lines:
            at = sum(r.at for r in line) / len(line)
            spans = sorted((r.a, r.b) for r in line)
            a, b = spans[0]
            for s, e in spans[1:]:
                if s <= b + gap:
                    b = max(b, e)
                else:
                    out.append(Rule(horizontal, at, a, b))
                    a, b = s, e
            out.append(Rule(horizontal, at, a, b))
    return out
