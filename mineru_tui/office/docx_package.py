"""The .docx package: parts, their XML and their relationships.

python-docx opens the package (it is the gate: a file it cannot open is an
:class:`~mineru_tui.errors.InputError`). The readers only see :class:`PartRef`, a
thin view with lazily parsed XML, so a part whose XML is broken fails on its own
(the caller turns that into a warning) instead of failing the file.
"""

from __future__ import annotations

from pathlib import Path

from mineru_tui.errors import InputError

# Parsing untrusted XML: no entities, no network, no giant trees.
_PARSER = None


def parse_xml(data: bytes):
    """Parse a part's bytes with a hardened lxml parser."""
    global _PARSER
    from lxml import etree
    if _PARSER is None:
        _PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False,
                                  load_dtd=False)
    return etree.fromstring(data, _PARSER)


class PartRef:
    """One package part as the readers need it: name, XML, bytes, relationships."""

    __slots__ = ("_part", "_xml")

    def __init__(self, part):
        self._part = part
        self._xml = None

    @property
    def name(self) -> str:
        return str(self._part.partname)

    @property
    def ext(self) -> str:
        return self._part.partname.ext or "bin"

    def xml(self):
        """The part's root element (python-docx already parsed most parts)."""
        if self._xml is None:
            element = getattr(self._part, "element", None)
            self._xml = element if element is not None else parse_xml(self._part.blob)
        return self._xml

    def blob(self) -> bytes:
        return self._part.blob

    def external_target(self, rid: str) -> str | None:
        """The target URL of an external relationship (hyperlinks, linked images)."""
        rel = self._part.rels.get(rid)
        if rel is None or not rel.is_external:
            return None
        return rel.target_ref

    def related(self, rid: str) -> "PartRef | None":
        part = self._part.related_parts.get(rid)
        return PartRef(part) if part is not None else None

    def related_by_type(self, kind: str) -> list["PartRef"]:
        """Internal parts related by a relationship type ending in ``/kind``, in rId order."""
        rels = [rel for rel in self._part.rels.values()
                if not rel.is_external and rel.reltype.rsplit("/", 1)[-1] == kind]
        rels.sort(key=lambda rel: (len(rel.rId), rel.rId))
        return [PartRef(rel.target_part) for rel in rels]


def open_main_part(path: str | Path) -> PartRef:
    """Open the package with python-docx and return its main document part."""
    from docx.package import Package
    try:
        package = Package.open(str(path))
        main = package.main_document_part
    except Exception as exc:  # python-docx raises many kinds; the user needs one line
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"{Path(path).name}: not a readable Word document ({reason[:200]})") from None
    return PartRef(main)
