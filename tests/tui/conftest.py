"""Fixtures of the tui tests."""

from tests.app_fixtures import config_home  # noqa: F401  (autouse)
