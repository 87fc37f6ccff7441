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
import sys
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
    if not _installed:
        sys.unraisablehook = _quiet_unraisable(sys.unraisablehook)
    _installed = True
    return True


def _quiet_unraisable(previous):
    """Python prints an exception raised in ``__del__`` and drops it; ours is remembered
    (see :func:`received`), so its "Exception ignored" traceback is left out."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated)):
            return
        previous(unraisable)

    return hook


def ignore() -> None:
    """Ignore SIGINT/SIGTERM from now on (the run is over; what was received is kept).

    Without this, a signal arriving while Python shuts down finds the default action
    restored and kills the process (exit -2/-15 instead of the run's own code).
    """
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):
            pass


def exit_now(code: int) -> None:
    """Run the ``atexit`` functions, flush stdout/stderr and end the process with ``code``.

    Used after an interrupt: CPython remembers a KeyboardInterrupt that went through
    ``exec`` of a string (dataclass and namedtuple creation do that) and, at the end of a
    normal exit, kills itself with SIGINT instead of returning our code.
    """
    import atexit
    import os

    try:  # what a normal exit would run (an engine stopping its server, for one)
        getattr(atexit, "_run_exitfuncs", lambda: None)()
    except BaseException:  # noqa: BLE001 - exiting anyway
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return _installed and signal.getsignal(signal.SIGINT) is _handler


def received() -> int | None:
    """The signal number received since :func:`install`, or None."""
    return _received


def exit_code() -> int | None:
    """130 or 143 when a signal was received, else None."""
    return EXIT_CODES.get(_received) if _received is not None else None


def held() -> bool:
    """Whether a signal is being held off by :func:`deferred` in this thread."""
    return getattr(_local, "pending", None) is not None


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


@contextmanager
def cancelling(flag) -> Iterator[None]:
    """Inside the block the first Ctrl-C only sets ``flag`` (a ``threading.Event``; while its
    ``armed`` attribute, if any, is true): the page reader then stops between two tokens and
    hands back its finished pages. A second Ctrl-C, or SIGTERM, is handled as usual."""
    previous = getattr(_local, "cancel", None)
    _local.cancel = flag
    try:
        yield
    finally:
        _local.cancel = previous


def _handler(signum: int, frame) -> None:
    global _received
    flag = getattr(_local, "cancel", None)
    first = _received is None
    if first:
        _received = signum  # remembered even when only the flag is set: the run stops
    if (signum == signal.SIGINT and flag is not None and getattr(flag, "armed", True)
            and not flag.is_set() and first):
        flag.set()
        return
    if getattr(_local, "depth", 0):  # the handler runs in the main thread: its deferral
        _local.pending = signum
        return
    raise _exception(signum)


def _exception(signum: int) -> BaseException:
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
