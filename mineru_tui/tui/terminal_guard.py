"""The terminal given back even when the app dies.

The app puts the terminal in raw mode (no echo, no line editing), switches to the
alternate screen and turns mouse reporting on; Textual undoes all of it when the app
exits, even on an exception. A process killed by SIGKILL, or by SIGSEGV inside a C
library, undoes nothing: the shell comes back without echo and prints mouse escapes until
``reset``. No handler in the dying process can help (SIGKILL cannot be caught, and after a
segfault nothing is safe to run), so :func:`run_guarded` runs the app in a child process
and stays behind as its parent: it saves the terminal's modes before the child starts and,
when the child ends by a signal, puts them back, leaves the alternate screen, turns the
mouse modes off, shows the cursor and says in one line what happened.

The parent imports nothing heavy (no Textual); it forwards SIGTERM and SIGHUP to the app
(which quits cleanly on them) and ignores Ctrl-C (a key inside the app).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
from pathlib import Path

# Leave the alternate screen; mouse tracking (X10, button, any-event, SGR, urxvt) off;
# focus events, bracketed paste and the kitty keyboard protocol off; the cursor shown.
RESET = ("\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l"
         "\x1b[?1004l\x1b[?2004l\x1b[<u\x1b[?25h\x1b[0m")
FORWARDED = (signal.SIGTERM, signal.SIGHUP)


def run_guarded(config) -> int:
    """Run the app (``run_app(config)``) in a child process; restore the terminal if the
    child dies. Returns the child's exit code (128 + the signal when killed)."""
    import termios

    fd = sys.stdin.fileno() if sys.stdin is not None and sys.stdin.isatty() else None
    saved = termios.tcgetattr(fd) if fd is not None else None
    read, write = os.pipe()
    root = str(Path(__file__).resolve().parents[2])
    child = subprocess.Popen(
        [sys.executable, "-c",
         f"import sys; sys.path.insert(0, {root!r}); "
         "from mineru_tui.tui.terminal_guard import child_main; child_main()", str(read)],
        pass_fds=(read,))
    os.close(read)
    with os.fdopen(write, "wb") as pipe:
        pickle.dump(config, pipe)
    previous = {s: signal.signal(s, lambda signum, frame: _forward(child, signum))
                for s in FORWARDED}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code = _wait(child)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if code < 0:  # killed: nothing in the child restored the terminal
        restore(fd, saved)
        name = _signal_name(-code)
        print(f"error: the app was killed ({name}); the terminal was restored. Pages already "
              "read are kept: start `mineru-tui watch` again to go on", file=sys.stderr)
        return 128 - code
    return code


def restore(fd: int | None, saved) -> None:
    """Put the terminal modes ``saved`` back on ``fd`` and undo the app's screen modes."""
    import termios

    if fd is not None and saved is not None:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, saved)
        except termios.error:
            pass
    try:
        sys.stdout.write(RESET + "\n")
        sys.stdout.flush()
    except OSError:
        pass


def child_main() -> None:
    """The child: read the pickled config from the pipe named on its command line, run
    the app, exit with its code."""
    from mineru_tui import interrupts

    interrupts.install()
    with os.fdopen(int(sys.argv[1]), "rb") as pipe:
        config = pickle.load(pipe)
    from mineru_tui.tui.app import run_app

    sys.exit(run_app(config))


def _wait(child: subprocess.Popen) -> int:
    while True:
        try:
            return child.wait()
        except InterruptedError:  # a forwarded signal woke the wait
            continue


def _forward(child: subprocess.Popen, signum: int) -> None:
    try:
        child.send_signal(signum)
    except OSError:
        pass


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
