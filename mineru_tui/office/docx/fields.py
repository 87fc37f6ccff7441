"""Field codes (``w:fldSimple`` and complex ``w:fldChar``/``w:instrText`` fields).

Only what changes the output is interpreted: ``HYPERLINK`` gives the result text a link
target and ``SEQ`` marks a caption. Every other field shows its cached result, which is
what Word displays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')


@dataclass
class Field:
    """One field being read: its instruction so far, and whether its result has begun."""

    instr: str = ""
    in_result: bool = False
    link: str | None = None
    parsed: bool = False

    def finish_instr(self) -> None:
        if not self.parsed:
            self.parsed = True
            self.link = hyperlink_target(self.instr)


def field_name(instr: str) -> str:
    """The field's type: ``"HYPERLINK"``, ``"SEQ"``, ``"PAGE"``..."""
    parts = instr.split(None, 1)
    return parts[0].upper() if parts else ""


def hyperlink_target(instr: str) -> str | None:
    """The target of a ``HYPERLINK "url" \\l "anchor"`` instruction, or None."""
    tokens = [m.group(1) if m.group(1) is not None else m.group(2)
              for m in _TOKEN.finditer(instr)]
    if not tokens or tokens[0].upper() != "HYPERLINK":
        return None
    url = anchor = None
    i = 1
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("\\") and len(tok) == 2:
            switch = tok[1].lower()
            if switch in ("l", "o", "t", "m", "n") and i + 1 < len(tokens):
                if switch == "l":
                    anchor = tokens[i + 1]
                i += 2
                continue
            i += 1
            continue
        if url is None:
            url = tok.replace("\\\\", "\\")
        i += 1
    if anchor:
        return (url or "") + "#" + anchor
    return url or None


def seq_kind(instr: str) -> str:
    """The caption kind a SEQ field names: ``SEQ Table`` is "table", ``SEQ Figure`` "figure"."""
    parts = instr.split()
    name = parts[1].lower() if len(parts) > 1 else ""
    if name.startswith(("tab", "表")):
        return "table"
    if name.startswith(("fig", "abb", "image", "picture", "chart", "图", "図")):
        return "figure"
    return "any"
