"""Fixtures of the CLI tests: a fake Office reader and three minimal packages."""

from __future__ import annotations

from pathlib import Path

import pytest

import mineru_tui.office
from tests.cli_fixtures import CT_DOCX, CT_PPTX, CT_XLSX, fake_doc, ooxml_bytes


@pytest.fixture
def fake_reader(monkeypatch):
    """Replace the Office readers with :func:`fake_doc`; returns the calls it got."""
    calls = []

    def read(path, kind):
        calls.append((Path(path).name, kind))
        return fake_doc(path, kind)

    monkeypatch.setattr(mineru_tui.office, "read_office", read)
    return calls


@pytest.fixture
def docs(tmp_path) -> dict[str, Path]:
    """A docx, a pptx and an xlsx (minimal packages; the fake reader does not look inside)."""
    out = {}
    for name, ct in (("a.docx", CT_DOCX), ("b.pptx", CT_PPTX), ("c.xlsx", CT_XLSX)):
        out[name] = tmp_path / name
        out[name].write_bytes(ooxml_bytes(ct))
    return out
