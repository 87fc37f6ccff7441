"""The type of a chart, named as Excel's chart menu names it: "Column chart", "Pie chart",
"Bar / Line chart" (a combo), "Waterfall chart" (an extended ``cx:`` chart).

A chart part is the same ``c:chartSpace`` (or ``cx:chartSpace``) XML in Word, PowerPoint
and Excel files, so the docx, pptx and xlsx readers all name charts here and caption
them the same way ("Column chart: Sales"). Elements are matched by local name, so the
strict OOXML namespaces read like the transitional ones.
"""

from __future__ import annotations

from mineru_tui.office.package import local
from mineru_tui.document import Block, BlockType, Line, text_span

CX_NS = "http://schemas.microsoft.com/office/drawing/2014/chartex"

# Plot-area groups (``c:barChart``...) without their "Chart" suffix; bars are "Column"
# or "Bar" by their direction (c:barDir).
_GROUP_NAMES = {"bar": "Bar", "bar3D": "Bar", "line": "Line", "line3D": "Line", "pie": "Pie",
                "pie3D": "Pie", "ofPie": "Pie", "doughnut": "Doughnut", "area": "Area",
                "area3D": "Area", "scatter": "Scatter", "bubble": "Bubble", "radar": "Radar",
                "stock": "Stock", "surface": "Surface", "surface3D": "Surface"}
# Extended charts name their type in each cx:series' layoutId.
_CX_LAYOUT_NAMES = {"waterfall": "Waterfall", "treemap": "Treemap", "sunburst": "Sunburst",
                    "funnel": "Funnel", "boxWhisker": "Box & whisker",
                    "clusteredColumn": "Histogram", "paretoLine": "Pareto",
                    "regionMap": "Map"}


def _child(el, name: str):
    return next((k for k in el if local(k) == name), None) if el is not None else None


def group_kind(group) -> str | None:
    """The type name of one plot-area group ("Column" for a ``c:barChart`` with
    ``barDir="col"``), or None when the element is not a chart group."""
    tag = local(group)
    if not tag.endswith("Chart") or tag == "Chart":
        return None
    kind = tag[:-5]
    if kind in ("bar", "bar3D"):
        bar_dir = _child(group, "barDir")
        return "Column" if bar_dir is not None and bar_dir.get("val") == "col" else "Bar"
    return _GROUP_NAMES.get(kind, kind[:1].upper() + kind[1:])


def kind_label(names: list[str]) -> str:
    """ "Bar / Line chart" from the distinct type names in plot order ("" for none)."""
    return " / ".join(names) + " chart" if names else ""


def chart_kind(root) -> str:
    """The chart's type ("Column chart", "Bar / Line chart"), or "" when it names none.

    ``root`` is a chart part's ``c:chartSpace`` or ``cx:chartSpace`` element.
    """
    names: list[str] = []
    if root.tag == f"{{{CX_NS}}}chartSpace":
        for ser in root.iter(f"{{{CX_NS}}}series"):
            layout = ser.get("layoutId") or ""
            name = _CX_LAYOUT_NAMES.get(layout, layout[:1].upper() + layout[1:])
            if name and name not in names:
                names.append(name)
    else:
        plot = _child(_child(root, "chart"), "plotArea")
        for group in plot if plot is not None else ():
            name = group_kind(group)
            if name and name not in names:
                names.append(name)
    return kind_label(names)


def with_kind(block: Block, kind: str) -> Block:
    """Put the chart type before a chart table's caption: "Column chart: Sales", or a
    caption of its own ("Column chart") when the chart has no title."""
    if not kind:
        return block
    caps = [b for b in block.blocks if b.type == BlockType.TABLE_CAPTION]
    if caps and caps[0].lines:
        caps[0].lines[0].spans.insert(0, text_span(kind + ": "))
    else:
        block.blocks.insert(0, Block(BlockType.TABLE_CAPTION, lines=[Line([text_span(kind)])]))
    return block
