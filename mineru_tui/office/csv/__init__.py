"""CSV and TSV files read as one table (see :mod:`.reader`)."""

from mineru_tui.office.csv.reader import read_csv

__all__ = ["read_csv"]
