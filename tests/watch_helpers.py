"""Shared helpers for the watch and app tests: a recording listener and folders to watch."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "examples" / "sample.docx"
SCRIPTED = "testkit.watch_doubles:convert"
FAST = {"quiet": 0.15, "interval": 0.1}


def scripted_env(monkeypatch, **knobs) -> None:
    """Let the reader processes import testkit/watch_doubles.py and set its knobs."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    for k, v in knobs.items():
        monkeypatch.setenv(f"MINERU_TEST_{k.upper()}", str(v))


class Recorder:
    """A service listener that keeps every event and lets a test wait for one."""

    def __init__(self) -> None:
        self.events: list[object] = []
        self._cond = threading.Condition()

    def __call__(self, event: object) -> None:
        with self._cond:
            self.events.append(event)
            self._cond.notify_all()

    def of(self, kind, **match) -> list:
        with self._cond:
            return [e for e in self.events if isinstance(e, kind)
                    and all(getattr(e, k) == v for k, v in match.items())]

    def wait(self, kind, timeout: float = 30.0, count: int = 1, **match):
        """The first ``count`` events of ``kind`` matching ``match`` (fails on timeout)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [e for e in self.events if isinstance(e, kind)
                         and all(getattr(e, k) == v for k, v in match.items())]
                if len(found) >= count:
                    return found[count - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {kind.__name__} {match} within {timeout} s; "
                                         f"events: {self.events!r}"[:4000])
                self._cond.wait(left)


def drop(src: Path, dest: Path) -> Path:
    """Copy a file into the watched folder the way a download would: temp name, then rename."""
    part = dest.with_name(dest.name + ".part")
    shutil.copyfile(src, part)
    os.replace(part, dest)
    return dest


def fake_pdf(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.7\n% scripted\n" + os.urandom(8).hex().encode() + b"\n%%EOF\n")
    return path


def page_image(path: Path) -> Path:
    """A real page (PNG, or PDF when the name says so) with a line of text, made with Pillow."""
    from PIL import Image, ImageDraw

    im = Image.new("RGB", (300, 420), "white")
    ImageDraw.Draw(im).text((30, 30), f"page {path.stem}", fill="black")
    im.save(path)
    return path


def no_model(tmp_path: Path) -> dict:
    """Engine options naming a checkpoint folder that does not exist (fails at once, offline)."""
    return {"engine": "numpy", "model": str(tmp_path / "no-model-here")}
