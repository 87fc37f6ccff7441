"""The line reader's optional C loops (``mineru_tui/pdf/_lineloop.c``, built by ``pip install``
where a C compiler is found) and the check each step of :mod:`.lines` and :mod:`.columns` makes
before handing them its glyphs.

The first step (:func:`.lines.compiled_lines`, which also gives the loops the rules' numbers)
makes the glyphs in C unless ``MINERU_TUI_PURE_LINES=1``; every later step takes the C path
only for glyphs made there, so one reading runs wholly in C or wholly in Python.
"""

from __future__ import annotations

try:
    from mineru_tui.pdf import _lineloop as loops
except ImportError:  # optional (setup.py): the Python loops give the same lines
    loops = None


def loops_for(glyphs):
    """The C loops when ``glyphs`` (a list) were made by them, else None."""
    if loops is not None and type(glyphs) is list and glyphs and type(glyphs[0]) is loops.Glyph:
        return loops
    return None
