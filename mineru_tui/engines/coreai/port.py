"""The MinerU2.5-Pro Core AI port's folder layout (placeholder; filled in below)."""

from __future__ import annotations

from pathlib import Path


def is_port_layout(path: Path) -> bool:
    """Whether ``path`` looks like the port's bundle folder (``decoder/`` and ``vision/`` with metadata)."""
    path = Path(path)
    return (path / "decoder" / "metadata.json").is_file() and (path / "vision").is_dir()


def open_port_model(bundle: Path, model: str, *, preference: str = "default"):
    raise NotImplementedError
