"""What the app remembers between runs: the theme (chosen in the command palette).

Kept in ``$XDG_CONFIG_HOME/mineru-tui/watch.json`` (``~/.config/...`` by default). A file
that cannot be read or written is ignored: the app must start whatever the disk says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def settings_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mineru-tui" / "watch.json"


def load(path: Path | None = None) -> dict:
    try:
        data = json.loads((path or settings_file()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(values: dict, path: Path | None = None) -> None:
    path = path or settings_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({**load(path), **values}, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
