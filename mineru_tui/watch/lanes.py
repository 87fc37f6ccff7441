"""A lane: a queue of files and the reader process that works through it, one at a time.

The watch service runs two lanes: ``office`` (milliseconds per file) and ``pages`` (seconds
to minutes per page), so an Office file never waits behind a page being decoded. Each lane
has a dispatcher thread in this process and a long-lived reader process
(:mod:`mineru_tui.watch.worker`); events come back over a pipe and are handed to
``on_event`` as they arrive.

Why processes and not threads: a thread running an engine that holds the GIL (Core ML's
``predict`` does, for a whole forward pass) stops every other Python thread, the UI's event
loop included. A process cannot; ``bench/watch_latency.py`` measures the difference.
"""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from mineru_tui.errors import internal_error
from mineru_tui.watch.status import Status
from mineru_tui.watch.worker import Job, Result, Setup

KILL_AFTER = 5.0  # seconds a cancelled job may take to stop before its process is killed
_ids = itertools.count(1)


@dataclass
class Task:
    """A file waiting in a lane."""

    path: str
    stem: str
    sha: str
    why: str
    effort: str = ""  # read this file at this effort ("" = the watch's own)


class Lane:
    """One queue + one reader process. ``on_result(task, result)`` runs in the lane's thread."""

    def __init__(self, name: str, setup: Setup, out_dir: str, gate: threading.Event,
                 on_event: Callable[[object], None], on_result: Callable[[Task, Result], None],
                 on_log: Callable[[str], None] = lambda line: None):
        self.name = name
        self.setup = setup
        self.out_dir = out_dir
        self.gate = gate  # set = running, clear = paused (checked between files)
        self.on_event, self.on_result, self.on_log = on_event, on_result, on_log
        self._tasks: deque[Task] = deque()
        self._cond = threading.Condition()
        self._stopping = False
        self._proc: subprocess.Popen | None = None
        self._write_lock = threading.Lock()
        self.current: Task | None = None
        self.kill_after = KILL_AFTER
        self._current_job: Job | None = None
        self._thread = threading.Thread(target=self._dispatch, name=f"mineru-lane-{name}",
                                        daemon=True)

    # -- control (any thread) -------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def submit(self, task: Task) -> None:
        with self._cond:
            self._tasks.append(task)
            self._cond.notify()

    def queued(self) -> list[str]:
        with self._cond:
            return [t.path for t in self._tasks]

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def cancel_current(self) -> bool:
        """Ask the reader to stop the file it is on (between tokens); kill it if it does not."""
        job = self._current_job
        if job is None:
            return False
        self._send(("cancel", job.id))
        timer = threading.Timer(self.kill_after, self._kill_if_still, args=(job.id,))
        timer.daemon = True
        timer.start()
        return True

    def stop(self, timeout: float = KILL_AFTER) -> None:
        """Stop after the current file (cancelled between tokens); the queue is dropped."""
        with self._cond:
            self._stopping = True
            self._tasks.clear()
            self._cond.notify_all()
        self.cancel_current()
        self._send(("quit",))
        self._thread.join(timeout=timeout)
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.wait(timeout=max(0.5, timeout / 2))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    # -- the dispatcher thread ----------------------------------------------------------------
    def _dispatch(self) -> None:
        while True:
            with self._cond:
                while not self._stopping and not (self._tasks and self.gate.is_set()):
                    self._cond.wait(timeout=0.5)
                if self._stopping:
                    return
                task = self._tasks.popleft()
                self.current = task
            try:
                result = self._run(task)
            except Exception as e:  # never let the lane die
                result = Result(Status.FAILED, reason=internal_error(f"the {self.name} lane", e))
            self.current = None
            self._current_job = None
            try:
                self.on_result(task, result)
            except Exception as e:
                self.on_log(f"{self.name} lane: {type(e).__name__}: {e}")

    def _run(self, task: Task) -> Result:
        proc = self._ensure_process()
        job = Job(next(_ids), task.path, self.out_dir, task.stem, effort=task.effort)
        self._current_job = job
        if not self._send(("job", job)):
            return self._died(proc)
        while True:
            try:
                msg = pickle.load(proc.stdout)
            except (EOFError, OSError, pickle.UnpicklingError):
                return self._died(proc)
            if msg[0] == "event":
                self.on_event(msg[1])
            elif msg[0] == "engine":
                from mineru_tui.watch.events import EngineReady
                self.on_event(EngineReady(msg[1], msg[2]))
            elif msg[0] == "result" and msg[1] == job.id:
                return msg[2]

    def _died(self, proc: subprocess.Popen) -> Result:
        try:
            code = proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        self._proc = None
        if self._stopping:
            return Result(Status.CANCELLED, reason="stopped")
        if code in (-9, -15) and self._killed_for_cancel:
            self._killed_for_cancel = False
            return Result(Status.CANCELLED, reason="cancelled (the reader did not stop in time and "
                                              "was restarted)")
        return Result(Status.FAILED, reason=f"the reader process stopped (exit code {code}); "
                                       f"it is restarted for the next file")

    _killed_for_cancel = False

    def _kill_if_still(self, job_id: int) -> None:
        job, proc = self._current_job, self._proc
        if job is not None and job.id == job_id and proc is not None and proc.poll() is None:
            self._killed_for_cancel = True
            proc.kill()

    def _ensure_process(self) -> subprocess.Popen:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        # -P: the worker comes from this installation, not from a mineru_tui/ folder in the
        # working directory (python -m puts it first on the path otherwise)
        proc = subprocess.Popen([sys.executable, "-P", "-m", "mineru_tui.watch.worker"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env, start_new_session=True)
        self._proc = proc
        threading.Thread(target=self._pump_stderr, args=(proc,), daemon=True,
                         name=f"mineru-lane-{self.name}-stderr").start()
        self._send(("setup", self.setup))
        return proc

    def _pump_stderr(self, proc: subprocess.Popen) -> None:
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()
            if line:
                self.on_log(f"{self.name} reader: {line}")

    def _send(self, msg) -> bool:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return False
        with self._write_lock:
            try:
                pickle.dump(msg, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
                proc.stdin.flush()
                return True
            except (BrokenPipeError, OSError, ValueError):
                return False
