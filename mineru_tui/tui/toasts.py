"""The app's notifications: one toast when a batch of files settles, one per failure.

Dropping 12 files used to stack 12 toasts over half the screen; now each failure pops up
when it happens and the rest is said once, when nothing is queued or read any more:
"12 done (2 with warnings), 1 failed — type / failed to list them".
"""

from __future__ import annotations

from mineru_tui.tui.state import Board, FileRow
from mineru_tui.watch.status import Status


class SettleCount:
    """One toast per batch settle: files that finish are counted while others are still
    queued or read, and said in one line when the queue is empty ("12 done, 1 failed");
    each failure also gets its own toast when it happens. Files known from an earlier run
    (their verdict has a note) are not news."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.last = ""  # the one file's line, when the batch was one file

    def toasts(self, board: Board, finished: list) -> list[tuple[str, str]]:
        out = []
        for e in finished:
            if e.note or e.status == Status.SKIPPED:
                continue
            row = board.files.get(e.path)
            if row is None:
                continue
            label = "done ⚠" if row.label in ("done ⚠", "done, empty") else row.label
            self.counts[label] = self.counts.get(label, 0) + 1
            self.last = file_toast(row)[1]
            if e.status in (Status.FAILED, Status.NEEDS_MODEL):
                out.append(file_toast(row))
        busy = any(r.status in (Status.QUEUED, Status.READING) for r in board.files.values())
        if self.counts and not busy:
            n = sum(self.counts.values())
            failed = n - self.counts.get("done", 0) - self.counts.get("done ⚠", 0)
            if n == 1:
                out += [] if failed else [("information" if self.level_ok else "warning",
                                           self.last)]
            else:
                out.append(("warning" if failed else "information", self.summary()))
            self.counts, self.last = {}, ""
        return out

    @property
    def level_ok(self) -> bool:
        return "done ⚠" not in self.counts

    def summary(self) -> str:
        """ "12 done (2 with warnings), 1 failed — type / failed to list them"."""
        c = dict(self.counts)
        warned = c.pop("done ⚠", 0)
        done = c.pop("done", 0) + warned
        parts = [f"{done} done" + (f" ({warned} with warnings)" if warned else "")] if done \
            else []
        parts += [f"{v} {k}" for k, v in c.items()]
        bad = [k for k in c if k != "cancelled"]
        return ", ".join(parts) + (f" — type / {bad[0].split()[0]} to list them" if bad else "")


def file_toast(row: FileRow) -> tuple[str, str]:
    """One file's toast: its verdict and the first thing to know about it."""
    if row.status == Status.DONE:
        warn = row.warning_line()
        if warn:
            return "warning", f"{row.name}: {row.label}: {warn}"
        return "information", f"{row.name}: done" + (f" ({row.pages_total} pages)"
                                                    if row.pages_total > 1 else "")
    level = "error" if row.status == Status.FAILED else "warning"
    return level, f"{row.name}: {row.label}: {row.reason}"
