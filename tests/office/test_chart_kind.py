"""The chart type names the docx, pptx and xlsx readers share."""

from __future__ import annotations

from lxml import etree

from mineru_tui.document import BlockType, plain_text, table_block, text_block, text_span
from mineru_tui.office.chart_kind import chart_kind, group_kind, with_kind

C = "http://schemas.openxmlformats.org/drawingml/2006/chart"
STRICT_C = "http://purl.oclc.org/ooxml/drawingml/chart"
CX = "http://schemas.microsoft.com/office/drawing/2014/chartex"


def chart(groups: str, ns: str = C):
    return etree.fromstring(f'<c:chartSpace xmlns:c="{ns}"><c:chart><c:plotArea><c:layout/>'
                            f'{groups}<c:catAx/><c:valAx/></c:plotArea></c:chart></c:chartSpace>')


def test_plot_groups_are_named_as_excel_names_them():
    assert chart_kind(chart('<c:barChart><c:barDir val="col"/></c:barChart>')) == "Column chart"
    assert chart_kind(chart('<c:bar3DChart><c:barDir val="bar"/></c:bar3DChart>')) == "Bar chart"
    combo = '<c:barChart><c:barDir val="bar"/></c:barChart><c:lineChart/><c:line3DChart/>'
    assert chart_kind(chart(combo)) == "Bar / Line chart"  # each type once, in plot order
    assert chart_kind(chart("<c:ofPieChart/>", STRICT_C)) == "Pie chart"
    assert chart_kind(chart("")) == ""
    assert group_kind(etree.fromstring(f'<c:catAx xmlns:c="{C}"/>')) is None


def test_extended_charts_are_named_by_their_layout():
    root = etree.fromstring(f'<cx:chartSpace xmlns:cx="{CX}"><cx:chart><cx:plotArea>'
                            '<cx:plotAreaRegion><cx:series layoutId="waterfall"/>'
                            '<cx:series layoutId="boxWhisker"/></cx:plotAreaRegion>'
                            '</cx:plotArea></cx:chart></cx:chartSpace>')
    assert chart_kind(root) == "Waterfall / Box & whisker chart"


def test_with_kind_prefixes_the_caption_or_adds_one():
    titled = table_block(captions=[text_block([text_span("Sales")])])
    assert plain_text(with_kind(titled, "Column chart").blocks[0]) == "Column chart: Sales"
    bare = with_kind(table_block(), "Pie chart")
    assert (bare.blocks[0].type, plain_text(bare.blocks[0])) == (BlockType.TABLE_CAPTION,
                                                                 "Pie chart")
    assert len(with_kind(table_block(), "").blocks) == 1
