"""User-facing errors of the engines (a model that cannot be loaded, an image or a prompt it cannot take).

Every message is one line meant to be shown to a user as is (the CLI prints it without a
traceback), so it says what is wrong and, where possible, what to do about it.
"""

from __future__ import annotations


class ModelError(Exception):
    """The model cannot be found, downloaded, or is not a usable Qwen2-VL checkpoint."""


class ImageError(ValueError):
    """An input image cannot be read or cannot be fed to the model (corrupt, too small, too thin)."""


class PromptError(ValueError):
    """A prompt is empty or does not fit into the model's context."""
