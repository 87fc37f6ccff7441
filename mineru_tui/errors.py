"""Errors meant for users: each carries one line that says what is wrong and what to do."""


class InputError(Exception):
    """An input file that cannot be parsed (missing, empty, corrupt, encrypted, legacy...).

    ``str(err)`` is the whole message: one line, no traceback needed.
    """
