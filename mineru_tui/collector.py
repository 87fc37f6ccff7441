"""Python's cycle collector set for reading documents: it runs far less often.

A job makes millions of short-lived objects (characters, lines, pages loaded back from
disk, JSON pieces) and almost no reference cycles. At Python's threshold of 700 new objects
the collector ran ~600 times on a 300-page PDF at ``--effort low`` and walked what was alive
each time (0.18 CPU-s; 0.01 at 50,000). The few cycles wait a little longer; memory is not
changed by it. ``parse`` and the page probe's child that reads pages (``reader/whole_page.py``)
both use it.
"""

from __future__ import annotations

import gc

COLLECT_EVERY = 50_000  # new container objects between two young-generation collections


def collect_less() -> None:
    """Start the cycle collector after :data:`COLLECT_EVERY` new objects instead of 700 (a
    higher threshold already set is kept)."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, COLLECT_EVERY), middle, old)
