"""Which files the watcher never reads.

Temporary, hidden and lock files are written by editors, browsers and sync tools while a real
document is on its way; reading them would only produce failures. Anything under the output
folder (if it lies inside the watched tree) is our own result and is skipped too.
"""

from __future__ import annotations

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
    return any(p.startswith(".") for p in parts[:-1]) or ignored_name(parts[-1])
