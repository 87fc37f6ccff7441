"""Page probe children that misbehave on purpose (tests/reader/test_whole_page.py runs them as
``python -m tests.reader.probe_children``): what the reading process does with a child that
never answers, dies after the load passed, or answers something else.

``PROBE_CHILD_ACT`` says what the child does on page ``PROBE_CHILD_PAGE`` (0-based, default
1): ``silent`` (never answers the load), ``die`` (SIGKILL after the load's ``ok``),
``memory`` (a MemoryError while reading), ``garbage`` (a line that is not a page),
``not a page`` (bytes that are not one), ``slow`` (its load takes ``SLOW_SECONDS`` more). Every other page is loaded and read as the real
child does."""

from __future__ import annotations

import os
import signal
import sys
import time

from mineru_tui.pdf import probe_child
from mineru_tui.reader import whole_page

ACT = os.environ.get("PROBE_CHILD_ACT", "")
PAGE = int(os.environ.get("PROBE_CHILD_PAGE", "1"))
SLOW_SECONDS = 2.0


def _read(page, ordinal: int, reading: dict) -> bytes:
    act = ACT if page.index == PAGE else ""
    if act == "die":  # after the load's "ok": as a reading that went over the memory limit
        os.kill(os.getpid(), signal.SIGKILL)
    if act == "memory":
        raise MemoryError
    if act == "garbage":
        sys.stdout.buffer.write(b"something else\n")
        sys.stdout.buffer.flush()
        time.sleep(60)  # the reading process stops it
    if act == "not a page":
        return b"\x80\x04K\x01."  # a pickle of the number 1
    return whole_page._serve(page, ordinal, reading)


def _silent() -> None:
    sys.stdin.readline()  # the setup
    sys.stdin.readline()  # a question, never answered
    time.sleep(60)  # the reading process stops it


def _slow_loads() -> None:
    """Page ``PAGE``'s load (before the child answers it) takes SLOW_SECONDS more."""
    from mineru_tui.pdf import reader

    class SlowPage(reader.PdfPage):
        def __init__(self, doc, index, raw=None):
            if index == PAGE:
                time.sleep(SLOW_SECONDS)
            super().__init__(doc, index, raw)

    reader.PdfPage = SlowPage  # what probe_child makes of each page it loads


if __name__ == "__main__":
    if ACT == "silent":
        _silent()
    elif ACT == "slow":
        _slow_loads()
        probe_child.main(_read)
    else:
        probe_child.main(_read)
