"""The live decoding pane: the page and block being read, streaming, and the counters.

It is redrawn at most a few times a second by the app (which coalesces every token that
arrived in between), never per token. When the file ends it says what became of it, so it
never shows a finished file as being read. Stages are named for what runs at this effort:
at effort low no model runs, and the pane says so instead of naming the vision encoder.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from mineru_tui.console import shown
from mineru_tui.tui.block_text import readable
from mineru_tui.tui.state import FileRow, Live
from mineru_tui.tui.widgets.tables import _duration

TAIL = 600  # characters of the current block shown (the end of it)
STAGES = {
    "vision": "vision encoder",
    "layout": "layout (finding the blocks)",
    "text": "the PDF's own text",
    "page": "page done",
    "writing": "writing the output set",
}


def where_line(live: Live, row: FileRow | None) -> Text:
    if not live.path:
        return Text("idle", style="bold")
    out = Text(shown(live.path.rsplit("/", 1)[-1]), style="bold")
    if live.finished:
        out.append(f": {shown(live.finished)}")
        return out
    if live.page >= 0 and live.stage != "writing":
        out.append(f" · page {live.page + 1}" + (f" of {live.pages_total}"
                                                 if live.pages_total else ""))
    if live.stage == "blocks" and live.block >= 0:
        out.append(f" · block {live.block + 1} of {live.blocks_total} ({shown(live.block_type)})")
    elif live.stage in STAGES:
        out.append(f" · {STAGES[live.stage]}", "cyan")
    return out


def _counters(live: Live, row: FileRow | None, eta: float | None) -> Text:
    per_min = row.pages_per_min(live) if row is not None else 0.0
    if live.model_free:  # no tokens at effort low: pages are what move
        return Text.assemble(
            ("pages ", "dim"), f"{row.pages_done if row else 0} of {live.pages_total}",
            ("  left ", "dim"), f"~{_duration(eta)}" if eta is not None else "-",
            ("  pages/min ", "dim"), f"{per_min:.1f}" if per_min else "-")
    return Text.assemble(
        ("tok/s ", "dim"), f"{live.tok_s:.1f}",
        ("  decoded ", "dim"), str(live.tokens),
        ("  blocks ", "dim"), f"{live.blocks_done} of {live.blocks_total}",
        ("  left ", "dim"), f"~{_duration(eta)}" if eta is not None else "-",
        ("  pages/min ", "dim"), f"{per_min:.1f}" if per_min else "-")


def _stages(live: Live) -> Text:
    if live.model_free:
        return Text("effort low: each page is read from the PDF's own text, no model runs",
                    style="dim")
    return Text.assemble(
        ("vision ", "dim"), f"{live.vision_s:.2f} s ({live.vision_tokens} tok)",
        ("  prefill ", "dim"), f"{live.prefill_s:.2f} s ({live.prefill_tokens} tok)",
        ("  decode ", "dim"), (f"{live.decode_rate:.1f} tok/s ({live.decode_tokens} tok in "
                               f"{live.decode_s:.2f} s)" if live.decode_s else "-"))


class LivePane(Static):
    """Streaming text of the current block plus tok/s, progress, stage times, engine."""

    def show(self, live: Live, engine: str, model: str, loaded: bool,
             row: FileRow | None = None, write_per_page: float | None = None) -> None:
        active = bool(live.path) and not live.finished
        eta = row.eta(live, write_per_page) if row is not None and active else None
        if live.model_free:  # the stages line says no model runs: said once
            engine_line = Text("")
        else:
            pending = not loaded and live.vision_s == 0 and live.pages_done == 0
            engine_line = Text.assemble(("engine ", "dim"), shown(engine or "auto"),
                                        ("  model ", "dim"), shown(model),
                                        ("  (loads with the first page)" if pending else "",
                                         "dim"))
        text = readable(live.text)[-TAIL:] if live.text and active else ""
        body = Text(shown(text).replace("\\n", "\n") if text else
                    ("waiting for a page…" if not live.path else ""), style="" if text else "dim")
        lines = [where_line(live, row), _counters(live, row, eta), _stages(live), engine_line]
        self.update(Group(*[line for line in lines if line.plain], body))
