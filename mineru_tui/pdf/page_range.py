"""``--pages`` syntax: 1-based page numbers and inclusive ranges, comma-separated."""

from __future__ import annotations

import re

from mineru_tui.errors import InputError

_ITEM = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def check_pages(spec: str | None) -> None:
    """Raise :class:`InputError` if ``spec`` is not valid ``--pages`` syntax.

    Everything :func:`parse_pages` checks except what needs the page count, so a typo is
    caught before any file is read.
    """
    list(_ranges(spec))


def parse_pages(spec: str | None, total: int) -> list[int]:
    """The 0-based page indices ``spec`` selects, sorted and without duplicates.

    ``spec`` is like ``"1-3,7"`` (1-based, ranges inclusive); ``None``, ``""`` or ``"all"``
    select every page. Bad syntax, a reversed range, page 0 and pages past the end raise
    :class:`InputError` with one line saying which part is wrong.
    """
    chosen: set[int] = set()
    for first, last in _ranges(spec):
        if last is None:  # "all"
            return list(range(total))
        if last > total:
            raise InputError(f"--pages {spec!r}: page {last} is past the end "
                             f"(the document has {total} page{'s' if total != 1 else ''})")
        chosen.update(range(first - 1, last))
    return sorted(chosen)


def format_pages(numbers: list[int]) -> str:
    """Page numbers written back as ranges, the inverse of the syntax: ``[1, 2, 3, 7]`` → ``"1-3, 7"``."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _ranges(spec: str | None):
    """(first, last) per comma-separated part, 1-based; one ``(1, None)`` for every page."""
    if spec is None or not spec.strip() or spec.strip().lower() == "all":
        yield 1, None
        return
    for part in spec.split(","):
        m = _ITEM.match(part)
        if not m:
            raise InputError(f"--pages {spec!r}: {part.strip()!r} is not a page number or a "
                             "range like 2-5 (use e.g. 1-3,7)")
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        if first < 1:
            raise InputError(f"--pages {spec!r}: pages are numbered from 1")
        if last < first:
            raise InputError(f"--pages {spec!r}: the range {first}-{last} runs backwards")
        yield first, last
