"""The live decoding pane: the block being read, streaming, and the counters.

It is redrawn at most a few times a second by the app (which coalesces every token that
arrived in between), never per token.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from mineru_tui.console import shown
from mineru_tui.tui.state import Live

TAIL = 600  # characters of the current block shown (the end of it)


class LivePane(Static):
    """Streaming text of the current block plus tok/s, stage times, blocks and pages."""

    def show(self, live: Live, engine: str, model: str, loaded: bool) -> None:
        where = ""
        if live.path:
            where = shown(live.path.rsplit("/", 1)[-1])
            if live.page >= 0:
                where += f" · page {live.page + 1}"
            if live.block >= 0:
                where += f" · block {live.block + 1} ({shown(live.block_type)})"
            elif live.block_type:
                where += f" · {shown(live.block_type)}"
        rates = Text.assemble(
            ("tok/s ", "dim"), f"{live.tok_s:.1f}",
            ("  decoded ", "dim"), str(live.tokens),
            ("  blocks ", "dim"), f"{live.blocks_done}/{live.blocks_total}",
            ("  pages/min ", "dim"), f"{live.pages_per_min:.1f}",
        )
        stages = Text.assemble(
            ("vision ", "dim"), f"{live.vision_s:.2f} s ({live.vision_tokens} tok)",
            ("  prefill ", "dim"), f"{live.prefill_s:.2f} s ({live.prefill_tokens} tok)",
        )
        pending = not loaded and live.vision_s == 0 and live.pages_done == 0
        engine_line = Text.assemble(("engine ", "dim"), shown(engine or "auto"),
                                    ("  model ", "dim"), shown(model or "default"),
                                    ("  (loads with the first page)" if pending else "", "dim"))
        text = shown(live.text[-TAIL:], keep="\n\t") if live.text else ""  # model tokens
        body = Text(text or ("waiting for a page…" if not where else ""),
                    style="" if text else "dim")
        self.update(Group(Text(where or "idle", style="bold"), rates, stages, engine_line, body))
