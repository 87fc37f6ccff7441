"""How the app shows Markdown (no app needed)."""

from __future__ import annotations


def test_html_tables_are_shown_as_pipe_tables():
    from mineru_tui.tui.md_display import for_display

    html = ('<table><tr><th colspan="2">Revenue | kEUR</th></tr><tr><td rowspan="2">EU</td>'
            '<td>1</td></tr><tr><td>2</td></tr></table>')
    shown = for_display(f"before\n\n{html}\n\nafter")
    assert "<table" not in shown and shown.startswith("before") and shown.endswith("after")
    assert "| Revenue \\| kEUR |  |\n|---|---|\n| EU | 1 |\n|  | 2 |" in shown
    assert for_display("no table here") == "no table here"
