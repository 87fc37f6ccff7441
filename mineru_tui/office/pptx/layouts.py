"""Slide layouts and masters: the placeholders slide placeholders inherit from.

A slide placeholder takes what it does not say itself (its position, its list styles)
from the layout placeholder with the same ``idx`` (or, failing that, the same type),
which takes it from the master placeholder of its base type (``ctrTitle`` → ``title``,
content types → ``body``), and finally from the master's ``p:txStyles``:
``titleStyle``, ``bodyStyle`` (bulleted by default) or ``otherStyle``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from mineru_tui.office.package import Package, PartError
from mineru_tui.office.names import q
from mineru_tui.office.pptx.shapes import lst_style, ph_of

TITLE_TYPES = ("title", "ctrTitle")
FOOTER_TYPES = ("dt", "ftr", "hdr", "sldNum")
# A layout placeholder's master counterpart, by type (what PowerPoint inherits from).
_MASTER_TYPE = {"ctrTitle": "title", "title": "title", "dt": "dt", "ftr": "ftr",
                "sldNum": "sldNum", "hdr": "hdr"}


@dataclass
class Template:
    """A layout or master: its placeholders by ``idx`` and by type, its text styles."""

    by_idx: dict[str, object]
    by_type: dict[str, object]
    tx_styles: object = None
    master: "Template | None" = None


class Templates:
    """Layouts and masters of one package, each parsed once."""

    def __init__(self, pkg: Package, warn: Callable[[str], None]):
        self.pkg = pkg
        self.warn = warn
        self.cache: dict[str, Template | None] = {}

    def layout_of(self, slide_part: str) -> "Template | None":
        """The layout (with its master) of a slide part."""
        return self.load(self.pkg.related(slide_part, "slideLayout"), False)

    def load(self, part: str | None, master: bool) -> Template | None:
        """A layout (``master=False``, its master loaded too) or a master, or None."""
        if part is None:
            return None
        if part in self.cache:
            return self.cache[part]
        try:
            root = self.pkg.xml(part)
        except PartError as exc:
            self.warn(f"{'master' if master else 'layout'} ignored ({exc})")
            self.cache[part] = None
            return None
        by_idx: dict[str, object] = {}
        by_type: dict[str, object] = {}
        tree = root.find(f"{q('p:cSld')}/{q('p:spTree')}")
        for el in (tree.iter(q("p:sp"), q("p:pic"), q("p:graphicFrame")) if tree is not None else ()):
            ph = ph_of(el)
            if ph is None:
                continue
            by_idx.setdefault(ph.get("idx") or "0", el)
            by_type.setdefault(ph.get("type") or "obj", el)
        template = Template(by_idx, by_type)
        if master:
            template.tx_styles = root.find(q("p:txStyles"))
        else:
            template.master = self.load(self.pkg.related(part, "slideMaster"), True)
        self.cache[part] = template
        return template

    @staticmethod
    def inherited(layout: Template | None, ph) -> tuple[object, object]:
        """The layout and master placeholders a slide placeholder inherits from."""
        if layout is None:
            return None, None
        ph_type = ph.get("type") or "obj"
        base = layout.by_idx.get(ph.get("idx") or "0")
        if base is None or (ph_type in TITLE_TYPES) != ((ph_of(base).get("type") or "obj")
                                                          in TITLE_TYPES):
            base = layout.by_type.get(ph_type)
            if base is None and ph_type in TITLE_TYPES:  # ctrTitle on a title-only layout
                base = layout.by_type.get("title")
                if base is None:
                    base = layout.by_type.get("ctrTitle")
        master = layout.master
        if master is None:
            return base, None
        base_type = (ph_of(base).get("type") or "obj") if base is not None else ph_type
        master_type = _MASTER_TYPE.get(base_type, "body")
        return base, master.by_type.get(master_type)

    def style_chain(self, layout: Template | None, el, ph, default_style=None) -> list:
        """List styles a shape's paragraphs inherit from, nearest first."""
        chain = [lst_style(el)]
        if ph is None:
            chain.append(default_style)
            return chain
        layout_ph, master_ph = self.inherited(layout, ph)
        chain += [lst_style(layout_ph), lst_style(master_ph)]
        master = layout.master if layout is not None else None
        styles = master.tx_styles if master is not None else None
        if styles is not None:
            ph_type = ph.get("type") or "obj"
            if ph_type in TITLE_TYPES:
                chain.append(styles.find(q("p:titleStyle")))
            elif ph_type in FOOTER_TYPES:
                chain.append(styles.find(q("p:otherStyle")))
            else:
                chain.append(styles.find(q("p:bodyStyle")))
        return chain
