"""Ctrl-C and SIGTERM on real ``parse`` processes (issue 9): always 130/143, never a hidden
temporary folder, never a half-written set, even when a library swallows the interrupt."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mineru_tui.output import owned_set
from tests.cli_fixtures import ROOT

ENV = dict(os.environ, PYTHONPATH=str(ROOT))

_SWALLOW = """
import sys, time
from pathlib import Path
sys.path[:0] = [%r, %r]
import mineru_tui.office
from tests.cli_fixtures import fake_doc

class Holder:  # like ZipFile.__del__: an exception raised in __del__ is dropped by Python
    def __del__(self):
        print("READY", file=sys.stderr, flush=True)
        time.sleep(30)

def read(path, kind):
    print("READ", Path(path).name, file=sys.stderr, flush=True)
    if Path(path).name == "b.pptx":
        Holder()  # garbage at once: __del__ runs here and swallows the interrupt
        try:
            time.sleep(0.5)
        except BaseException:
            pass  # and a library that eats a second one in a bare except
    return fake_doc(path, kind)

mineru_tui.office.read_office = read
sys.argv = ["mineru-tui"] + sys.argv[1:]
from mineru_tui.__main__ import main
main()
"""


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_swallowed_interrupt_still_stops_the_batch(docs, tmp_path, sig, code):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", _SWALLOW % (str(ROOT), str(ROOT / "tests")), "parse",
         str(docs["a.docx"]), str(docs["b.pptx"]), str(docs["c.xlsx"]), "-o", str(out)],
        cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    line = ""
    while "READY" not in line and time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line and proc.poll() is not None:
            break
    assert "READY" in line
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert "READ c.xlsx" not in err  # the batch did not run on
    assert "Traceback" not in err and "Exception ignored" not in err
    assert "1 of 3 files done" in err
    assert sorted(p.name for p in out.iterdir()) == ["a"]  # b's result was not kept


def handlers_installed(pid: int) -> bool:
    """Whether the process catches SIGTERM (Python's own start-up catches only SIGINT)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # gone already
    caught = int(next(l for l in status.splitlines() if l.startswith("SigCgt:")).split()[1], 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_signals_at_random_moments(tmp_path):
    """A few dozen real runs, each sent SIGINT or SIGTERM at a random moment (~12 s).

    The moment is drawn after the handlers are in (mineru_tui.__main__ installs them first
    thing): a signal in the milliseconds before, while Python itself starts, is Python's
    (it dies by the signal, or "Fatal Python error" if it lands in its site import).
    """
    src = tmp_path / "src"
    src.mkdir()
    for i in range(8):
        (src / f"d{i:02}.docx").write_bytes((ROOT / "examples" / "sample.docx").read_bytes())
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "mineru_tui", "parse", str(src), "-o", str(out)]
    assert subprocess.run(cmd, cwd=ROOT, env=ENV, capture_output=True).returncode == 0
    rng = random.Random(9)
    end = time.monotonic() + 12
    trials = signalled = 0
    while time.monotonic() < end or trials < 10:
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        while not handlers_installed(proc.pid):
            time.sleep(0.001)
        time.sleep(rng.uniform(0, 0.35))
        if proc.poll() is None:
            proc.send_signal(sig)
            signalled += 1
        _, err = proc.communicate(timeout=30)
        trials += 1
        assert proc.returncode in (0, {signal.SIGINT: 130, signal.SIGTERM: 143}[sig]), err
        assert "Traceback" not in err, err
        assert [p.name for p in out.iterdir() if p.name.startswith(".")] == [], err
        for folder in out.iterdir():  # every set complete: ours, all files present
            assert owned_set(folder), folder
            assert (folder / f"{folder.name}.md").exists()
            assert (folder / f"{folder.name}_content_list.json").exists()
    assert trials >= 15 and signalled >= trials // 2, (signalled, trials)
    print(f"{trials} runs, {signalled} signalled")


# ---------------------------------------------------------------------------------------
# in-process: the deferral around the file-system work of write_outputs


@pytest.fixture
def handlers():
    """interrupts.install() in this process, undone afterwards."""
    from mineru_tui import interrupts

    saved = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM),
             sys.unraisablehook, interrupts._received, interrupts._installed)
    assert interrupts.install()
    yield interrupts
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])
    sys.unraisablehook = saved[2]
    interrupts._received, interrupts._installed = saved[3], saved[4]


def test_deferred_holds_the_signal_to_the_end_of_the_block(handlers):
    steps = []
    with pytest.raises(handlers.Terminated):
        with handlers.deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # the handler has run by now
            steps.append("after the signal")
    assert steps == ["after the signal"] and handlers.exit_code() == 143
    with pytest.raises(handlers.Terminated):
        handlers.check()  # remembered


@pytest.mark.parametrize("moment", ["temp folder made", "old set moved aside"])
def test_signal_inside_the_write_leaves_no_hidden_folder(handlers, tmp_path, monkeypatch,
                                                         moment):
    import mineru_tui.output as output
    from test_output_sets import doc_saying

    out = tmp_path / "out"
    first = output.write_outputs(doc_saying("first"), out, "x")
    real_mkdtemp, real_rename = output.tempfile.mkdtemp, output.os.rename

    def mkdtemp(*a, **k):
        path = real_mkdtemp(*a, **k)
        if moment == "temp folder made" and k.get("prefix") == output.TEMP_PREFIX:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
        return path

    def rename(src, dst):
        real_rename(src, dst)
        if moment == "old set moved aside" and Path(dst).name == "set":
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)

    monkeypatch.setattr(output.tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(output.os, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        output.write_outputs(doc_saying("second"), out, "x")
    assert [p.name for p in out.iterdir()] == ["x"]  # no .partial-/.old- folder
    text = (first.path / "x.md").read_text()
    # Held until the set was complete: the old one stays if the signal came before any file
    # was written (the write loop checks), the new one is in place once the swap began.
    assert text == ("first\n" if moment == "temp folder made" else "second\n")
    assert output.owned_set(first.path)


def test_first_ctrl_c_while_reading_pages_cancels_and_is_remembered(handlers):
    import threading

    flag = threading.Event()
    flag.armed = True
    with handlers.cancelling(flag):
        os.kill(os.getpid(), signal.SIGINT)  # first: only asks the page reader to stop
        time.sleep(0.01)
        assert flag.is_set()
        with pytest.raises(KeyboardInterrupt):  # second: at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
    assert handlers.exit_code() == 130  # a reader that ignored the flag still ends the run


# A signal arriving while a class is created: Python 3.11 wraps the handler's exception,
# raised inside ``__set_name__``, in a RuntimeError (a dataclass's fields call it).
_WRAPPED = r"""
import os, signal, sys

class Field:
    def __set_name__(self, owner, name):
        os.kill(os.getpid(), signal.SIGTERM)  # the handler raises here, inside __set_name__
        for _ in range(1000):  # give it a bytecode boundary to run at
            pass

def make_class():
    type("Made", (), {"field": Field()})

if sys.argv[1] == "start-up":  # while the CLI module is imported
    import importlib.abc

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "mineru_tui.cli":
                make_class()
            return None

    sys.meta_path.insert(0, Finder())
    from mineru_tui.__main__ import main
    main()
else:  # while a command runs
    from mineru_tui import cli, interrupts

    interrupts.install()
    cli.app = lambda **kw: make_class()
    cli.main()
"""


@pytest.mark.parametrize("where", ["start-up", "command"])
def test_an_interrupt_wrapped_by_python_still_ends_with_its_code(where):
    r = subprocess.run([sys.executable, "-c", _WRAPPED, where], cwd=ROOT, env=ENV,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 143, r.stderr
    assert r.stderr == "terminated\n"
