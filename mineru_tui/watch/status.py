"""The one vocabulary of where a file (or a page) stands, shared by the watcher and the app.

The reader process reports a :class:`Status`, the manifest stores it, the service emits it in
``FileFinished`` and the app shows it: one set of words, so no layer translates another's.
A ``Status`` is a ``str`` (``Status.DONE == "done"``), so the manifest's JSON and events pickled
between processes carry plain words; :attr:`Status.label` is what a person reads.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """Where a file or page stands. Files: queued → reading → one of the finished ones."""

    QUEUED = "queued"
    READING = "reading"
    DONE = "done"
    EMPTY = "empty"  # read and gave no text (a page, or every page of a file): shown with why
    FAILED = "failed"
    SKIPPED = "skipped"  # not a document
    NEEDS_MODEL = "needs-model"  # a page file and no model (or server) to read it with
    CANCELLED = "cancelled"

    @property
    def label(self) -> str:
        """The word shown on screen (never an internal one such as ``needs-model``)."""
        return _LABELS.get(self, self.value)

    @property
    def finished(self) -> bool:
        """A file in this state is not read again until it changes or ``r`` is pressed."""
        return self not in (Status.QUEUED, Status.READING)


_LABELS = {Status.NEEDS_MODEL: "model needed"}

# What the manifest keeps (a file done, or one that could not be read and why).
KEPT = (Status.DONE, Status.FAILED, Status.NEEDS_MODEL)


def label(status: str) -> str:
    """The on-screen word of a status given as a plain string (unknown words as they are)."""
    try:
        return Status(status).label
    except ValueError:
        return status
