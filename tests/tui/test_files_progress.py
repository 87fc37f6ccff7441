"""The Files pane's progress cell fits its column: a 100-page (or 1,000-page) file being read
shows its whole count ("14/100"), never one cut to "14/10" by the column's width."""
from __future__ import annotations

import pytest

from mineru_tui.tui.state import READING, FileRow, PageRow
from mineru_tui.watch.status import Status
from mineru_tui.tui.widgets.tables import PROGRESS_WIDTH, _progress


@pytest.mark.parametrize("done,total", [(3, 8), (14, 100), (99, 100), (512, 1000), (9999, 10000)])
def test_the_reading_count_fits_the_column_whole(done, total):
    row = FileRow("/w/big.pdf", "big.pdf", status=READING, pages_total=total)
    row.pages = {n: PageRow(n, status=READING if n == done else Status.DONE) for n in range(done + 1)}
    cell = _progress(row)
    assert cell.plain.endswith(f" {done}/{total}")
    assert cell.cell_len <= PROGRESS_WIDTH
    assert cell.plain[0] in "█▏▎▍▌▋▊▉·"  # a bar is still drawn, narrower when the count is long
