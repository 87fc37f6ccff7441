"""The watch app remembers its theme under $XDG_CONFIG_HOME: the app's tests (tests/tui, tests/watch) each get their own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    """The app remembers its theme under $XDG_CONFIG_HOME: a temporary one per test."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home
