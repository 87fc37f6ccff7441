"""Build small .docx files from raw WordprocessingML for the reader's tests.

python-docx cannot write tracked changes, fields, math, text boxes or AlternateContent,
so these tests write the package themselves: a minimal but valid OPC zip.
"""

from __future__ import annotations

import io
import zipfile

NS = ('xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
      'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" '
      'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
      'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
      'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
      'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" '
      'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
      'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" '
      'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office"')

RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
CT_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
CT = {
    "styles": "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml",
    "numbering": "application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml",
    "footnotes": "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml",
    "endnotes": "application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml",
    "comments": "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml",
    "header": "application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml",
    "footer": "application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml",
}
ROOT = {"styles": "styles", "numbering": "numbering", "footnotes": "footnotes",
        "endnotes": "endnotes", "comments": "comments", "header": "hdr", "footer": "ftr"}

# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def p(text: str, ppr: str = "", rpr: str = "") -> str:
    """A one-run paragraph."""
    ppr = f"<w:pPr>{ppr}</w:pPr>" if ppr else ""
    rpr = f"<w:rPr>{rpr}</w:rPr>" if rpr else ""
    return f'<w:p>{ppr}<w:r>{rpr}<w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


def run(text: str, rpr: str = "") -> str:
    rpr = f"<w:rPr>{rpr}</w:rPr>" if rpr else ""
    return f'<w:r>{rpr}<w:t xml:space="preserve">{text}</w:t></w:r>'


def cell(inner: str, tcpr: str = "") -> str:
    tcpr = f"<w:tcPr>{tcpr}</w:tcPr>" if tcpr else ""
    return f"<w:tc>{tcpr}{inner}</w:tc>"


def table(rows: list[list[str]], grid: int = 0) -> str:
    cols = "".join("<w:gridCol/>" for _ in range(grid or max(len(r) for r in rows)))
    body = "".join("<w:tr>" + "".join(r) + "</w:tr>" for r in rows)
    return f"<w:tbl><w:tblGrid>{cols}</w:tblGrid>{body}</w:tbl>"


def image_run(rid: str, descr: str = "", anchor: bool = False) -> str:
    kind = "anchor" if anchor else "inline"
    return (f'<w:r><w:drawing><wp:{kind}><wp:extent cx="100" cy="100"/>'
            f'<wp:docPr id="1" name="Picture 1" descr="{descr}"/>'
            '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
            '<pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="p.png"/><pic:cNvPicPr/></pic:nvPicPr>'
            f'<pic:blipFill><a:blip r:embed="{rid}"/></pic:blipFill><pic:spPr/></pic:pic>'
            f'</a:graphicData></a:graphic></wp:{kind}></w:drawing></w:r>')


def build_docx(body: str, parts: dict[str, str] | None = None, links: dict[str, str] | None = None,
               images: dict[str, bytes] | None = None, raw: dict[str, bytes] | None = None,
               others: dict[str, tuple[str, str, str, bytes]] | None = None,
               linked_images: dict[str, str] | None = None) -> bytes:
    """A .docx with ``body`` inside ``w:body``.

    ``parts`` maps a kind ("styles", "numbering", "footnotes", "header"...) to the inner
    XML of its root element (or to full XML when it starts with ``<?xml``). ``links``
    maps rIds to external hyperlink targets; ``images`` maps rIds to PNG bytes.
    ``raw`` adds or overrides zip members verbatim (to break things on purpose).
    ``others`` maps rIds to (relationship type, file name under word/, content type, bytes).
    ``linked_images`` maps rIds to the targets of external image relationships ("link to file").
    """
    parts = parts or {}
    links = links or {}
    images = images or {}
    overrides = [f'<Override PartName="/word/document.xml" ContentType="{CT_MAIN}"/>']
    rels = []
    files: dict[str, bytes] = {}
    for i, (kind, xml) in enumerate(parts.items()):
        name = f"word/{kind}{'1' if kind in ('header', 'footer') else ''}.xml"
        overrides.append(f'<Override PartName="/{name}" ContentType="{CT[kind]}"/>')
        rels.append(f'<Relationship Id="rPart{i}" Type="{RT}{kind}" Target="{name[5:]}"/>')
        if not xml.startswith("<?xml"):
            xml = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:{ROOT[kind]} {NS}>{xml}</w:{ROOT[kind]}>'
        files[name] = xml.encode("utf-8")
    for rid, (rtype, fname, ctype, data) in (others or {}).items():
        overrides.append(f'<Override PartName="/word/{fname}" ContentType="{ctype}"/>')
        rels.append(f'<Relationship Id="{rid}" Type="{rtype}" Target="{fname}"/>')
        files[f"word/{fname}"] = data
    for rid, url in links.items():
        rels.append(f'<Relationship Id="{rid}" Type="{RT}hyperlink" Target="{url}" TargetMode="External"/>')
    for rid, url in (linked_images or {}).items():
        rels.append(f'<Relationship Id="{rid}" Type="{RT}image" Target="{url}" TargetMode="External"/>')
    for i, (rid, data) in enumerate(images.items()):
        rels.append(f'<Relationship Id="{rid}" Type="{RT}image" Target="media/image{i + 1}.png"/>')
        files[f"word/media/image{i + 1}.png"] = data
    content_types = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                     '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                     '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                     '<Default Extension="xml" ContentType="application/xml"/>'
                     '<Default Extension="png" ContentType="image/png"/>' + "".join(overrides) + "</Types>")
    root_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                 '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                 f'<Relationship Id="rId1" Type="{RT}officeDocument" Target="word/document.xml"/>'
                 '</Relationships>')
    doc_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                + "".join(rels) + "</Relationships>")
    document = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {NS}>'
                f"<w:body>{body}<w:sectPr><w:pgSz w:w=\"12240\" w:h=\"15840\"/></w:sectPr></w:body></w:document>")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("[Content_Types].xml", content_types)
        zf.writestr("_rels/.rels", root_rels)
        zf.writestr("word/_rels/document.xml.rels", doc_rels)
        zf.writestr("word/document.xml", document)
        for name, data in {**files, **(raw or {})}.items():
            zf.writestr(name, data)
    return buf.getvalue()


def heading_styles() -> str:
    """styles.xml content: Normal, Title, Heading 1-3, a custom heading, Caption, a char style."""
    out = ['<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>',
           '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>']
    for n in (1, 2, 3):
        out.append(f'<w:style w:type="paragraph" w:styleId="Heading{n}"><w:name w:val="heading {n}"/>'
                   f'<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="{n - 1}"/></w:pPr>'
                   '<w:rPr><w:b/></w:rPr></w:style>')
    out.append('<w:style w:type="paragraph" w:styleId="MyChapter"><w:name w:val="My Chapter"/>'
               '<w:basedOn w:val="Heading2"/></w:style>')
    out.append('<w:style w:type="paragraph" w:styleId="Caption"><w:name w:val="caption"/>'
               '<w:basedOn w:val="Normal"/><w:rPr><w:i/></w:rPr></w:style>')
    out.append('<w:style w:type="character" w:styleId="Strong"><w:name w:val="Strong"/>'
               '<w:rPr><w:b/></w:rPr></w:style>')
    out.append('<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/>'
               '<w:rPr><w:i/></w:rPr></w:style>')
    return "".join(out)


def numbering(levels: list[tuple[str, str]], start: int = 1, abstract: str = "0",
              nums: dict[str, str] | None = None) -> str:
    """numbering.xml content: one abstract list with ``levels`` of (numFmt, lvlText).

    ``nums`` maps numIds to extra XML inside their ``w:num`` (e.g. a startOverride).
    """
    lvls = "".join(f'<w:lvl w:ilvl="{i}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/>'
                   f'<w:lvlText w:val="{text}"/></w:lvl>' for i, (fmt, text) in enumerate(levels))
    nums = nums or {"1": ""}
    out = f'<w:abstractNum w:abstractNumId="{abstract}">{lvls}</w:abstractNum>'
    for nid, extra in nums.items():
        out += f'<w:num w:numId="{nid}"><w:abstractNumId w:val="{abstract}"/>{extra}</w:num>'
    return out


def numpr(num_id: str, ilvl: int = 0) -> str:
    return f'<w:numPr><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr>'
