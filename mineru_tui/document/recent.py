"""What was worked out for the last few objects, known by identity (a writer's memo).

The writers of one output set go through the same pages side by side, at most a page apart,
and each needs the same derived value of a page or a table (its cleaned copy, its HTML):
:class:`Recent` gives the value made the first time back to the next writer. An object is
known by ``id`` while it is held here, so an identity is never reused while remembered;
use one over a write, while nothing changes the objects.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class Recent:
    """``make(obj)`` for the last ``keep`` objects asked for (by identity and ``key``)."""

    def __init__(self, keep: int):
        self.keep = keep
        self._made: OrderedDict[tuple[int, Hashable], tuple[Any, Any]] = OrderedDict()

    def get(self, obj, make: Callable[[Any], Any], key: Hashable = None):
        """The value ``make(obj)`` gave for this very ``obj`` (and ``key``), made now when it
        is not among the last ``keep``."""
        slot = (id(obj), key)
        hit = self._made.get(slot)
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = make(obj)
        self._made[slot] = (obj, value)
        if len(self._made) > self.keep:
            self._made.popitem(last=False)
        return value
