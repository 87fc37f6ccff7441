"""Pages in the terminal's own graphics, where it has them (Kitty's graphics protocol, Sixel).

Uses the optional ``textual-image`` package (``pip install 'mineru-tui[graphics]'``;
LGPL-3.0-or-later, kept optional so the default install has no copyleft dependency). It
asks the terminal what it supports when imported, which must happen before the app takes
the terminal, so :func:`detect` is called by ``run_app`` before the app starts. Without
the package, without a graphics protocol (tmux, most terminals over ssh) or with
``MINERU_TUI_GRAPHICS=off``, pages are drawn in half-blocks.
"""

from __future__ import annotations

import os
import sys


def detect():
    """The textual-image widget class for this terminal's graphics protocol, or None."""
    if os.environ.get("MINERU_TUI_GRAPHICS", "").lower() in ("off", "0", "no"):
        return None
    stdout = sys.__stdout__
    if stdout is None or not stdout.isatty():
        return None
    try:
        import textual_image.renderable as renderable
        import textual_image.widget as widget
    except Exception:  # not installed, or its terminal query failed: half-blocks
        return None
    if renderable.Image is renderable.TGPImage:
        return widget.TGPImage
    if renderable.Image is renderable.SixelImage:
        return widget.SixelImage
    return None
