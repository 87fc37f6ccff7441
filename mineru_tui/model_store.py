"""Where the MinerU2.5 model lives on this machine: find it, fetch it once, check it.

The model is a Hugging Face repository (``opendatalab/MinerU2.5-Pro-2605-1.2B`` by default)
kept in the hub's own cache (``~/.cache/huggingface/hub``, or ``$HF_HUB_CACHE`` / ``$HF_HOME``),
where the engines look for it; ``--model DIR`` names a folder instead. ``mineru-tui model``
is the command over this module: ``fetch`` downloads the checkpoint's files through
huggingface_hub (its progress bars on stderr), ``show`` says where it is and how big,
``verify`` checks every file against the hash the cache names it by (offline).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

from mineru_tui.engines.defaults import DEFAULT_MODEL, MODEL_ENV

# The checkpoint's files (the engines need nothing else from the repository).
PATTERNS = ["*.json", "*.safetensors", "*.jinja", "*.txt"]


class ModelStoreError(Exception):
    """The model cannot be fetched or found: one line that says how to go on."""


def model_spec(model: str | None = None) -> str:
    """The model asked for: ``--model``, else $MINERU_TUI_MODEL, else the default repo id."""
    return model or os.environ.get(MODEL_ENV) or DEFAULT_MODEL


def cache_dir() -> str | None:
    """The hub cache as set now (None: huggingface_hub's default)."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    return None


def locate(model: str | None = None) -> Path | None:
    """The model's local folder (a directory given, or a complete snapshot in the hub
    cache), or None. Never touches the network."""
    spec = model_spec(model)
    path = Path(spec).expanduser()
    if path.is_dir():
        return path
    try:
        from huggingface_hub import snapshot_download

        local = Path(snapshot_download(spec, local_files_only=True, cache_dir=cache_dir(),
                                       allow_patterns=PATTERNS))
    except Exception:  # not cached, not a repo id
        return None
    return local if complete(local) else None


def complete(folder: Path) -> bool:
    """A folder with a config and at least one weights file."""
    return (folder / "config.json").is_file() and any(folder.glob("*.safetensors"))


def size(folder: Path) -> int:
    """Bytes of the checkpoint's files (links into the cache followed)."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def human(n: int) -> str:
    """1234567 -> "1.2 MB" (decimal units, as download tools show them)."""
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def fetch(model: str | None = None, *, progress: bool = True) -> Path:
    """Download the model's checkpoint files into the hub cache (files already there are
    kept; an interrupted download resumes) and return its folder."""
    spec = model_spec(model)
    if Path(spec).expanduser().is_dir():
        return Path(spec).expanduser()
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.utils import disable_progress_bars, enable_progress_bars
    except ImportError:  # pragma: no cover - a declared dependency
        raise ModelStoreError("huggingface_hub is not installed") from None
    (enable_progress_bars if progress else disable_progress_bars)()
    try:
        local = Path(snapshot_download(spec, cache_dir=cache_dir(), allow_patterns=PATTERNS,
                                       endpoint=os.environ.get("HF_ENDPOINT") or None))
    except Exception as e:  # no network, unknown repo, disk full: one line
        why = (str(e).strip().splitlines() or [type(e).__name__])[0][:160]
        raise ModelStoreError(f"cannot download {spec} ({why}); check the network and run "
                              f"it again (it resumes), or copy the model's folder here and "
                              f"pass --model DIR") from None
    if not complete(local):
        raise ModelStoreError(f"{spec}: the download has no config.json or *.safetensors; "
                              f"is it a MinerU2.5 checkpoint?")
    return local


def verify(folder: Path) -> list[str]:
    """Problems found in a model folder ([] when it is whole). In the hub cache every file
    is checked against the hash it is stored under (SHA-256 for weights, git's blob hash for
    the rest); in any folder the configs must parse and each weights file must hold what
    its header says."""
    problems = [] if complete(folder) else ["no config.json or no *.safetensors file"]
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        try:
            problem = _check_hash(path) or _check_content(path)
        except OSError as e:
            problem = f"cannot read it ({e.strerror or e})"
        if problem:
            problems.append(f"{path.name}: {problem}")
    return problems


def _check_hash(path: Path) -> str | None:
    blob = path.resolve().name
    if path.is_symlink() and len(blob) == 64 and all(c in "0123456789abcdef" for c in blob):
        digest = hashlib.sha256()
    elif path.is_symlink() and len(blob) == 40:
        digest = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    else:
        return None  # a plain folder: no hash to compare with
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return None if digest.hexdigest() == blob else "its bytes differ from the published file " \
                                                   "(damaged or cut: run `mineru-tui model fetch`)"


def _check_content(path: Path) -> str | None:
    if path.suffix == ".json":
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            return "not valid JSON"
    elif path.suffix == ".safetensors":
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                return "too short for a safetensors file"
            (n,) = struct.unpack("<Q", head)
            try:
                header = json.loads(f.read(n))
            except ValueError:
                return "its header is not valid JSON"
        ends = [v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"]
        if 8 + n + max(ends, default=0) != path.stat().st_size:
            return "its size does not match its header (cut short?)"
    return None
