"""The one owner of PDFium in a process: every pypdfium2 call goes through one lock.

PDFium is not thread-safe: two calls into it at the same moment from two threads — even on
two different documents — corrupt its heap (the app died with SIGSEGV/SIGTRAP inside
``libpdfium.so`` while one thread rendered a page preview and another read a page). So:

* :func:`load` returns ``pypdfium2`` with every function of ``pypdfium2.raw`` wrapped to run
  under :data:`LOCK` — the modules that call PDFium directly (characters, fonts, rules,
  links, classification) and pypdfium2's own helpers (rendering, text pages, the finalizers
  that close handles when the garbage collector runs in any thread) all look those
  functions up on that module, so no call escapes the lock;
* :func:`owned` holds the same (re-entrant) lock over a whole call chain — open, render and
  free a bitmap, make a text page, close — so no other thread's call falls between them.

The lock is held only while PDFium works, never while the model reads a page. Processes
own their PDFium: the page probe's child (:mod:`.probe`) has its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Iterator

LOCK = threading.RLock()
_installed = False


def _locked(function):
    def call(*args):
        with LOCK:
            return function(*args)

    call.__name__ = getattr(function, "__name__", "pdfium_call")
    call.__wrapped__ = function
    return call


def load():
    """``pypdfium2``, with every raw PDFium function called under :data:`LOCK`."""
    global _installed
    import pypdfium2
    import pypdfium2.raw as raw

    if not _installed:
        with LOCK:
            if not _installed:
                for name, value in list(vars(raw).items()):
                    if isinstance(value, ctypes._CFuncPtr):  # a C function of libpdfium
                        setattr(raw, name, _locked(value))
                _installed = True
    return pypdfium2


@contextlib.contextmanager
def owned() -> Iterator[None]:
    """Hold PDFium for a whole call chain (re-entrant: nested chains are fine)."""
    with LOCK:
        yield
