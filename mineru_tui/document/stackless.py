"""Run a recursive walk without Python's call stack: :func:`drive`.

A document can nest as deep as its readers accept (a table in a cell of a table, 64
levels; HTML's 160 elements), and each level costs a writer a dozen Python frames, so a
plain recursive walk hits Python's recursion limit (1,000 frames) long before the readers'
bounds. A walk written as a generator that *yields* the sub-walk it needs and receives its
result (``inner = yield walk(child)``) keeps its own stack in a list instead; its depth is
bounded only by memory.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

T = TypeVar("T")
Walk = Generator[Any, Any, T]  # yields sub-walks, receives their results, returns T


def drive(walk: Walk[T]) -> T:
    """Run ``walk`` and every sub-walk it yields, depth first, on an explicit stack; return
    the outer walk's result."""
    stack: list[Walk] = [walk]
    result: Any = None
    while stack:
        try:
            sub = stack[-1].send(result)
        except StopIteration as done:
            stack.pop()
            result = done.value
            continue
        stack.append(sub)
        result = None
    return result
