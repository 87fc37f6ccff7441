"""The garbage collector paused while one page's text layer is read.

Reading a page makes tens of thousands of small objects (characters, glyphs, lines) and no
reference cycles; each 700 of them start a collection, and every tenth of those walks
the older objects too (the document read so far), so on a long PDF the collector cost
more than a tenth of ``--effort low``. Paused over one page, it runs once when the page is
done and sees only what the page kept.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic garbage collection for the block (nested or concurrent use is fine:
    only the outermost pause that found it running turns it back on)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
