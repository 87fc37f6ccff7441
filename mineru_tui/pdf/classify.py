"""Can a page's text layer be trusted? MinerU's classification, decided per page.

MinerU 4.0.12 classifies a whole PDF as ``txt`` (usable text layer) or ``ocr`` from up to 10
sampled pages. We apply the same criteria to each page on its own, so a born-digital report
with scanned appendices uses its text layer on the digital pages and the model on the scans.
:func:`classify_document` gives MinerU's document-level answer too (same criteria, pooled
over the sampled pages), for reporting.

Criteria (MinerU's thresholds; the first that fires sends the page to the model):
aspect ratio over 10; more than 65,535 characters; fewer than 50 non-space characters;
Unicode-map errors at 4 % or more; abnormal characters (controls, U+FFFD, private use) at
3 % or more of at least 300; the U+7280-U+72DF garbling signature; cross-script noise;
ASCII punctuation soup; most of the text a hidden layer (invisible, or covered) over an
image (an OCR layer).
Not checked (they need the fonts' dictionaries, which PDFium does not expose): CID fonts
without ToUnicode and Latin fonts decoding to CJK; both usually also raise map errors or
abnormal characters, which are checked.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass, field

from mineru_tui.pdf.chars import MAX_NATIVE_CHARS, Char, page_chars
from mineru_tui.pdf.lines import is_cjk, is_private_use

MAX_SAMPLE_PAGES = 10
MAX_PAGE_ASPECT_RATIO = 10.0
CHARS_THRESHOLD = 50
MAP_ERROR_RATIO = 0.04
ABNORMAL_RATIO, ABNORMAL_MIN_CHARS = 0.03, 300
GARBLE_RANGE, GARBLE_MIN, GARBLE_RATIO = (0x7280, 0x72DF), 30, 0.026
MIXED_MIN_TOTAL, MIXED_MIN_CJK, MIXED_MIN_OTHER, MIXED_RATIO = 300, 100, 120, 0.18
MIXED_SCRIPTS, MIXED_SCRIPT_MIN = 3, 5
PUNCT_MIN_CHARS, PUNCT_RATIO, PUNCT_RUN_RATIO = 100, 0.25, 0.10
IMAGE_TEXT_OVERLAP = 0.8
IMAGE_TEXT_MIN, IMAGE_TEXT_RATIO = 50, 0.5

_ASCII_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_PUNCT_RUN = re.compile("[" + re.escape("".join(sorted(_ASCII_PUNCT))) + "]{4,}")
_SCRIPTS = (  # (name, first, last) for the non-CJK scripts the noise check counts
    ("latin", 0x41, 0x24F), ("greek", 0x370, 0x3FF), ("cyrillic", 0x400, 0x52F),
    ("armenian", 0x530, 0x58F), ("hebrew", 0x590, 0x5FF), ("arabic", 0x600, 0x6FF),
    ("devanagari", 0x900, 0x97F), ("thai", 0xE00, 0xE7F), ("georgian", 0x10A0, 0x10FF),
)


@dataclass(frozen=True)
class PageDecision:
    """Whether to use a page's text layer, and why (a short sentence for the middle JSON).

    ``blank`` marks a page with nothing on it (no characters, no objects): an empty page,
    not a scan, so neither the text layer nor the model has anything to read.
    """

    use_text_layer: bool
    reason: str
    blank: bool = False


@dataclass(frozen=True)
class DocumentDecision:
    """MinerU's whole-document answer: ``kind`` is ``"txt"`` or ``"ocr"``."""

    kind: str
    reason: str
    pages: dict[int, PageDecision] = field(default_factory=dict)  # the sampled pages


@dataclass
class TextStats:
    """Counts over one page's (or several pages') characters."""

    chars: int = 0  # non-whitespace
    map_errors: int = 0
    abnormal: int = 0
    cjk: int = 0
    garble: int = 0
    scripts: dict[str, int] = field(default_factory=dict)
    punct: int = 0
    punct_in_runs: int = 0

    def add(self, other: TextStats) -> None:
        for name in ("chars", "map_errors", "abnormal", "cjk", "garble", "punct",
                     "punct_in_runs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, v in other.scripts.items():
            self.scripts[k] = self.scripts.get(k, 0) + v


def text_stats(chars: list[Char]) -> TextStats:
    """The counts ``_text_problem`` judges, over ``chars`` in their order."""
    s = TextStats()
    texts = [c.text for c in chars]
    scripts = s.scripts
    kinds: dict[str, tuple] = {}
    # a page repeats few distinct characters: each judged once, counted by how often it occurs
    for t, n in Counter(texts).items():
        space, abnormal, cjk, garble, script, punct = kinds[t] = _char_kind(t)
        if space:
            continue
        s.chars += n
        s.abnormal += abnormal * n  # soft hyphens taken off below
        if cjk:
            s.cjk += n
            s.garble += garble * n
        elif script is not None:
            scripts[script] = scripts.get(script, 0) + n
        s.punct += punct * n
    for c in [c for c in chars if c.map_error or c.hyphen]:  # few characters, if any
        space, abnormal = kinds[c.text][:2]
        if not space:
            s.map_errors += c.map_error
            s.abnormal -= abnormal and c.hyphen
    if s.punct >= 4:  # runs of four or more punctuation marks, two kinds at least
        # found in the page's text as one string (each character's text is one character,
        # as _char_kind takes it), not walked character by character
        s.punct_in_runs = sum(len(run) for run in _PUNCT_RUN.findall("".join(texts))
                              if len(set(run)) >= 2)
    return s


@functools.lru_cache(maxsize=4096)  # pages share their characters
def _char_kind(t: str) -> tuple[bool, bool, bool, int, str | None, bool]:
    """(space, abnormal unless a hyphen, CJK, in the garbling range, its script or None,
    ASCII punctuation) of one character's text."""
    if t.isspace():
        return (True, False, False, 0, None, False)
    o = ord(t)
    abnormal = o == 0 or t == "\ufffd" or o < 32 or 127 <= o <= 159 or is_private_use(t)
    cjk = is_cjk(t)
    garble = int(cjk and GARBLE_RANGE[0] <= o <= GARBLE_RANGE[1])
    script = None
    if not cjk:
        for name, lo, hi in _SCRIPTS:
            if lo <= o <= hi and t.isalpha():
                script = name
                break
    return (False, abnormal, cjk, garble, script, t in _ASCII_PUNCT)


def _text_problem(s: TextStats, per_page: bool) -> str | None:
    """The first text-quality check that fails, as a sentence, or None."""
    n = s.chars
    if n and s.map_errors / n >= MAP_ERROR_RATIO:
        return (f"{s.map_errors / n:.0%} of its characters have no Unicode mapping "
                f"(limit {MAP_ERROR_RATIO:.0%}).")
    if n >= ABNORMAL_MIN_CHARS and s.abnormal / n >= ABNORMAL_RATIO:
        return (f"{s.abnormal / n:.0%} of its characters are control or private-use "
                f"characters (limit {ABNORMAL_RATIO:.0%}).")
    if s.garble >= GARBLE_MIN and s.cjk and s.garble / s.cjk >= GARBLE_RATIO:
        return "its CJK text shows a known garbling signature (U+7280-U+72DF)."
    other = sum(v for k, v in s.scripts.items() if k != "latin")
    dense = sum(1 for v in s.scripts.values() if v >= MIXED_SCRIPT_MIN) + (
        s.cjk >= MIXED_SCRIPT_MIN)
    if (n >= MIXED_MIN_TOTAL and s.cjk >= MIXED_MIN_CJK and other >= MIXED_MIN_OTHER
            and other / n >= MIXED_RATIO and dense >= MIXED_SCRIPTS):
        return "its text mixes scripts the way garbled text does."
    if per_page and n >= PUNCT_MIN_CHARS and s.punct / n >= PUNCT_RATIO \
            and s.punct_in_runs / n >= PUNCT_RUN_RATIO:
        return f"{s.punct / n:.0%} of its text is ASCII punctuation in runs (garbled text)."
    return None


def _image_rects(page) -> list[tuple[float, float, float, float]]:
    """Display-frame rectangles of the page's images (inside forms too)."""
    return [rect for rect, _ in _images_in_paint_order(page)[0]]


def _images_in_paint_order(page):
    """([(display rect, paint position)] of the images, {text object address: position}):
    positions in the order objects are painted, forms entered depth first. A page without
    images gives no positions of its text objects (nothing lies over an image there)."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    from mineru_tui.pdf.pdfium import kept_page_objects, object_bounds

    objects = kept_page_objects(page, max_depth=4)
    image_kind = pdfium_c.FPDF_PAGEOBJ_IMAGE
    images = []
    for pos, (kind, obj) in enumerate(objects):
        if kind == image_kind:
            left, bottom, right, top = object_bounds(obj)
            images.append((page.rect_to_display(left, bottom, right, top), pos))
    if not images:
        return [], {}
    # the pointer's value read in place: ctypes.cast would tie obj into a reference cycle
    # (left to the garbage collector), one per text object
    text_kind, address = pdfium_c.FPDF_PAGEOBJ_TEXT, ctypes.c_void_p.from_buffer
    texts = {address(obj).value or 0: pos for pos, (kind, obj) in enumerate(objects)
             if kind == text_kind}
    return images, texts


def _ocr_layer_share(page, chars: list[Char]) -> tuple[int, int]:
    """(characters lying over an image, of those the ones that paint nothing: drawn
    invisibly, or drawn first and then covered by the image, as "text under image" OCR
    output does). MinerU finds the same by rendering the page with and without its text."""
    has_text = any(not c.text.isspace() for c in chars)
    images, texts = _images_in_paint_order(page) if has_text else ([], {})
    if not images:
        return 0, 0
    # the images' extent together: a character wholly beside it lies over none of them (not
    # used when a corner is NaN, which min and max would pass over)
    corners = [r for r, _ in images]
    near = all(v == v for r in corners for v in r)
    left, top = min(r[0] for r in corners), min(r[1] for r in corners)
    right, bottom = max(r[2] for r in corners), max(r[3] for r in corners)
    over = hidden = 0
    for c in chars:
        if c.text.isspace():
            continue
        x0, y0, x1, y1 = c.box
        area = (x1 - x0) * (y1 - y0)
        if near:  # no cover: the character's box (its centre, for an empty box) is beside
            if area > 0:
                if x1 <= left or x0 >= right or y1 <= top or y0 >= bottom:
                    continue
            elif not (left <= c.cx <= right and top <= c.cy <= bottom):
                continue
        best, best_pos = 0.0, -1
        for r, pos in images:
            if area > 0:
                cover = (max(0.0, min(x1, r[2]) - max(x0, r[0])) *
                         max(0.0, min(y1, r[3]) - max(y0, r[1]))) / area
            else:
                cover = float(r[0] <= c.cx <= r[2] and r[1] <= c.cy <= r[3])
            if cover >= IMAGE_TEXT_OVERLAP:
                best, best_pos = cover, max(best_pos, pos)
        if best >= IMAGE_TEXT_OVERLAP:
            over += 1
            under = texts.get(c.text_object, best_pos) < best_pos
            hidden += (not c.visible) or under
    return over, hidden


def classify_page(page, chars: list[Char] | None = None) -> PageDecision:
    """Whether ``page``'s text layer can fill its text blocks, with the reason.

    ``chars`` may pass the page's characters (:func:`~mineru_tui.pdf.chars.page_chars`)
    when the caller has them already. Any failure to read the text layer means "use the
    model" (as in MinerU). The answer is kept on the page for the same ``chars``: the page
    reader classifies a page when it opens it, and the model-free reading asks again.
    """
    cached = getattr(page, "decision_cache", None)
    if cached is not None and chars is not None and cached[0] is chars:
        return cached[1]
    decision = _classify(page, chars)
    if chars is None:
        chars = (getattr(page, "chars_cache", None) or (None, None))[1]
    if chars is not None:
        try:
            page.decision_cache = (chars, decision)
        except AttributeError:  # a page object that takes no attributes: nothing kept
            pass
    return decision


def _classify(page, chars: list[Char] | None) -> PageDecision:
    try:
        w, h = page.size_pt
        ratio = max(w, h) / min(w, h)
        if ratio > MAX_PAGE_ASPECT_RATIO:
            return PageDecision(False, f"The page is too elongated (aspect ratio {ratio:.1f}, "
                                       f"limit {MAX_PAGE_ASPECT_RATIO:g}).")
        if chars is None:
            chars = page_chars(page)
        if chars is None:
            return PageDecision(False, f"The page has more than {MAX_NATIVE_CHARS} characters.")
        stats = text_stats(chars)
        if stats.chars == 0:
            if is_blank(page):
                return PageDecision(False, "The page is blank.", blank=True)
            return PageDecision(False, "The page has no text layer.")
        if stats.chars < CHARS_THRESHOLD:
            return PageDecision(False, f"The text layer has only {stats.chars} characters "
                                       f"(fewer than {CHARS_THRESHOLD}).")
        problem = _text_problem(stats, per_page=True)
        if problem:
            return PageDecision(False, "The text layer is unreliable: " + problem)
        over, hidden = _ocr_layer_share(page, chars)
        if (over >= max(IMAGE_TEXT_MIN, IMAGE_TEXT_RATIO * stats.chars)
                and hidden >= IMAGE_TEXT_MIN and hidden >= IMAGE_TEXT_RATIO * stats.chars):
            return PageDecision(False, "The text is a hidden layer behind a scanned image "
                                       "(an OCR layer).")
        return PageDecision(True, f"The page has a usable text layer ({stats.chars} characters).")
    except Exception as err:  # as MinerU: a text layer we cannot read is one we do not use
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        return PageDecision(False, f"The text layer could not be read ({first}).")


def is_blank(page) -> bool:
    """Whether ``page`` draws nothing: no page objects at all (no text, image or path)."""
    import pypdfium2.raw as pdfium_c

    return pdfium_c.FPDFPage_CountObjects(page.raw.raw) == 0


def sample_indices(total: int, limit: int = MAX_SAMPLE_PAGES) -> list[int]:
    """Up to ``limit`` page indices spread evenly over ``total`` pages."""
    if total <= limit:
        return list(range(total))
    return sorted({round(i * (total - 1) / (limit - 1)) for i in range(limit)})


def classify_document(doc) -> DocumentDecision:
    """MinerU's whole-document classification (``txt``/``ocr``) over up to 10 pages spread
    evenly over ``doc`` (a :class:`~mineru_tui.pdf.reader.PdfDocument`, all its pages)."""
    indices = sample_indices(doc.page_count_total)
    if not indices:
        return DocumentDecision("ocr", "The document has no pages.")
    total = TextStats()
    decisions: dict[int, PageDecision] = {}
    try:
        for i in indices:
            with doc.page(i) as page:
                w, h = page.size_pt
                if max(w, h) / min(w, h) > MAX_PAGE_ASPECT_RATIO:
                    return DocumentDecision("ocr", f"Page {i + 1} is too elongated.", decisions)
                chars = page_chars(page)
                decisions[i] = classify_page(page, chars)
                if chars is not None:
                    total.add(text_stats(chars))
    except Exception as err:
        return DocumentDecision("ocr", f"The text layer could not be read ({err}).", decisions)
    average = total.chars / len(indices)
    if average < CHARS_THRESHOLD:
        return DocumentDecision("ocr", f"The sampled pages average {average:.0f} characters "
                                       f"(fewer than {CHARS_THRESHOLD}).", decisions)
    problem = _text_problem(total, per_page=False)
    if problem:
        return DocumentDecision("ocr", "The text layer is unreliable: " + problem, decisions)
    bad = [i for i, d in decisions.items() if not d.use_text_layer
           and ("OCR layer" in d.reason or "punctuation" in d.reason)]
    if bad:
        return DocumentDecision("ocr", f"Page {bad[0] + 1}: {decisions[bad[0]].reason}",
                                decisions)
    return DocumentDecision("txt", f"The sampled pages average {average:.0f} characters of "
                                   "usable text.", decisions)
