"""The steps bundle builds share, written once: the end of every build (Core ML, Core AI,
OpenVINO), and the Core ML and Core AI builders' shape checks and progress lines.

    with building(out) as work:      # a temporary sibling of ``out``
        ...                          # write the packages into ``work``
        seal(manifest, work, PACKAGES, started, vision_s=..., peak_rss_gib=...)
    # here ``out`` is the finished bundle; had the block failed, ``work`` would be gone and
    # ``out`` as it was

An interrupted build never leaves something that looks complete: the manifest, which lists
every file with its checksum, is written last, and the folder takes the bundle's name only
when it is whole.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from mineru_tui.engines.errors import ModelError
from mineru_tui.engines.qwen2vl.checkpoint import Checkpoint, load_checkpoint, resolve_model

from .errors import BundleError
from .manifest import record_files


def source_checkpoint(model: str | Path) -> Checkpoint:
    """The checkpoint a bundle is built from (a folder or a hub id); one that is missing or
    broken is a :class:`BundleError`, said in the model's own words."""
    try:
        return load_checkpoint(resolve_model(model))
    except ModelError as e:
        raise BundleError(str(e)) from None


def peak_rss_gib() -> float:
    """Peak resident memory of this process so far, GiB (ru_maxrss: KiB on Linux, bytes on macOS)."""
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / (1 << 30) if sys.platform == "darwin" else r / (1 << 20)


def dir_size(path: Path) -> int:
    """Bytes of every file below ``path``."""
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def checked_shapes(buckets: Sequence[int], context: int, prefill_chunk: int) -> list[int]:
    """The vision buckets, sorted without repeats, once the shapes a bundle is built for are
    possible; else BundleError naming the one that is not."""
    out = sorted({int(n) for n in buckets})
    if not out or any(n < 4 or n % 4 for n in out):
        raise BundleError(f"vision buckets {out}: each must be a positive multiple of 4 (the 2x2 merge window)")
    if prefill_chunk < 2 or context <= prefill_chunk:
        raise BundleError(f"prefill chunk {prefill_chunk} / context {context}: need 2 <= chunk < context")
    return out


class Progress:
    """A build's progress lines, "[elapsed, peak RSS] message" (elapsed since ``t0``, wall
    clock), passed to ``emit``; nothing when ``emit`` is None."""

    def __init__(self, emit: Callable[[str], None] | None, t0: float | None = None):
        self.emit = emit
        self.t0 = time.time() if t0 is None else t0

    def __call__(self, msg: str) -> None:
        if self.emit is not None:
            self.emit(f"[{time.time() - self.t0:6.1f} s, peak {peak_rss_gib():.1f} GiB] {msg}")


@contextmanager
def building(out: Path) -> Iterator[Path]:
    """A new temporary folder beside ``out`` to build a bundle in. When the block ends it
    replaces ``out`` (an older bundle there is removed first); when the block fails (an error,
    Ctrl-C) it is removed and ``out`` is left as it was."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        yield work
        if out.exists():
            shutil.rmtree(out)
        os.replace(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def seal(manifest, work: Path, packages: Sequence[str], started: float, **build: object) -> None:
    """The last step in :func:`building`: record in ``manifest`` (a Core ML or Core AI manifest)
    the size and sha256 of every file of ``packages``, and beside ``build`` each package's size
    (``vision_mb``...) and the build's seconds since ``started`` (``total_s``, the checksums
    included); then write it into ``work``."""
    manifest.files = record_files(work, packages)
    manifest.build = {**build, "total_s": round(time.time() - started, 1),
                      **{f"{Path(p).stem}_mb": round(dir_size(work / p) / 1e6, 1) for p in packages}}
    manifest.write(work)
