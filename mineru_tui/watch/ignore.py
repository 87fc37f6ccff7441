"""Which files the watcher never reads.

Temporary, hidden and lock files are written by editors, browsers and sync tools while a real
document is on its way; reading them would only produce failures. Anything under the output
folder (if it lies inside the watched tree) is our own result and is skipped too. A symbolic
link is judged by where it leads: one whose target leaves the watched tree (``ln -s
/some/private.docx in/x.docx``) is ignored, so the watcher converts only what is in the tree.
"""

from __future__ import annotations

import os
from pathlib import Path

# Suffixes of files that are still being written or are not documents at all.
TEMP_SUFFIXES = frozenset({".part", ".partial", ".crdownload", ".download", ".tmp", ".temp",
                           ".swp", ".swx", ".icloud", ".lock", ".bak"})
JUNK_NAMES = frozenset({"thumbs.db", "desktop.ini", "icon\r"})


def ignored_name(name: str) -> bool:
    """True for a file name that is temporary, hidden or a lock file."""
    low = name.lower()
    return (name.startswith((".", "~$", "~"))  # dotfiles, .~lock.x#, Word's ~$x.docx
            or name.endswith(("~", "#"))  # editor backups, LibreOffice lock names
            or Path(low).suffix in TEMP_SUFFIXES
            or low in JUNK_NAMES)


def is_ignored(path: Path, root: Path, output_dir: Path | None = None) -> bool:
    """True when ``path`` (under ``root``) must not be read.

    Hidden folders on the way from ``root`` hide everything below them; ``output_dir`` and
    everything in it is ignored.
    """
    if output_dir is not None and (path == output_dir or output_dir in path.parents):
        return True
    try:
        rel = path.relative_to(root)
    except ValueError:
        return True  # outside the watched tree (a symlink target, a move out)
    parts = rel.parts
    if not parts:
        return True
    if any(p.startswith(".") for p in parts[:-1]) or ignored_name(parts[-1]):
        return True
    return not _target_inside(path, root, output_dir)


def _target_inside(path: Path, root: Path, output_dir: Path | None) -> bool:
    """Whether ``path``, every link on its way followed, is still in the watched tree (and
    not in the output folder). A link loop stays in the tree; the settler cannot stat it."""
    try:
        real = Path(os.path.realpath(path))
        real_root = Path(os.path.realpath(root))
    except (OSError, RuntimeError, ValueError):
        return False
    if real != real_root and real_root not in real.parents:
        return False
    if output_dir is not None:
        real_out = Path(os.path.realpath(output_dir))
        if real == real_out or real_out in real.parents:
            return False
    return True
