"""DrawingML text bodies (``p:txBody`` / ``a:txBody``) to blocks: paragraphs, lists, equations.

A paragraph's bullet comes from its own ``a:pPr`` or, failing that, from the list styles
it inherits: the shape's ``a:lstStyle``, then (for placeholders) the layout's and the
master's placeholder, then the master's ``p:txStyles`` (``bodyStyle`` is what makes body
placeholder text bulleted by default). The caller passes that chain, nearest first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from mineru_tui.document import (Block, BlockType, Line, Span, SpanType, equation_block,
                                 list_block, text_span)
from mineru_tui.office.numfmt import number_marker
from mineru_tui.office.package import local
from mineru_tui.office.names import NS, R_ID, q

_A = NS["a"]
_P_PR, _R, _BR, _FLD, _T, _RPR = q("a:pPr"), q("a:r"), q("a:br"), q("a:fld"), q("a:t"), q("a:rPr")
_P = q("a:p")
_BULLETS = {q("a:buNone"): "none", q("a:buAutoNum"): "num", q("a:buChar"): "char",
            q("a:buBlip"): "char"}
_MONO = ("courier", "consolas", "menlo", "monaco", "source code", "lucida console",
         "dejavu sans mono", "fira code", "fira mono", "roboto mono", "jetbrains mono")


@dataclass
class TextContext:
    """What a text body needs from its surroundings.

    ``styles``: list-style elements (children ``a:lvl1pPr``..``a:lvl9pPr``), nearest first.
    ``link``: resolves a hyperlink relationship id to a URL (None for internal jumps).
    ``shape_link``: a click link on the whole shape, given to runs that have none.
    """

    styles: list = field(default_factory=list)
    link: Callable[[str], str | None] = lambda rid: None
    shape_link: str | None = None


# ---------------------------------------------------------------------------------------
# Runs and paragraphs


def _run_style(rpr) -> tuple[frozenset[str], str | None]:
    """Styles and the hyperlink relationship id of a run's ``a:rPr``."""
    if rpr is None:
        return frozenset(), None
    style = set()
    if rpr.get("b") in ("1", "true"):
        style.add("bold")
    if rpr.get("i") in ("1", "true"):
        style.add("italic")
    if rpr.get("u") not in (None, "none"):
        style.add("underline")
    if rpr.get("strike") not in (None, "noStrike"):
        style.add("strike")
    baseline = rpr.get("baseline")
    if baseline:
        try:
            value = int(baseline)
        except ValueError:
            value = 0
        if value > 0:
            style.add("superscript")
        elif value < 0:
            style.add("subscript")
    latin = rpr.find(q("a:latin"))
    if latin is not None and (latin.get("typeface") or "").lower().startswith(_MONO):
        style.add("code")
    rid = None
    click = rpr.find(q("a:hlinkClick"))
    if click is not None:
        rid = click.get(R_ID) or None
    return frozenset(style), rid


def _text_of(el) -> str:
    t = el.find(_T)
    return t.text or "" if t is not None else ""


def _omml_latex(math) -> str:
    """LaTeX for an ``m:oMath`` element, via :mod:`mineru_tui.office.omml` when present."""
    try:
        from mineru_tui.office.omml import omml_to_latex  # optional sibling module
    except ImportError:
        omml_to_latex = None
    if omml_to_latex is not None:
        try:
            latex = omml_to_latex(math)
            if latex and latex.strip():
                return latex.strip()
        except Exception:  # a converter bug must not lose the slide
            pass
    return "".join(t.text or "" for t in math.iter(q("m:t"))).strip()


def _math_spans(container) -> list[Span]:
    """Spans for the math inside an ``a14:m`` element: display for ``m:oMathPara``."""
    spans = []
    for el in container.iter(q("m:oMathPara"), q("m:oMath")):
        if local(el) == "oMathPara":
            for math in el.iter(q("m:oMath")):
                latex = _omml_latex(math)
                if latex:
                    spans.append(Span(SpanType.INTERLINE_EQUATION, latex))
        elif el.getparent() is None or local(el.getparent()) != "oMathPara":
            latex = _omml_latex(el)
            if latex:
                spans.append(Span(SpanType.INLINE_EQUATION, latex))
    return spans


def paragraph_lines(p, ctx: TextContext) -> list[list[Span]]:
    """A paragraph's content as lines of spans (``a:br`` starts a new line)."""
    lines: list[list[Span]] = [[]]

    def visit(parent):
        for el in parent:
            tag = el.tag
            if tag == _R or tag == _FLD:
                text = _text_of(el)
                if not text:
                    continue
                style, rid = _run_style(el.find(_RPR))
                url = ctx.link(rid) if rid else None
                lines[-1].append(text_span(text, style, url or ctx.shape_link))
            elif tag == _BR:
                lines.append([])
            elif local(el) == "AlternateContent":
                choice = _math_choice(el)
                if choice is not None:
                    lines[-1].extend(_math_spans(choice))
                else:
                    fallback = el.find(q("mc:Fallback"))
                    if fallback is not None:
                        visit(fallback)
            elif local(el) == "m" and el.tag == q("a14:m"):
                lines[-1].extend(_math_spans(el))

    visit(p)
    return lines


def _math_choice(alt):
    """The ``a14:m`` inside an ``mc:AlternateContent``'s choices, if any."""
    for choice in alt.iterfind(q("mc:Choice")):
        m = choice.find(q("a14:m"))
        if m is not None:
            return m
    return None


def spans_text(lines: list[list[Span]]) -> str:
    return "".join(s.content for line in lines for s in line).strip()


# ---------------------------------------------------------------------------------------
# Bullets


@dataclass(frozen=True)
class Bullet:
    kind: str  # "none", "char" or "num"
    scheme: str = "arabicPeriod"
    start: int = 1


def _bullet_of(ppr) -> Bullet | None:
    if ppr is None:
        return None
    for el in ppr:
        kind = _BULLETS.get(el.tag)
        if kind == "num":
            try:
                start = int(el.get("startAt") or 1)
            except ValueError:
                start = 1
            return Bullet("num", el.get("type") or "arabicPeriod", start)
        if kind:
            return Bullet(kind)
    return None


def resolve_bullet(ppr, level: int, styles: list) -> Bullet:
    """The paragraph's bullet: its own, else the nearest list style's for its level."""
    own = _bullet_of(ppr)
    if own is not None:
        return own
    tag = q(f"a:lvl{level + 1}pPr")
    for style in styles:
        if style is None:
            continue
        found = _bullet_of(style.find(tag))
        if found is not None:
            return found
    return Bullet("none")


# ---------------------------------------------------------------------------------------
# Text bodies


def _level(ppr) -> int:
    if ppr is None:
        return 0
    try:
        return max(0, min(8, int(ppr.get("lvl") or 0)))
    except ValueError:
        return 0


def _indented(ppr) -> bool:
    try:
        return ppr is not None and int(ppr.get("marL") or 0) > 0
    except ValueError:
        return False


def _line_objs(lines: list[list[Span]]) -> list[Line]:
    out = [Line(spans) for spans in lines if any(s.content.strip() for s in spans)]
    return out


def text_body_blocks(body, ctx: TextContext) -> list[Block]:
    """The blocks of a text body: text paragraphs, lists (one per run of list items)
    and display equations, in order. Empty paragraphs are dropped."""
    blocks: list[Block] = []
    items: list[Block] = []
    item_levels: list[int] = []
    counters: dict[int, tuple[str, int]] = {}

    def flush():
        if items:
            low = min(item_levels)
            for item, lvl in zip(items, item_levels):
                item.depth = lvl - low
            blocks.append(list_block(list(items)))
            items.clear()
            item_levels.clear()

    for p in body.iterfind(_P):
        ppr = p.find(_P_PR)
        lines = paragraph_lines(p, ctx)
        if not spans_text(lines):
            continue
        level = _level(ppr)
        spans = [s for line in lines for s in line]
        if (all(s.type == SpanType.INTERLINE_EQUATION or not s.content.strip() for s in spans)
                and any(s.type == SpanType.INTERLINE_EQUATION for s in spans)):
            flush()
            blocks += [equation_block(s.content) for s in spans
                       if s.type == SpanType.INTERLINE_EQUATION]
            continue
        for s in spans:  # display math mixed with text reads as inline math
            if s.type == SpanType.INTERLINE_EQUATION:
                s.type = SpanType.INLINE_EQUATION
        bullet = resolve_bullet(ppr, level, ctx.styles)
        if bullet.kind == "none" and items and (level > item_levels[-1] or _indented(ppr)):
            # an indented plain paragraph right after a list item continues that item
            items[-1].lines += _line_objs(lines)
            continue
        for deeper in [k for k in counters if k > level]:
            del counters[deeper]
        if bullet.kind == "none":
            counters.pop(level, None)
            flush()
            blocks.append(Block(BlockType.TEXT, lines=_line_objs(lines)))
            continue
        if bullet.kind == "num":
            prev = counters.get(level)
            n = prev[1] + 1 if prev and prev[0] == bullet.scheme else bullet.start
            counters[level] = (bullet.scheme, n)
            marker = number_marker(bullet.scheme, n)
        else:
            counters.pop(level, None)
            marker = "-"
        items.append(Block(BlockType.TEXT, lines=_line_objs(lines), marker=marker))
        item_levels.append(level)
    flush()
    return blocks


def text_body_spans(body, ctx: TextContext) -> list[Span]:
    """All of a text body's text as one line of spans (paragraphs joined by a space);
    used for titles."""
    out: list[Span] = []
    for p in body.iterfind(_P):
        for line in paragraph_lines(p, ctx):
            if not any(s.content.strip() for s in line):
                continue
            if out:
                out.append(text_span(" "))
            out.extend(line)
    for s in out:
        if s.type == SpanType.INTERLINE_EQUATION:
            s.type = SpanType.INLINE_EQUATION
    return out


def notes_lines(body, ctx: TextContext) -> list[Line]:
    """Speaker-notes text: one line per paragraph (and per line break)."""
    out: list[Line] = []
    for p in body.iterfind(_P):
        out += _line_objs(paragraph_lines(p, ctx))
    return out
