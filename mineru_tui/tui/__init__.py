"""Textual app (later). Nothing in the headless path imports this package."""
