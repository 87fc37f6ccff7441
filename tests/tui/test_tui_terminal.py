"""The terminal is given back when the app dies (issue 29): ``mineru-tui watch`` runs in a
pseudo-terminal, the process drawing the app is killed (SIGKILL, SIGSEGV), and the
terminal has its echo and line editing back, the alternate screen and mouse modes are
turned off, and one line says what happened."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

DEADLINE = 120.0  # seconds to give up waiting (a loaded machine); never a pass condition


def _read_until(master: int, buf: bytearray, done) -> None:
    end = time.monotonic() + DEADLINE
    while not done() and time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                buf += os.read(master, 65536)
            except OSError:  # the other side closed
                return


def _app_process(top: int) -> int:
    """The process drawing the app: the command's child when it runs the app in one,
    else the command itself."""
    try:
        children = Path(f"/proc/{top}/task/{top}/children").read_text().split()
    except OSError:
        children = []
    return int(children[0]) if children else top


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGSEGV])
def test_the_terminal_is_restored_when_the_app_is_killed(tmp_path, how):
    folder = tmp_path / "in"
    folder.mkdir()
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    before = termios.tcgetattr(slave)
    assert before[3] & termios.ECHO and before[3] & termios.ICANON
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="80", LINES="24")
    top = subprocess.Popen([sys.executable, "-m", "mineru_tui", "watch", str(folder),
                            "-o", str(tmp_path / "out")],
                           stdin=slave, stdout=slave, stderr=slave, env=env,
                           start_new_session=True)
    out = bytearray()
    try:
        # the app has taken the terminal: alternate screen on and the files pane drawn
        _read_until(master, out, lambda: b"\x1b[?1049h" in out and b"Files" in out)
        assert b"\x1b[?1049h" in out, out[-2000:]
        assert not termios.tcgetattr(slave)[3] & termios.ECHO  # raw mode while it runs
        os.kill(_app_process(top.pid), how)
        seen = len(out)
        _read_until(master, out, lambda: top.poll() is not None)
        top.wait(timeout=DEADLINE)
        _read_until(master, out, lambda: b"restored" in out[seen:])
    finally:
        if top.poll() is None:
            top.kill()
            top.wait()
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    assert after[3] & termios.ECHO and after[3] & termios.ICANON, "echo and line editing back"
    tail = bytes(out[seen:])
    assert b"\x1b[?1049l" in tail and b"\x1b[?1000l" in tail and b"\x1b[?1006l" in tail
    assert b"\x1b[?25h" in tail  # the cursor shown
    assert f"the app was killed ({signal.Signals(how).name}); the terminal was restored" \
        in tail.decode(errors="replace").replace("\r", "")
    assert top.returncode == 128 + how


def test_q_still_quits_cleanly_through_the_guard(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    top = subprocess.Popen([sys.executable, "-m", "mineru_tui", "watch", str(folder),
                            "-o", str(tmp_path / "out")],
                           stdin=slave, stdout=slave, stderr=slave, env=env,
                           start_new_session=True)
    out = bytearray()
    try:
        _read_until(master, out, lambda: b"\x1b[?1049h" in out and b"Files" in out)
        os.write(master, b"q")
        _read_until(master, out, lambda: top.poll() is not None)
        top.wait(timeout=DEADLINE)
    finally:
        if top.poll() is None:
            top.kill()
            top.wait()
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    assert top.returncode == 0
    assert after[3] & termios.ECHO and b"killed" not in out
