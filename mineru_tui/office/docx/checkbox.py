"""Check boxes: ``w14:checkbox`` content controls, legacy ``FORMCHECKBOX`` fields and
check-box glyphs that start a paragraph.

Each gives its state (True = ticked) and becomes a check-box span
(:func:`mineru_tui.document.checkbox_span`): ``[x]`` or ``[ ]`` where the box stands, as
docling writes them and as GitHub task lists read. The glyph Word draws for a box (☒, ☐,
in a font the reader may not have) says less than the state it stands for.
"""

from __future__ import annotations

from mineru_tui.office.docx.wml import W_NS, on_off, w

W14_NS = "http://schemas.microsoft.com/office/word/2010/wordml"

_SDTPR = w("sdtPr")
_W14_CHECKBOX, _W14_CHECKED = f"{{{W14_NS}}}checkbox", f"{{{W14_NS}}}checked"
_W14_VAL = f"{{{W14_NS}}}val"
_FFDATA, _CHECKBOX = w("ffData"), w("checkBox")
_DEFAULT, _FF_CHECKED = w("default"), w("checked")
# ☐ ballot box, ☑ with check, ☒ with x; ✓✔✗ are marks, not boxes, and stay as they are.
_GLYPHS = {"\u2610": False, "\u2611": True, "\u2612": True}


def sdt_checkbox(sdt) -> bool | None:
    """The state of a ``w:sdt`` that is a check-box content control, else None."""
    pr = sdt.find(_SDTPR)
    box = pr.find(_W14_CHECKBOX) if pr is not None else None
    if box is None:
        return None
    checked = box.find(_W14_CHECKED)
    if checked is None:
        return False
    v = (checked.get(_W14_VAL) or checked.get(f"{{{W_NS}}}val") or "1").strip().lower()
    return v not in ("0", "false", "off")


def form_checkbox(fld_char) -> bool | None:
    """The state of the ``w:fldChar`` that begins a FORMCHECKBOX field, else None.

    ``w:checked`` (the current state) wins over ``w:default`` (the state it was made with).
    """
    data = fld_char.find(_FFDATA)
    box = data.find(_CHECKBOX) if data is not None else None
    if box is None:
        return None
    state = box.find(_FF_CHECKED)
    if state is None:
        state = box.find(_DEFAULT)
    return state is not None and on_off(state)


def glyph_checkbox(text: str) -> tuple[bool, str] | None:
    """``(state, rest)`` when ``text`` starts with a check-box glyph, else None.

    ``rest`` is the text after the glyph, starting with a space (one is added when the
    glyph touched the next word: "☐todo").
    """
    stripped = text.lstrip()
    state = _GLYPHS.get(stripped[:1])
    if state is None:
        return None
    rest = stripped[1:]
    return state, ("" if not rest or rest[0].isspace() else " ") + rest
