"""``<stem>_layout.pdf``: every page with its layout blocks drawn over it, as MinerU draws them.

MinerU 4.0.12 (docvortex ``render_layout_pdf``) strokes each block's box with a 1-pt outline
in a colour per type and labels it ``"type: index"`` in 7-pt Helvetica of the same colour.
We do the same with pypdfium2, already our PDF library, so no PDF writer is added:

* a PDF page is copied as a Form XObject (its content stays vector and untouched, nothing
  is re-rendered) onto a new page the size of the page as displayed, so /Rotate and crop
  boxes are already applied and boxes are drawn in plain display coordinates;
* an image page (a scan or photo input) is embedded as JPEG on a page sized at 200 dpi, the
  resolution MinerU wraps images at;
* a PDF page without blocks (``--effort low`` reads none; a page that failed) is imported as
  it is, its content streams copied byte for byte and never parsed: drawing on a page makes
  PDFium regenerate the page's content (``FPDFPage_GenerateContent``, about 60 ms a page of
  text on two cores), which would make the drawing of a 300-page text PDF read at ``low``
  cost more than reading it. Runs of such pages are imported in one call, so the fonts and
  images they share are copied once. Such a page keeps its own /Rotate (it shows the same).
"""

from __future__ import annotations

import ctypes
import io
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

LINE_WIDTH = 1.0
LABEL_SIZE = 7.0
IMAGE_DPI = 200
# pages in PDFium at a time: a longer drawing is saved a chunk at a time (see save_layout_pdf)
CHUNK_PAGES = 100

_TEXT = (0.60, 0.05, 0.30)
_GREY = (0.62, 0.62, 0.62)
_CAPTION = (0.10, 0.55, 0.90)
_PICTURE = (0.30, 0.85, 0.05)
_PICTURE_NOTE = (0.95, 0.45, 0.10)
_CODE = (0.40, 0.00, 0.80)
UNKNOWN_COLOUR = (0.90, 0.10, 0.10)

# RGB 0-1 by block type: MinerU's colours, with MinerU2.5's layout type names mapped onto
# the middle-JSON names they stand for (a VLM "table" is drawn as a table body...).
LAYOUT_COLOURS: dict[str, tuple[float, float, float]] = {
    "text": _TEXT, "phonetic": _TEXT, "abstract": _TEXT, "list_item": _TEXT,
    "ref_text": (0.45, 0.20, 0.65),
    "doc_title": (0.20, 0.20, 0.80), "title": (0.20, 0.20, 0.80),
    "paragraph_title": (0.20, 0.40, 0.90),
    "equation": (0.00, 0.60, 0.10), "interline_equation": (0.00, 0.60, 0.10),
    "equation_block": (0.00, 0.60, 0.10),
    "list": (0.10, 0.60, 0.35), "index": (0.10, 0.60, 0.35),
    "image": _PICTURE, "image_body": _PICTURE, "chart": _PICTURE, "chart_body": _PICTURE,
    "image_block": _PICTURE,
    "image_caption": _CAPTION, "chart_caption": _CAPTION, "caption": _CAPTION,
    "image_footnote": _PICTURE_NOTE, "chart_footnote": _PICTURE_NOTE, "footnote": _PICTURE_NOTE,
    "table": (0.80, 0.80, 0.00), "table_body": (0.80, 0.80, 0.00),
    "table_caption": (1.00, 0.85, 0.10),
    "table_footnote": (0.55, 0.90, 0.25),
    "code": _CODE, "code_body": _CODE, "algorithm": _CODE,
    "code_caption": (0.70, 0.35, 0.95),
    "code_footnote": (0.85, 0.70, 0.95),
    "page_footnote": (0.00, 0.50, 0.50),
    "header": _GREY, "footer": _GREY, "page_number": _GREY, "aside_text": _GREY,
}


def colour_for(block_type: str) -> tuple[float, float, float]:
    return LAYOUT_COLOURS.get(block_type, UNKNOWN_COLOUR)


@dataclass
class LayoutPage:
    """One page of the drawing.

    ``blocks``: ``(type, (x0, y0, x1, y1))`` or ``(type, box, order)`` with boxes
    normalised (0-1) to the page as displayed (the rendered image); ``order`` defaults to
    the block's position in the list. The page itself is either page ``page_index``
    (0-based) of the PDF ``pdf_path``, or ``image`` (a PIL image, or the path of an image
    file with ``page_index`` as its frame; its EXIF orientation is applied).
    """

    blocks: Sequence[tuple]
    pdf_path: str | Path | None = None
    page_index: int = 0
    image: object = None


def write_layout_pdf(path_out, pages: Iterable[LayoutPage]) -> Path:
    """Write the layout drawing of ``pages`` (taken one at a time) to ``path_out``."""
    path_out = Path(path_out)
    path_out.parent.mkdir(parents=True, exist_ok=True)
    tmp = path_out.with_name(path_out.name + ".part")
    try:
        with open(tmp, "wb") as f:  # straight to disk: the file's bytes are never all in memory
            save_layout_pdf(pages, f)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path_out)  # a reader never sees a half-written file
    return path_out


def layout_pdf_bytes(pages: Iterable[LayoutPage]) -> bytes:
    """The layout drawing of ``pages`` (taken one at a time) as the bytes of a PDF file."""
    import io

    buffer = io.BytesIO()
    save_layout_pdf(pages, buffer)
    return buffer.getvalue()


def save_layout_pdf(pages: Iterable[LayoutPage], dest) -> None:
    """Write the layout drawing of ``pages`` to ``dest``, an open binary file (no copy of
    its bytes in memory: the output writer's ``<stem>_layout.pdf``).

    At most :data:`CHUNK_PAGES` pages are in PDFium at a time: a drawing of up to that many
    pages is one new document saved whole; a longer one is drawn a chunk at a time, each
    chunk in a new document whose pages are then imported into the file saved so far (opened
    lazily, its earlier pages never loaded) and the file saved again incrementally (the new
    objects appended after its bytes). The chunk is drawn apart because drawing on a page of
    the reopened file (``FPDFPage_GenerateContent``) makes PDFium load every page of it and
    write them all again. Those rounds go through temporary files; only the last writes to
    ``dest``.
    """
    import tempfile

    from mineru_tui.pdf.pdfium import load

    pdfium = load()  # every call under the process's PDFium lock
    pages = iter(pages)
    # the rounds' files beside ``dest`` when it is a file (in the output set's partial folder,
    # which the next write to the folder removes if a SIGKILL leaves it), else in the temp folder
    name = getattr(dest, "name", None)
    beside = Path(name).parent if isinstance(name, str) and Path(name).parent.is_dir() else None
    with tempfile.TemporaryDirectory(prefix="mineru-tui-layout-", dir=beside) as tmp_dir:
        saved: Path | None = None  # the drawing so far, when it is longer than one chunk
        more = None
        for chunk in itertools.count():
            out = pdfium.PdfDocument.new()
            try:
                more = _draw_chunk(out, pages, CHUNK_PAGES, more)
                target = dest if more is None else Path(tmp_dir) / f"chunk{chunk}.pdf"
                if saved is None:
                    out.save(target)
                else:
                    so_far = pdfium.PdfDocument(str(saved))
                    try:
                        so_far.import_pages(out)
                        so_far.save(target, flags=pdfium.raw.FPDF_INCREMENTAL)
                    finally:
                        so_far.close()
                    saved.unlink()
            finally:
                out.close()
            if more is None:
                return
            saved = target


def _draw_chunk(out, pages: Iterator[LayoutPage], limit: int,
                first: LayoutPage | None = None) -> LayoutPage | None:
    """Append ``first`` (when given) and then pages of ``pages`` to ``out``, ``limit`` in
    all; returns the next page when there is one more (taken from ``pages``), else None."""
    sources: dict[Path, object] = {}  # open source PDFs, by path: closed with the chunk
    run: list = []  # pages without blocks waiting to be imported: [source, [indices]]
    done = 0
    try:
        for lp in itertools.chain([first] if first is not None else [], pages):
            if done == limit:
                _import_run(out, sources, run)
                return lp
            done += 1
            if lp.pdf_path is not None and not lp.blocks:
                path = Path(lp.pdf_path)
                if run and run[0] == path:
                    run[1].append(lp.page_index)
                else:
                    _import_run(out, sources, run)
                    run = [path, [lp.page_index]]
                continue
            _import_run(out, sources, run)
            run = []
            if lp.pdf_path is not None:
                page, (w, h) = _copy_pdf_page(out, sources, Path(lp.pdf_path), lp.page_index)
            else:
                page, (w, h) = _image_page(out, lp.image, lp.page_index)
            for i, entry in enumerate(lp.blocks):
                kind, box = entry[0], entry[1]
                order = entry[2] if len(entry) > 2 else i
                _draw_block(out, page, kind, box, order, w, h)
            page.gen_content()
            page.close()
        _import_run(out, sources, run)
        return None
    finally:
        for src in sources.values():
            src.close()


def _import_run(out, sources: dict, run: list) -> None:
    """Append the pages of ``run`` (``[path, [indices]]``, or empty) unchanged to ``out``."""
    if not run:
        return
    from mineru_tui.pdf.reader import open_pdf

    path, indices = run
    src = sources.get(path)
    if src is None:
        src = sources[path] = open_pdf(path)
    # PDFium copies the page dictionaries and what they use without parsing any content
    out.import_pages(src.raw, indices)


def _copy_pdf_page(out, sources: dict, path: Path, index: int):
    """A new page showing page ``index`` of ``path`` as displayed; returns (page, size).

    PDFium's page XObject already maps the crop box, turned by /Rotate, onto
    (0, 0)-(width, height) of the displayed page, so it is placed as is.
    """
    from mineru_tui.pdf.reader import PageError, open_pdf

    src = sources.get(path)
    if src is None:
        src = sources[path] = open_pdf(path)
    try:
        with src.page(index) as sp:
            w, h = sp.size_pt
    except PageError:  # a page that was not read (refused by the page probe): a blank page
        try:
            w, h = src.raw.get_page_size(index)  # from the page's dictionary, not its content
        except Exception:  # noqa: BLE001 - any size will do for a blank page
            w, h = 612.0, 792.0
        return out.new_page(w if w > 0 else 612.0, h if h > 0 else 792.0), (w, h)
    page = out.new_page(w, h)
    xobject = src.raw.page_as_xobject(index, out)
    page.insert_obj(xobject.as_pageobject())
    xobject.close()
    return page, (w, h)


def _image_page(out, image, frame: int):
    """A new page holding ``image`` at 200 dpi, embedded as JPEG; returns (page, size)."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageOps

    if not isinstance(image, Image.Image):
        with Image.open(image) as im:
            if frame:
                im.seek(frame)
            # the layout was found on the upright image: apply EXIF orientation as readers do
            image = ImageOps.exif_transpose(im).convert("RGB")
    else:
        image = image.convert("RGB")
    w, h = image.width * 72 / IMAGE_DPI, image.height * 72 / IMAGE_DPI
    page = out.new_page(w, h)
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=90)
    buf.seek(0)
    pdf_image = pdfium.PdfImage.new(out)
    pdf_image.load_jpeg(buf, inline=True)
    pdf_image.set_matrix(pdfium.PdfMatrix().scale(w, h))
    page.insert_obj(pdf_image)
    return page, (w, h)


def _draw_block(out, page, kind: str, box, order, w: float, h: float) -> None:
    import pypdfium2.raw as pdfium_c

    x0, y0, x1, y1 = (float(v) for v in box)
    x0, x1 = sorted((x0 * w, x1 * w))
    y0, y1 = sorted((y0 * h, y1 * h))
    r, g, b = (round(c * 255) for c in colour_for(kind))
    rect = pdfium_c.FPDFPageObj_CreateNewRect(x0, h - y1, x1 - x0, y1 - y0)
    pdfium_c.FPDFPageObj_SetStrokeColor(rect, r, g, b, 255)
    pdfium_c.FPDFPageObj_SetStrokeWidth(rect, LINE_WIDTH)
    pdfium_c.FPDFPath_SetDrawMode(rect, pdfium_c.FPDF_FILLMODE_NONE, True)
    pdfium_c.FPDFPage_InsertObject(page, rect)

    label = pdfium_c.FPDFPageObj_NewTextObj(out, b"Helvetica", LABEL_SIZE)
    text = (f"{kind}: {order}" + "\x00").encode("utf-16-le")
    buf = ctypes.create_string_buffer(text, len(text))
    pdfium_c.FPDFText_SetText(label, ctypes.cast(buf, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
    pdfium_c.FPDFPageObj_SetFillColor(label, r, g, b, 255)
    top = h - y0
    # above the box's top-left corner; inside it when the box touches the page top
    baseline = top + 1.5 if top + 1.5 + LABEL_SIZE <= h else top - LABEL_SIZE
    pdfium_c.FPDFPageObj_Transform(label, 1, 0, 0, 1, x0 + (0 if baseline > top else 1.5),
                                   baseline)
    pdfium_c.FPDFPage_InsertObject(page, label)
