"""Excel (.xlsx, .xlsm, .xltx): :func:`read_xlsx` reads every sheet as a table.

``reader`` lays sheets out as tables; ``parts`` reads the workbook, styles and shared
strings; ``sheet`` streams one worksheet's cells; ``drawing`` reads pictures and charts
anchored on a sheet; ``richdata`` reads pictures placed in cells.
"""

from mineru_tui.office.xlsx.reader import read_xlsx

__all__ = ["read_xlsx"]
