"""Errors and warnings meant for users: each one line that says what is wrong."""

from __future__ import annotations

import errno


class InputError(Exception):
    """An input file that cannot be parsed (missing, empty, corrupt, encrypted, legacy...).

    ``str(err)`` is the whole message for the user: one sentence, without the file's name
    (the caller names the file once) and without a library's wording. ``detail`` keeps the
    technical cause (an lxml or zipfile message), shown only with ``-v``.
    """

    def __init__(self, message: str, detail: str | None = None):
        super().__init__(message)
        self.detail = detail


class ConvertError(Exception):
    """A file that could not be converted: ``reason`` is one line for the user.

    ``needs_model`` is the typed cause "no model to read it with" (the engine could not be
    opened: no checkpoint, no server answering): the watcher shows such a file as "model
    needed" and reads it again once the model is there, instead of calling the file broken.
    """

    def __init__(self, reason: str, detail: str | None = None, trace: str | None = None, *,
                 needs_model: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail  # the underlying technical message, for -v
        self.trace = trace  # a traceback, for internal errors (--debug)
        self.needs_model = needs_model


BUG_HINT = "this is a bug in mineru-tui, please report it with the file if you can"
DEBUG_HINT = "rerun with --debug for the traceback"  # the CLI's way to see it


def internal_error(where: str, e: BaseException, hint: str = "") -> str:
    """The one wording of an unexpected exception in our code, as one line for the user:
    ``internal error in the pptx reader (KeyError: 'x'); this is a bug ... (HINT)``."""
    text = " ".join(str(e).split())[:200]
    cause = f"{type(e).__name__}: {text}" if text else type(e).__name__
    return f"internal error in {where} ({cause}); {BUG_HINT}" + (f" ({hint})" if hint else "")


# Warnings (``Document.warnings``) are plain strings. One that reports content left out
# because a limit was hit starts with CUT; ``parse`` prints those on stderr every time,
# not only with -v, and they stay in the middle JSON like every warning.
CUT = "content cut: "


def cut_warning(text: str) -> str:
    """A warning saying that content was left out (a size or depth limit was hit)."""
    return CUT + text


def is_cut_warning(warning: str) -> bool:
    """Whether ``warning`` reports content left out (see :func:`cut_warning`)."""
    return warning.startswith(CUT)


def os_reason(e: OSError) -> str:
    """What an OSError means, in a few lower-case words for a message."""
    words = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
             errno.ELOOP: "a symbolic link loop", errno.ENAMETOOLONG: "the name is too long",
             errno.ENOENT: "no such file or folder", errno.ENOTDIR: "a part of the path is "
             "not a folder", errno.EIO: "input/output error (a damaged disk or medium?)"}
    if e.errno in words:
        return words[e.errno]
    text = e.strerror or str(e) or type(e).__name__
    return text[:1].lower() + text[1:]
