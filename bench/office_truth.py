"""What an Office file holds, read from its own XML (never from any tool's output).

:func:`truth` returns the reference words (the document's own text) and the
structural counts the quality benchmark scores tools against:

* **words** — docx: ``w:t`` of document/footnotes/endnotes (text boxes included, the
  ``mc:Fallback`` copy of a text box skipped), never ``w:delText``, ``w:instrText``,
  moved-from text or comments; pptx: ``a:t`` of the slides and of the speaker-notes
  body; xlsx: the cell text of visible sheets (shared/inline strings, cached string
  results, numbers as General/fixed formats show them; dates and custom formats
  skipped — approximate).
* **tables** — docx ``w:tbl`` (nested ones too); pptx ``a:tbl``; xlsx one per visible
  worksheet with a non-empty cell.
* **headings** — docx paragraphs with text whose style is "heading N"/"Title" or whose
  (inherited) outline level is 0–8; pptx slide-title placeholders with text.
* **equations** — ``m:oMath`` elements (docx).
* **links** — hyperlinks with text: docx ``w:hyperlink`` with ``r:id`` or ``w:anchor``
  (bookmark links count too) and ``HYPERLINK`` fields; pptx ``a:hlinkClick`` on text runs to an
  external target; xlsx ``<hyperlink r:id>`` of visible sheets.
* **list_items** — docx paragraphs with text and ``w:numPr`` (direct or by style, numId
  ≠ 0, headings excluded); pptx paragraphs with text that have ``a:buChar``/``a:buAutoNum``
  or sit in a content placeholder (no type / ``obj``) without ``a:buNone``.
* **images** — docx ``a:blip``/``v:imagedata`` references; pptx ``a:blip`` in slide
  pictures (backgrounds skipped); xlsx ``a:blip`` in drawings of visible sheets.
* **merged** — merged-cell regions: docx ``gridSpan>1`` or ``vMerge="restart"``; pptx
  ``gridSpan``/``rowSpan>1``; xlsx ``mergeCell`` of visible sheets.
"""
from __future__ import annotations

import posixpath
import re
import zipfile

from lxml import etree
from truth_record import METRICS, Truth  # noqa: F401  (METRICS: re-exported for office_quality)
from web_truth import web_kind, web_truth

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
V = "urn:schemas-microsoft-com:vml"
S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
STRICT = {  # ISO strict namespaces → transitional ones
    "http://purl.oclc.org/ooxml/wordprocessingml/main": W,
    "http://purl.oclc.org/ooxml/drawingml/main": A,
    "http://purl.oclc.org/ooxml/presentationml/main": P,
    "http://purl.oclc.org/ooxml/officeDocument/math": M,
    "http://purl.oclc.org/ooxml/officeDocument/relationships": R,
    "http://purl.oclc.org/ooxml/spreadsheetml/main": S,
}

def _q(ns: str, tag: str) -> str:
    return f"{{{ns}}}{tag}"


def _parse(z: zipfile.ZipFile, name: str):
    try:
        data = z.read(name)
    except KeyError:
        return None
    for strict, trans in STRICT.items():
        if strict.encode() in data:
            data = data.replace(strict.encode(), trans.encode())
    try:
        return etree.fromstring(data, etree.XMLParser(resolve_entities=False, huge_tree=True, recover=True))
    except etree.XMLSyntaxError:
        return None


def _rels(z: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str, str]]:
    """rId → (type, target resolved against the part, target mode)."""
    d, b = posixpath.split(part)
    root = _parse(z, posixpath.join(d, "_rels", b + ".rels"))
    out = {}
    if root is None:
        return out
    for rel in root.iter(_q(PKG_REL, "Relationship")):
        tgt = rel.get("Target", "")
        mode = rel.get("TargetMode", "")
        if mode != "External":
            tgt = posixpath.normpath(posixpath.join(d, tgt)) if not tgt.startswith("/") else tgt[1:]
        out[rel.get("Id")] = (rel.get("Type", "").rsplit("/", 1)[-1], tgt, mode)
    return out


def _in_fallback(el) -> bool:
    return any(a.tag == _q(MC, "Fallback") for a in el.iterancestors())


# ---------------------------------------------------------------- docx

def _docx_styles(z):
    """styleId → (is_heading, numbered) after basedOn inheritance."""
    root = _parse(z, "word/styles.xml")
    raw = {}
    if root is None:
        return {}
    for st in root.iter(_q(W, "style")):
        sid = st.get(_q(W, "styleId"))
        name_el = st.find(_q(W, "name"))
        name = (name_el.get(_q(W, "val")) if name_el is not None else "") or ""
        based = st.find(_q(W, "basedOn"))
        ol = st.find(f"{_q(W, 'pPr')}/{_q(W, 'outlineLvl')}")
        num = st.find(f"{_q(W, 'pPr')}/{_q(W, 'numPr')}/{_q(W, 'numId')}")
        raw[sid] = (name.lower(), based.get(_q(W, "val")) if based is not None else None,
                    int(ol.get(_q(W, "val"), "9")) if ol is not None and ol.get(_q(W, "val"), "9").isdigit() else None,
                    (num.get(_q(W, "val")) if num is not None else None))
    out = {}
    for sid in raw:
        name, based, ol, num = raw[sid]
        seen = {sid}
        cur = based
        while cur in raw and cur not in seen and (ol is None or num is None):
            seen.add(cur)
            _, nb, ol2, num2 = raw[cur]
            ol = ol if ol is not None else ol2
            num = num if num is not None else num2
            cur = nb
        heading = bool(re.fullmatch(r"heading [1-9]", name)) or name == "title" or (ol is not None and ol < 9)
        out[sid] = (heading, bool(num) and num != "0")
    return out


def _docx_para_text(p) -> str:
    """Text of one paragraph, nested text-box paragraphs excluded (they count on their own)."""
    parts = []
    for el in p.iter(_q(W, "t"), _q(W, "tab"), _q(W, "br"), _q(W, "cr")):
        # skip text that belongs to a nested paragraph (text box inside this one)
        owner = next((a for a in el.iterancestors(_q(W, "p"))), None)
        if owner is not p:
            continue
        if _skip_docx(el):
            continue
        parts.append(el.text or "" if el.tag == _q(W, "t") else " ")
    return "".join(parts)


def _skip_docx(el) -> bool:
    for a in el.iterancestors():
        if a.tag in (_q(MC, "Fallback"), _q(W, "moveFrom"), _q(W, "del")):
            return True
    return False


def _docx(z: zipfile.ZipFile, t: Truth) -> None:
    styles = _docx_styles(z)
    texts = []
    for part in ("word/document.xml", "word/footnotes.xml", "word/endnotes.xml"):
        root = _parse(z, part)
        if root is None:
            continue
        body_part = part == "word/document.xml"
        for p in root.iter(_q(W, "p")):
            if _skip_docx(p):
                continue
            txt = _docx_para_text(p)
            texts.append(txt)
            if not txt.strip():
                continue
            ppr = p.find(_q(W, "pPr"))
            sid = None
            direct_num = None
            direct_ol = None
            if ppr is not None:
                ps = ppr.find(_q(W, "pStyle"))
                sid = ps.get(_q(W, "val")) if ps is not None else None
                n = ppr.find(f"{_q(W, 'numPr')}/{_q(W, 'numId')}")
                direct_num = n.get(_q(W, "val")) if n is not None else None
                o = ppr.find(_q(W, "outlineLvl"))
                direct_ol = o.get(_q(W, "val")) if o is not None else None
            s_head, s_num = styles.get(sid, (False, False))
            heading = (direct_ol is not None and direct_ol.isdigit() and int(direct_ol) < 9) or \
                (s_head and not (direct_ol is not None and direct_ol == "9"))
            in_table = any(a.tag == _q(W, "tc") for a in p.iterancestors())
            if heading and body_part and not in_table:
                t.add("headings", txt.strip())
                continue
            numbered = (direct_num not in (None, "0")) or (direct_num is None and s_num)
            if numbered:
                t.add("list_items", txt.strip())
        if body_part:
            for tbl in root.iter(_q(W, "tbl")):
                if not _in_fallback(tbl):
                    t.add("tables", " ".join(_docx_para_text(p) for p in tbl.iter(_q(W, "p")))[:80])
            for tc in root.iter(_q(W, "tc")):
                if _in_fallback(tc):
                    continue
                tcpr = tc.find(_q(W, "tcPr"))
                if tcpr is None:
                    continue
                gs = tcpr.find(_q(W, "gridSpan"))
                vm = tcpr.find(_q(W, "vMerge"))
                span = gs is not None and (gs.get(_q(W, "val")) or "1").isdigit() and int(gs.get(_q(W, "val"))) > 1
                restart = vm is not None and vm.get(_q(W, "val")) == "restart"
                cont = vm is not None and vm.get(_q(W, "val")) != "restart"
                if restart or (span and not cont):
                    t.add("merged", " ".join(_docx_para_text(p) for p in tc.iter(_q(W, "p"))))
        for om in root.iter(_q(M, "oMath")):
            if not _in_fallback(om) and not any(a.tag == _q(M, "oMath") for a in om.iterancestors()):
                t.add("equations", "".join(x.text or "" for x in om.iter(_q(M, "t"))))
        for h in root.iter(_q(W, "hyperlink")):
            if _skip_docx(h) or not (h.get(_q(R, "id")) or h.get(_q(W, "anchor"))):
                continue
            txt = "".join(x.text or "" for x in h.iter(_q(W, "t")))
            if txt.strip():
                t.add("links", txt.strip())
        # HYPERLINK fields: complex (instrText) and simple (fldSimple)
        for fs in root.iter(_q(W, "fldSimple")):
            instr = fs.get(_q(W, "instr"), "")
            if re.match(r"\s*HYPERLINK\s", instr) and not _skip_docx(fs):
                t.add("links", "".join(x.text or "" for x in fs.iter(_q(W, "t"))) or instr)
        for it in root.iter(_q(W, "instrText")):
            if re.match(r"\s*HYPERLINK\s", it.text or "") and not _skip_docx(it):
                t.add("links", (it.text or "").strip())
        for blip in root.iter(_q(A, "blip")):
            if not _in_fallback(blip) and (blip.get(_q(R, "embed")) or blip.get(_q(R, "link"))):
                t.add("images", part)
        for im in root.iter(_q(V, "imagedata")):
            if not _in_fallback(im) and im.get(_q(R, "id")):
                # VML shapes that are the Fallback of a DrawingML picture were skipped above
                t.add("images", part)
    t.text = "\n".join(texts)


# ---------------------------------------------------------------- pptx

def _pptx_para(p) -> str:
    parts = []
    for el in p.iter(_q(A, "t"), _q(A, "br")):
        parts.append(el.text or "" if el.tag == _q(A, "t") else " ")
    return "".join(parts)


def _pptx(z: zipfile.ZipFile, t: Truth) -> None:
    pres = "ppt/presentation.xml"
    rels = _rels(z, pres)
    root = _parse(z, pres)
    slides = []
    if root is not None:
        for sid in root.iter(_q(P, "sldId")):
            r = rels.get(sid.get(_q(R, "id")))
            if r:
                slides.append(r[1])
    texts = []
    for slide in slides:
        sroot = _parse(z, slide)
        if sroot is None:
            t.notes.append(f"unreadable {slide}")
            continue
        srels = _rels(z, slide)
        for p in sroot.iter(_q(A, "p")):
            texts.append(_pptx_para(p))
        for sp in sroot.iter(_q(P, "sp")):
            ph = sp.find(f"{_q(P, 'nvSpPr')}/{_q(P, 'nvPr')}/{_q(P, 'ph')}")
            ph_type = ph.get("type") if ph is not None else None
            body = sp.find(_q(P, "txBody"))
            if body is None:
                continue
            title_txt = " ".join(_pptx_para(p) for p in body.iter(_q(A, "p"))).strip()
            if ph_type in ("title", "ctrTitle"):
                if title_txt:
                    t.add("headings", title_txt)
                continue
            content_ph = ph is not None and ph_type in (None, "obj")
            for p in body.iter(_q(A, "p")):
                txt = _pptx_para(p).strip()
                if not txt:
                    continue
                ppr = p.find(_q(A, "pPr"))
                explicit = ppr is not None and (ppr.find(_q(A, "buChar")) is not None or
                                                ppr.find(_q(A, "buAutoNum")) is not None)
                none = ppr is not None and ppr.find(_q(A, "buNone")) is not None
                if explicit or (content_ph and not none):
                    t.add("list_items", txt)
        for tbl in sroot.iter(_q(A, "tbl")):
            t.add("tables", slide)
            for tc in tbl.iter(_q(A, "tc")):
                if (tc.get("gridSpan") or "1") not in ("1", "0") or (tc.get("rowSpan") or "1") not in ("1", "0"):
                    if not tc.get("hMerge") and not tc.get("vMerge"):
                        t.add("merged", " ".join(_pptx_para(p) for p in tc.iter(_q(A, "p"))))
        for rpr in sroot.iter(_q(A, "rPr")):
            h = rpr.find(_q(A, "hlinkClick"))
            if h is None or not h.get(_q(R, "id")):
                continue
            rel = srels.get(h.get(_q(R, "id")))
            if rel and rel[0] == "hyperlink" and rel[2] == "External":
                run = rpr.getparent()
                t.add("links", "".join(x.text or "" for x in run.iter(_q(A, "t"))) or rel[1])
        for pic in sroot.iter(_q(P, "pic")):
            if any(a.tag == _q(P, "bg") for a in pic.iterancestors()) or _in_fallback(pic):
                continue
            blip = pic.find(f".//{_q(A, 'blip')}")
            if blip is not None and (blip.get(_q(R, "embed")) or blip.get(_q(R, "link"))):
                t.add("images", slide)
        # speaker notes: body placeholder text only
        for _rid, (typ, tgt, _) in srels.items():
            if typ != "notesSlide":
                continue
            nroot = _parse(z, tgt)
            if nroot is None:
                continue
            for sp in nroot.iter(_q(P, "sp")):
                ph = sp.find(f"{_q(P, 'nvSpPr')}/{_q(P, 'nvPr')}/{_q(P, 'ph')}")
                if ph is not None and ph.get("type") == "body":
                    for p in sp.iter(_q(A, "p")):
                        texts.append(_pptx_para(p))
    t.text = "\n".join(texts)


# ---------------------------------------------------------------- xlsx

_BUILTIN_FIXED = {0: None, 1: 0, 2: 2, 3: 0, 4: 2, 9: 0, 10: 2, 11: None, 37: 0, 38: 0, 39: 2, 40: 2}  # id → decimals
_DATE_IDS = set(range(14, 23)) | set(range(45, 48)) | set(range(27, 37)) | set(range(50, 59))


def _general(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    s = f"{v:.10g}"
    return s


def _xlsx_formats(z):
    """style index → ('general'|'fixed'|'skip', decimals, percent)."""
    root = _parse(z, "xl/styles.xml")
    if root is None:
        return []
    custom = {}
    for nf in root.iter(_q(S, "numFmt")):
        try:
            custom[int(nf.get("numFmtId"))] = nf.get("formatCode", "")
        except (TypeError, ValueError):
            pass
    out = []
    xfs = root.find(_q(S, "cellXfs"))
    for xf in (xfs if xfs is not None else []):
        try:
            fid = int(xf.get("numFmtId", "0"))
        except ValueError:
            fid = 0
        if fid in _BUILTIN_FIXED:
            dec = _BUILTIN_FIXED[fid]
            if fid == 0:
                out.append(("general", None, False))
            elif dec is None:  # 11: scientific
                out.append(("skip", 0, False))
            else:
                out.append(("fixed", dec, fid in (9, 10)))
        elif fid in custom:
            sections = [re.sub(r'"[^"]*"|\[[^\]]*\]|\\.|_.|\*.', "", x) for x in custom[fid].split(";")]
            code = sections[0]
            if re.search(r"[dmyhs]", code, re.I) or "E" in code.upper():
                out.append(("skip", 0, False))
            elif len(sections) >= 3 and not re.search(r"[0#?]", sections[2]):
                # accounting style: zero shows as "-" (or text), other values as the first section
                m = re.search(r"\.([0#]+)", code)
                out.append(("fixed-nozero", len(m.group(1)) if m else 0, "%" in code))
            else:
                m = re.search(r"\.([0#]+)", code)
                out.append(("fixed", len(m.group(1)) if m else 0, "%" in code))
        elif fid in _DATE_IDS:
            out.append(("skip", 0, False))
        else:
            out.append(("general", None, False))
    return out


_DISPIMG = re.compile(r'\s*=?\s*(?:_xlfn\.)?DISPIMG\(\s*"([^"]+)"', re.I)


def _xlsx(z: zipfile.ZipFile, t: Truth) -> None:
    sst = []
    root = _parse(z, "xl/sharedStrings.xml")
    if root is not None:
        for si in root.iter(_q(S, "si")):
            sst.append("".join(x.text or "" for x in si.iter(_q(S, "t"))
                               if not any(a.tag == _q(S, "rPh") for a in x.iterancestors())))
    fmts = _xlsx_formats(z)
    wb = "xl/workbook.xml"
    rels = _rels(z, wb)
    wroot = _parse(z, wb)
    texts = []
    if wroot is None:
        t.notes.append("no workbook.xml")
        return
    for sh in wroot.iter(_q(S, "sheet")):
        if sh.get("state") in ("hidden", "veryHidden"):
            continue
        rel = rels.get(sh.get(_q(R, "id")))
        if not rel or rel[0] != "worksheet":
            continue
        part = rel[1]
        sroot = _parse(z, part)
        if sroot is None:
            t.notes.append(f"unreadable {part}")
            continue
        nonempty = 0
        for c in sroot.iter(_q(S, "c")):
            typ = c.get("t", "n")
            v = c.find(_q(S, "v"))
            val = ""
            if typ == "s" and v is not None and (v.text or "").strip().isdigit():
                i = int(v.text)
                val = sst[i] if i < len(sst) else ""
            elif typ == "inlineStr":
                is_ = c.find(_q(S, "is"))
                val = "".join(x.text or "" for x in is_.iter(_q(S, "t"))) if is_ is not None else ""
            elif typ in ("str", "e") and v is not None:
                val = v.text or "" if typ == "str" else ""
                f = c.find(_q(S, "f"))
                m = _DISPIMG.match(f.text or "") if f is not None else None
                if m:  # a WPS in-cell picture (xl/cellimages.xml): an image, not text
                    val = ""
                    nonempty += 1
                    t.add("images", f"{part} {c.get('r')} {m.group(1)}")
            elif typ == "b" and v is not None:
                val = "TRUE" if (v.text or "").strip() == "1" else "FALSE"
            elif typ == "n" and v is not None and v.text:
                try:
                    num = float(v.text)
                except ValueError:
                    num = None
                if num is not None:
                    si = int(c.get("s", "0")) if (c.get("s") or "0").isdigit() else 0
                    kind, dec, pct = fmts[si] if si < len(fmts) else ("general", None, False)
                    if kind == "general":
                        val = _general(num)
                    elif kind == "fixed" or (kind == "fixed-nozero" and num != 0):
                        val = f"{num * (100 if pct else 1):,.{dec}f}"
                    nonempty += 1  # a number is content even when we do not know how it shows
            if val.strip():
                nonempty += 1
                texts.append(val)
        if nonempty:
            t.add("tables", sh.get("name", part))
        for mc in sroot.iter(_q(S, "mergeCell")):
            t.add("merged", mc.get("ref", ""))
        srels = _rels(z, part)
        for h in sroot.iter(_q(S, "hyperlink")):
            rid = h.get(_q(R, "id"))
            if rid and rid in srels and srels[rid][2] == "External":
                t.add("links", f"{h.get('ref')} → {srels[rid][1]}")
        for _rid, (typ, tgt, _) in srels.items():
            if typ == "drawing":
                droot = _parse(z, tgt)
                if droot is None:
                    continue
                for blip in droot.iter(_q(A, "blip")):
                    if blip.get(_q(R, "embed")) or blip.get(_q(R, "link")):
                        t.add("images", tgt)
    t.text = "\n".join(texts)


def truth(path: str, kind: str) -> Truth:
    """Read the reference of one file of ``kind`` ("docx", "pptx" or "xlsx"; the web
    kinds of ``bench/web_truth.py`` too)."""
    if kind not in ("docx", "pptx", "xlsx"):
        return web_truth(path, kind)
    t = Truth()
    try:
        with zipfile.ZipFile(path) as z:
            {"docx": _docx, "pptx": _pptx, "xlsx": _xlsx}[kind](z, t)
    except zipfile.BadZipFile as e:
        t.notes.append(f"bad zip: {e}")
    return t


def kind_of(path: str) -> str | None:
    """The OOXML kind of ``path`` from its content types (not its name); for other files
    the web kind its name gives (``bench/web_truth.py``), if any."""
    try:
        with zipfile.ZipFile(path) as z:
            ct = z.read("[Content_Types].xml").decode("utf-8", "replace")
    except (zipfile.BadZipFile, KeyError, OSError):
        return web_kind(path)
    if "wordprocessingml.document" in ct or "ms-word.document" in ct:
        return "docx"
    if "presentationml.presentation" in ct or "ms-powerpoint" in ct:
        return "pptx"
    if "spreadsheetml.sheet" in ct or "ms-excel.sheet" in ct:
        return "xlsx"
    return None


def _selfcheck() -> None:
    """Build a small docx with python-docx and check the counts (``python bench/office_truth.py``)."""
    import tempfile
    import docx  # python-docx, in the project's venv

    d = docx.Document()
    d.add_heading("Title here", 0)
    d.add_heading("Section", 1)
    d.add_paragraph("one", style="List Bullet")
    d.add_paragraph("two", style="List Number")
    d.add_paragraph("")  # empty list/heading paragraphs do not count
    t = d.add_table(rows=2, cols=3)
    t.cell(0, 0).merge(t.cell(0, 1))  # gridSpan 2
    t.cell(0, 2).merge(t.cell(1, 2))  # vMerge restart
    t.cell(1, 0).text = "Hello w"
    t.cell(1, 0).paragraphs[0].add_run("orld")  # a word split across runs stays one word
    with tempfile.NamedTemporaryFile(suffix=".docx") as fh:
        d.save(fh.name)
        tr = truth(fh.name, kind_of(fh.name))
    got = {k: tr.counts[k] for k in ("tables", "headings", "list_items", "merged")}
    assert got == {"tables": 1, "headings": 2, "list_items": 2, "merged": 2}, got
    assert "Hello world" in tr.text, tr.text
    print("office_truth self-check ok:", got)


if __name__ == "__main__":
    _selfcheck()
