"""llama-server's child dies with its owner even when the owner dies during the fork."""
from __future__ import annotations

import functools
import os
import subprocess
import sys

import pytest

from mineru_tui.engines.llama_cpp import _die_with_parent

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")


def test_a_child_whose_parent_is_already_gone_exits_before_exec():
    # The race: the owner dies after fork, before the child's prctl; the kernel then never
    # sends the signal. The child sees a parent that is not the one it was forked for and exits.
    not_our_pid = os.getpid() + 4_000_000  # no process has this pid (pid_max is 4,194,304)
    child = subprocess.Popen(["sleep", "60"], preexec_fn=functools.partial(_die_with_parent, not_our_pid))
    try:
        assert child.wait(timeout=60) == 1
    finally:
        if child.poll() is None:
            child.kill()


def test_a_child_of_a_living_parent_runs():
    child = subprocess.Popen([sys.executable, "-c", "print('ran')"], stdout=subprocess.PIPE, text=True,
                             preexec_fn=functools.partial(_die_with_parent, os.getpid()))
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0 and out.strip() == "ran"
