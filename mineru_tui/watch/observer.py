"""The watchdog observer: native events where they work, polling where they do not.

Native observers (inotify, FSEvents, ReadDirectoryChangesW) see nothing on network file
systems, and inotify fails outright when the per-user watch or instance limit is reached.
:func:`start_observer` picks polling for ``--poll``, for a folder on a network file system
(Linux: from ``/proc/mounts``), and when the native observer cannot start; the two automatic
cases are reported through ``notice`` so the user sees why changes appear a little later.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler

POLL_SECONDS = 2.0
NETWORK_FS = frozenset({"nfs", "nfs4", "cifs", "smbfs", "smb3", "afpfs", "fuse.sshfs", "sshfs",
                        "9p", "davfs", "fuse.davfs2", "fuse.rclone", "ncpfs", "afs", "virtiofs",
                        "fuse.gcsfuse", "fuse.s3fs"})
LIMIT_ERRNOS = (errno.ENOSPC, errno.EMFILE, errno.ENFILE)  # inotify watch / instance limits


class _Handler(FileSystemEventHandler):
    """Turns watchdog events into ``on_file(path)`` / ``on_dir(path)`` calls, never raising
    (an exception in a handler kills watchdog's dispatcher thread)."""

    def __init__(self, on_file: Callable[[Path], None], on_dir: Callable[[Path], None],
                 on_error: Callable[[str], None]):
        self.on_file, self.on_dir, self.on_error = on_file, on_dir, on_error

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            if event.event_type in ("deleted", "opened", "closed_no_write"):
                return
            path = event.dest_path if event.event_type == "moved" else event.src_path
            if isinstance(path, bytes):
                path = os.fsdecode(path)
            if event.is_directory:
                if event.event_type in ("created", "moved"):
                    self.on_dir(Path(path))  # a folder moved in brings files without events
            else:
                self.on_file(Path(path))
        except Exception as e:
            self.on_error(f"watch event {event!r}: {type(e).__name__}: {e}")


def network_fs_type(path: Path, mounts_file: Path = Path("/proc/mounts")) -> str | None:
    """The file system type of ``path`` when it is a network one (Linux only), else None."""
    try:
        with open(mounts_file, encoding="utf-8") as f:
            mounts = [line.split()[:3] for line in f]
    except OSError:
        return None
    best, fstype = "", ""
    target = str(path)
    for fields in mounts:
        if len(fields) < 3:
            continue
        mount = fields[1].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) > len(best):
            best, fstype = mount, fields[2]
    return fstype if fstype in NETWORK_FS else None


def start_observer(root: Path, on_file: Callable[[Path], None], on_dir: Callable[[Path], None],
                   *, poll: bool = False, notice: Callable[[str], None] = lambda s: None,
                   on_error: Callable[[str], None] = lambda s: None,
                   native_factory: Callable | None = None):
    """Start a recursive observer on ``root``; return ``(observer, mode)``, mode being
    ``"native"`` or ``"polling"``."""
    from watchdog.observers import Observer
    from watchdog.observers.polling import PollingObserver

    handler = _Handler(on_file, on_dir, on_error)
    if not poll:
        fs = network_fs_type(root)
        if fs:
            notice(f"{root} is on a network file system ({fs}): polling every "
                   f"{POLL_SECONDS:g} s instead of native events")
            poll = True
    if not poll:
        observer = (native_factory or Observer)()
        try:
            observer.schedule(handler, str(root), recursive=True)
            observer.start()
            return observer, "native"
        except OSError as e:
            _quiet_stop(observer)
            if e.errno in LIMIT_ERRNOS:
                notice(f"the system's limit on watched folders is reached ({e.strerror or e}): "
                       f"polling every {POLL_SECONDS:g} s instead (raise "
                       f"fs.inotify.max_user_watches / max_user_instances to use native events)")
            else:
                notice(f"native file events are not available here ({e.strerror or e}): "
                       f"polling every {POLL_SECONDS:g} s instead")
    observer = PollingObserver(timeout=POLL_SECONDS)
    observer.schedule(handler, str(root), recursive=True)
    observer.start()
    return observer, "polling"


def _quiet_stop(observer) -> None:
    try:
        observer.stop()
    except Exception:
        pass
