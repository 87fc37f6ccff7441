"""Modal screens: help (``?``) and the output folder (``o``, copy with ``y``).

Both fit an 80x24 terminal: the help is 22 lines of at most 74 columns (every key in a
few words; the README's key table says more), so it needs no scrolling there; it scrolls
only when the terminal is shorter. "escape closes" is on the border.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from mineru_tui.console import shown

KEYS = """\
[b]Move[/b] (from anywhere)
  ↑ ↓  the focused list             tab shift+tab  next / previous pane
  [ ] PgUp PgDn  previous / next page (held down: lands on the last)
  g G Home End  first / last page   :  go to page N (enter)
  j k  next / previous block (then on to the next page)
  enter  open: file → pages → blocks → block; escape, backspace: back up
         (under 110 columns Files, Pages, Blocks are tabs on top)
  1 2 3 4  tabs: Markdown, Page image, Block, Log   z  the tabs pane alone
  f  follow the file, page, block being read (on at start; moving: off)
  /  filter files by name or status; in the tabs pane: find text in the
     file's pages (enter: next page with it; "no match" when none has)
[b]Act[/b]  r  read again   p  pause / resume   c  cancel the file being read
  l  read a PDF's own text this once (effort low, no model)   ?  this help
  o  output folder (y copies)   ctrl+p  palette (themes)   q  quit
[b]Files[/b]  queued → reading → done | done ⚠ (warnings) | done, empty |
failed | skipped | model needed | cancelled; an [i]empty[/i] page says why.
Time left (~): pages left at this file's rate, plus writing the output.
[b]Live[/b]  tok/s: blocks decoding now, each over its last 2 s; pages/min from
the first page to the last (effort low: no model, no tokens).
[b]Page[/b]  boxes in MinerU's colours, in reading order; pale: not read yet,
tinted: being read, filled: selected.  Results as [i]parse -o[/i] writes them
(OUT/<stem>/); a restart reads only new or changed files, keeps the rest."""  # no final newline: a 23rd line


class HelpScreen(ModalScreen[None]):
    """The keys and what the statuses mean."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "Keys · escape closes"
            with VerticalScroll(id="help-scroll"):
                yield Static(KEYS, id="help-text")


class OutputScreen(ModalScreen[None]):
    """Shows a path (the output folder of the selected file, or the whole output folder)."""

    BINDINGS = [Binding("escape,o,q", "dismiss", "Close"),
                Binding("y", "copy", "Copy path")]

    def __init__(self, path: str, what: str) -> None:
        super().__init__()
        self.path, self.what = path, what

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = f"{shown(self.what)} · y copies · escape closes"
            yield Static(shown(self.path), id="output-path", markup=False)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.path)
        self.app.notify(f"copied {shown(self.path)}", timeout=3)
        self.dismiss()
