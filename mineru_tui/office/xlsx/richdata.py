"""Pictures placed in cells: Excel 365's rich values, and WPS Office's ``DISPIMG``.

**Excel** ("Place in Cell"): such a cell reads ``<c t="e" vm="1"><v>#VALUE!</v></c>``: its value-metadata index
``vm`` leads, through ``xl/metadata.xml`` (valueMetadata → futureMetadata XLRICHVALUE
→ ``rvb i``), to a rich value in ``xl/richData/rdrichvalue.xml``, whose
``_rvRel:LocalImageIdentifier`` key indexes ``richValueRel.xml``, whose relationship is
the image part. :func:`read_cell_images` resolves the whole chain once per workbook.

**WPS Office** keeps the pictures of a workbook's cells in ``xl/cellimages.xml`` (an
``etc:cellImages`` list of ``xdr:pic``, each named ``ID_…`` in its ``cNvPr``, the picture
through the part's own relationships) and a cell shows one with the formula
``=_xlfn.DISPIMG("ID_…",1)``, whose cached value is the formula text.
:func:`read_wps_cell_images` maps those names to image parts.
"""

from __future__ import annotations

import posixpath

from mineru_tui.office.package import Package, local
from mineru_tui.office.xlsx.parts import r_attr


def read_cell_images(pkg: Package, workbook_part: str) -> dict[int, tuple[str, str]]:
    """``vm`` index → (image part, alt text) for every in-cell picture of the workbook."""
    rels = {r.kind: r.target for r in pkg.rels(workbook_part).values() if not r.external}
    if "sheetMetadata" not in rels or "rdRichValue" not in rels:
        return {}
    try:
        vm_to_rv = _value_metadata(pkg, rels["sheetMetadata"])
        values = _rich_values(pkg, rels["rdRichValue"])
        structures = _structures(pkg, rels.get("rdRichValueStructure"))
        images = _value_rels(pkg, rels.get("richValueRel"))
    except Exception as exc:  # never worth losing the cells for
        pkg.warnings.append(f"in-cell pictures unreadable ({exc.__class__.__name__})")
        return {}
    out: dict[int, tuple[str, str]] = {}
    for vm, rv in vm_to_rv.items():
        if rv >= len(values):
            continue
        s, vals = values[rv]
        keys = structures[s] if s < len(structures) else []
        fields = dict(zip(keys, vals))
        ref = fields.get("_rvRel:LocalImageIdentifier")
        if ref is None or not ref.strip().isdigit() or int(ref) >= len(images):
            continue
        part = images[int(ref)]
        if part:
            out[vm] = (part, fields.get("Text", "") or "")
    return out


def read_wps_cell_images(pkg: Package, workbook_part: str) -> dict[str, tuple[str, str]]:
    """WPS picture name (``ID_…``) → (image part, alt text) from ``xl/cellimages.xml``."""
    part = next((r.target for r in pkg.rels(workbook_part).values()
                 if not r.external and r.kind.lower() == "cellimage"), None)
    if part is None or not pkg.has(part):
        part = posixpath.join(posixpath.dirname(workbook_part), "cellimages.xml")
        if not pkg.has(part):
            return {}
    root = pkg.xml_recovering(part)
    if root is None:
        return {}
    rels = pkg.rels(part)
    out: dict[str, tuple[str, str]] = {}
    for pic in root.iter("{*}pic"):
        props = next((el for el in pic.iter("{*}cNvPr")), None)
        blip = next((el for el in pic.iter("{*}blip")), None)
        rel = rels.get(r_attr(blip, "embed") or "") if blip is not None else None
        name = props.get("name") if props is not None else None
        if not name or rel is None or rel.external:
            continue
        out.setdefault(name, (rel.target, (props.get("descr") or "").strip()))
    return out


def _value_metadata(pkg: Package, part: str) -> dict[int, int]:
    """vm (1-based) → rich value index, through the XLRICHVALUE future metadata."""
    root = pkg.xml_recovering(part)
    if root is None:
        return {}
    types = [el.get("name") for el in root.iter("{*}metadataType")]
    future: list[int | None] = []
    for fm in root.iter("{*}futureMetadata"):
        if fm.get("name") != "XLRICHVALUE":
            continue
        for bk in fm:
            if local(bk.tag) == "bk":
                rvb = next(bk.iter("{*}rvb"), None)
                future.append(int(rvb.get("i")) if rvb is not None and
                              (rvb.get("i") or "").isdigit() else None)
    out: dict[int, int] = {}
    for vmeta in root.iter("{*}valueMetadata"):
        for n, bk in enumerate((b for b in vmeta if local(b.tag) == "bk"), start=1):
            rc = next(bk.iter("{*}rc"), None)
            if rc is None:
                continue
            t, v = rc.get("t") or "", rc.get("v") or ""
            if not (t.isdigit() and v.isdigit()) or not 0 < int(t) <= len(types):
                continue
            if types[int(t) - 1] == "XLRICHVALUE" and int(v) < len(future):
                rv = future[int(v)]
                if rv is not None:
                    out[n] = rv
    return out


def _rich_values(pkg: Package, part: str) -> list[tuple[int, list[str]]]:
    root = pkg.xml_recovering(part)
    if root is None:
        return []
    out = []
    for rv in root:
        if local(rv.tag) != "rv":
            continue
        s = rv.get("s") or "0"
        out.append((int(s) if s.isdigit() else 0,
                    [v.text or "" for v in rv if local(v.tag) == "v"]))
    return out


def _structures(pkg: Package, part: str | None) -> list[list[str]]:
    root = pkg.xml_recovering(part) if part else None
    if root is None:
        return []
    return [[k.get("n") or "" for k in s if local(k.tag) == "k"]
            for s in root if local(s.tag) == "s"]


def _value_rels(pkg: Package, part: str | None) -> list[str | None]:
    root = pkg.xml_recovering(part) if part else None
    if root is None:
        return []
    rels = pkg.rels(part)
    out: list[str | None] = []
    for el in root:
        if local(el.tag) == "rel":
            rel = rels.get(r_attr(el, "id") or "")
            out.append(rel.target if rel is not None and not rel.external else None)
    return out
