"""Output sets compared across runs (resume tests and the long-documents benchmark)."""

from __future__ import annotations

import re
from pathlib import Path


def output_set(folder: Path) -> dict[str, bytes]:
    """Every file of a set, with what differs between any two runs blanked: timings
    (``seconds``), and the creation time and random file ID PDFium gives ``_layout.pdf``."""
    def same(data: bytes) -> bytes:
        data = re.sub(rb'"seconds": [0-9.e-]+', b'"seconds": 0', data)
        data = re.sub(rb"/CreationDate\(D:[0-9+']+\)", b"/CreationDate()", data)
        return re.sub(rb"/ID\[<[0-9A-F]+><[0-9A-F]+>\]", b"/ID[]", data)

    return {str(p.relative_to(folder)): same(p.read_bytes())
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != "manifest.json"}
