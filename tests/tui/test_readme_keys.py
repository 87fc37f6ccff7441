"""The README's watch key table names every key the app binds (docs/watch.md and `?` do)."""

from __future__ import annotations

from pathlib import Path

from mineru_tui.tui.app import WatchApp

README = Path(__file__).resolve().parents[2] / "README.md"
SHOWN = {"left_square_bracket": "`[`", "right_square_bracket": "`]`", "colon": "`:`",
         "question_mark": "`?`", "slash": "`/`", "pageup": "PgUp", "pagedown": "PgDn",
         "home": "Home", "end": "End"}


def test_readme_watch_key_table_names_every_bound_key():
    text = README.read_text(encoding="utf-8")
    start = text.index("| key | what it does |")
    table = text[start:text.index("\n\n", start)]
    keys = {k for b in WatchApp.BINDINGS for k in b.key.split(",")}
    missing = [k for k in sorted(keys) if SHOWN.get(k, f"`{k}`") not in table]
    assert not missing, missing
