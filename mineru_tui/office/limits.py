"""Every bound of the document readers in one place, with what it allows (measured).

``docs/office-limits.md`` prints this table; a reader imports its bound from here rather
than writing the number again. Memory figures are peak RSS of ``parse FILE -o OUT`` on the
worst crafted input for the bound (``bench/web_limits.py``), on the shared 2-core machine.
"""

from __future__ import annotations

# -- pictures (office/pictures.py) ------------------------------------------------------
MAX_PICTURE_BYTES = 64 << 20  # one picture, copied (never decoded)
MAX_PICTURES_BYTES = 256 << 20  # one document's pictures together (web pages, books, archives)

# -- tables -----------------------------------------------------------------------------
MAX_TABLE_CELLS = 250_000  # cells written per table (empty ones included), every format
MAX_TABLE_DEPTH = 64  # tables in cells of tables (RTF's \itap); deeper ones join the 64th

# -- HTML, MHTML, EPUB (office/html, office/epub) ---------------------------------------
MAX_HTML_BYTES = 32 << 20  # one HTML page (or an MHTML's page, an EPUB chapter's bytes)
MAX_ELEMENTS = 500_000  # elements of one parsed tree: about 0.4 KB each in memory
MAX_PIECES = 250_000  # elements walked and text pieces kept per document: ~5 KB each,
#                       through the three outputs (1.7 GB at most, the measured worst)
MAX_NESTING = 160  # elements deep read as structure; deeper as plain text
EPUB_BUDGET = 64 << 20  # XHTML and XML parsed per book, the navigation document included
MAX_MHTML_BYTES = 256 << 20  # the whole web archive, pictures included
MAX_MHTML_PARTS = 20_000

# -- CSV/TSV (office/csv) ---------------------------------------------------------------
MAX_CSV_CELLS = 250_000
MAX_CSV_FIELD = 1 << 20  # characters of one field; checked while the field is read
MAX_CSV_LINE = 16 << 20  # characters of one line, read before the csv module sees it
MAX_CSV_SEPARATORS = 4 * MAX_CSV_CELLS  # separators and line ends fed to the csv module:
#                                         no row can hold more fields than this

# -- DOC (office/doc) -------------------------------------------------------------------
# Characters a document may have, counted from the piece table before decoding. `parse -o`
# costs about 157 bytes and 2.5 µs CPU a character of short paragraphs (6.9 M characters:
# 17 s, 1.08 GB), so 10 M stays near 25 s and 1.6 GB (docs/hostile-inputs.md).
MAX_DOC_CHARS = 10_000_000

# -- RTF (office/rtf) -------------------------------------------------------------------
MAX_RTF_BYTES = 256 << 20  # the file (hex pictures are cheap: one token per run)
MAX_RTF_PARAGRAPHS = 250_000  # paragraphs and cells read (\par, \cell): ~3.5 KB each
MAX_RTF_TOKENS = 20_000_000  # control words and text runs: ~0.7 µs each, ~15 s in all
MAX_RTF_GROUP_DEPTH = 2_000
