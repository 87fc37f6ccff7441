"""The .docx package as the Word readers see it: :class:`PartRef`, one part with its
relationships, over the shared :class:`~mineru_tui.office.package.Package`.

A part's XML is parsed when a reader first asks for it, so a broken secondary part (a
header, the numbering) fails on its own (the caller turns that into a warning) instead of
failing the file; only a package without a readable main document is an
:class:`~mineru_tui.errors.InputError`.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from mineru_tui.errors import InputError
from mineru_tui.office.package import Package, PartError

_W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


class PartRef:
    """One package part: name (``/word/document.xml``), XML, bytes, relationships."""

    __slots__ = ("package", "_name")

    def __init__(self, package: Package, name: str):
        self.package = package
        self._name = name.lstrip("/")

    @property
    def name(self) -> str:
        return "/" + self._name

    @property
    def ext(self) -> str:
        base = posixpath.basename(self._name)
        return base.rsplit(".", 1)[-1] if "." in base else "bin"

    def xml(self):
        """The part's root element (parsed once; :class:`PartError` when broken)."""
        return self.package.xml(self._name)

    def blob(self) -> bytes:
        return self.package.blob(self._name)

    @property
    def content_type(self) -> str:
        return self.package.content_type(self._name)

    def external_target(self, rid: str) -> str | None:
        """The target URL of an external relationship (hyperlinks, linked images)."""
        rel = self.package.rels(self._name).get(rid)
        return rel.target if rel is not None and rel.external else None

    def related(self, rid: str) -> "PartRef | None":
        """The internal part a relationship id points at, when that part exists."""
        rel = self.package.rels(self._name).get(rid)
        if rel is None or rel.external or not self.package.has(rel.target):
            return None
        return PartRef(self.package, rel.target)

    def related_by_type(self, kind: str) -> list["PartRef"]:
        """Existing parts related by a relationship type ending in ``/kind``, in rId order."""
        rels = [rel for rel in self.package.rels(self._name).values()
                if not rel.external and rel.kind == kind and self.package.has(rel.target)]
        rels.sort(key=lambda rel: (len(rel.rid), rel.rid))
        return [PartRef(self.package, rel.target) for rel in rels]


def open_main_part(path: str | Path) -> PartRef:
    """Open the package and return its main document part (the root relationships'
    ``officeDocument``), its XML checked; otherwise :class:`InputError`."""
    package = Package(path, "docx")
    main = package.main_part()
    if main is None:
        package.close()
        raise InputError("not a readable Word document (the package names no main "
                         "document part)")
    try:
        root = package.xml(main)
    except PartError as exc:
        package.close()
        raise InputError("not a readable Word document (its main part is damaged)",
                         str(exc)) from None
    if root.find(f"{{{_W_NS}}}body") is None and root.tag != f"{{{_W_NS}}}document":
        package.close()
        raise InputError(f"not a Word document (its main part is {main})")
    return PartRef(package, main)
