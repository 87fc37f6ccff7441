"""The one error type of the bundle code: a message meant to be shown as one line."""


class BundleError(Exception):
    """A bundle cannot be built, read or used (missing, damaged, for another checkpoint ...)."""
