"""Page images go back to the system when freed, so memory stays flat over a long file.

A page image is 10-30 MB (200 dpi). glibc's ``malloc`` serves blocks that large from their
own mapping and unmaps them on free, but it then raises that threshold to the size of the
block freed (up to 32 MiB), so from the second page on every page image is carved from the
heap; the small objects a page leaves behind (its blocks, a picture's crop) pin the heap's
top, and the process grows by a page's worth of freed-but-kept memory every few pages
(measured: ~0.7 MB a page on the scripted model path, 203 MB at 100 pages, 270 MB at 200).
Fixing the threshold at 1 MiB keeps page-sized buffers in mappings of their own.
"""

from __future__ import annotations

import platform

MMAP_THRESHOLD = 1 << 20  # bytes: page images, crops' buffers and bitmaps are far larger
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
_done = False


def keep_large_blocks_mapped() -> None:
    """Fix glibc's mmap threshold for this process (once; nothing elsewhere)."""
    global _done
    if _done:
        return
    _done = True
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    except (OSError, AttributeError):  # no such library or symbol: the default stays
        pass
