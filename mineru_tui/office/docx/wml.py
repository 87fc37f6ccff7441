"""WordprocessingML names and tiny XML helpers shared by the .docx part readers."""

from __future__ import annotations

from mineru_tui.office.package import local  # noqa: F401  (re-exported for the Word readers)

W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
M_NS = "http://schemas.openxmlformats.org/officeDocument/2006/math"
MC_NS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
WP_NS = "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"
A_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
PIC_NS = "http://schemas.openxmlformats.org/drawingml/2006/picture"
V_NS = "urn:schemas-microsoft-com:vml"
O_NS = "urn:schemas-microsoft-com:office:office"

RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"


def w(tag: str) -> str:
    """Clark name of a ``w:`` element or attribute."""
    return f"{{{W_NS}}}{tag}"


def r(tag: str) -> str:
    return f"{{{R_NS}}}{tag}"


def m(tag: str) -> str:
    return f"{{{M_NS}}}{tag}"


def mc(tag: str) -> str:
    return f"{{{MC_NS}}}{tag}"


W_VAL = w("val")
_OFF = ("0", "false", "off", "none")


def val(el, name: str = W_VAL) -> str | None:
    """The ``w:val`` (or another attribute) of an element that may be None."""
    return None if el is None else el.get(name)


def on_off(el) -> bool:
    """An OOXML on/off property: present without a value means on."""
    v = el.get(W_VAL)
    return v is None or v.strip().lower() not in _OFF


def int_val(el, default: int | None = None, name: str = W_VAL) -> int | None:
    """``w:val`` as an int, or ``default`` when missing or malformed."""
    v = val(el, name)
    if v is None:
        return default
    try:
        return int(v.strip())
    except ValueError:
        try:
            return int(float(v))
        except (ValueError, OverflowError):  # "1e999", 5,000 digits: no number
            return default

