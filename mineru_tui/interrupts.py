"""Ctrl-C and SIGTERM for the commands: remembered, never lost, deferred where it matters.

Python turns SIGINT into a ``KeyboardInterrupt`` raised wherever the main thread happens
to be. Code we do not control can swallow it: an exception inside ``ZipFile.__del__`` is
printed and dropped, and a library's ``finally`` or ``except BaseException`` can turn it
into something else. So the handlers installed by :func:`install` also *remember* the
signal, and the batch asks :func:`received` between files: once a signal came, the run
stops with 130 (SIGINT) or 143 (SIGTERM) whatever happened to the exception.

:func:`deferred` holds the signals off for a short stretch that must not be cut in half
(building an output folder and renaming it into place, or removing a temporary folder):
a signal arriving inside is raised when the stretch ends.

Nothing here is active until :func:`install` is called (the CLI does it first thing);
library users and other threads see Python's default behaviour, and :func:`deferred` is
then a no-op.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


class Terminated(BaseException):
    """Raised by the SIGTERM handler so a run can clean up as on Ctrl-C."""


EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}

_received: int | None = None  # the first signal received since install()
_installed = False
_local = threading.local()  # per thread: deferral depth and a signal held back


def install() -> bool:
    """Handle SIGINT and SIGTERM as described above; False outside the main thread.

    Calling it again keeps what was received so far.
    """
    global _installed
    try:
        signal.signal(signal.SIGINT, _handler)
        signal.signal(signal.SIGTERM, _handler)
    except (ValueError, OSError):  # not the main thread
        return False
    _installed = True
    return True


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return _installed and signal.getsignal(signal.SIGINT) is _handler


def received() -> int | None:
    """The signal number received since :func:`install`, or None."""
    return _received


def exit_code() -> int | None:
    """130 or 143 when a signal was received, else None."""
    return EXIT_CODES.get(_received) if _received is not None else None


def check() -> None:
    """Raise the interrupt again if one was received (and maybe swallowed) earlier."""
    if _received is not None:
        raise _exception(_received)


@contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT/SIGTERM off inside the block; raise the held one when it ends.

    Only the signal handlers run by :func:`install` are held; keep the block short (file
    system work, no reading or rendering).
    """
    depth = getattr(_local, "depth", 0)
    _local.depth = depth + 1
    try:
        yield
    finally:
        _local.depth = depth
        pending = getattr(_local, "pending", None)
        if depth == 0 and pending is not None:
            _local.pending = None
            raise _exception(pending)


def _handler(signum: int, frame) -> None:
    global _received
    if _received is None:
        _received = signum
    if getattr(_local, "depth", 0):  # the handler runs in the main thread: its deferral
        _local.pending = signum
        return
    raise _exception(signum)


def _exception(signum: int) -> BaseException:
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
