"""PowerPoint (.pptx, .pptm, .ppsx, .potx): :func:`read_pptx` reads slides into the model.

``reader`` walks the slides in order; ``shapes`` and ``order`` place the shapes in reading
order; ``text`` reads text frames; ``tables``, ``smartart``, ``comments`` read the parts of
those names; ``layouts`` resolves placeholders against the slide layouts and masters.
"""

from mineru_tui.office.pptx.reader import read_pptx

__all__ = ["read_pptx"]
