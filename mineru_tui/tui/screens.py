"""Modal screens: help (``?``) and the output folder (``o``, copy with ``y``).

Both fit an 80x24 terminal: lines are under 78 columns, the dialog is at most the screen's
size, the help scrolls when the terminal is shorter, and "escape closes" is on the border.
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
  ↑ ↓          the focused list     tab / shift+tab  next / previous pane
  [ ]  PgUp PgDn  previous / next page (held down: lands on the last)
  g G  Home End   first / last page     :  go to page N (enter)
  j k          next / previous block (then on to the next page)
  enter        open: file → its pages → a page's blocks → the block
               (under 110 columns Files, Pages, Blocks are tabs on top;
               escape or backspace goes back up a level)
  1 2 3 4      tabs: Markdown of the page, Page image, Block, Log
  f            follow mode: show the file, page and block being read
               (on at start; moving yourself turns it off)
  /            filter the files by name or status (failed, reading...);
               in the tabs pane: find text in the file's pages (enter:
               the next page with it; "no match" when none has it)
  z            the tabs pane alone on the screen (z again: back)

[b]Act[/b]
  r  read the selected file again      p  pause / resume the queue
  l  read a PDF's own text (effort low, no model) this once
  c  cancel the file being read        o  output folder (y copies it)
  ctrl+p  command palette (themes too) q  quit (finished files are kept)

[b]Files[/b]  queued → reading → done | done ⚠ (warnings) | done, empty |
failed | skipped | model needed | cancelled. A page that gave no text is
[i]empty[/i], with the reason. Progress: a bar, pages done/total, and the
time left (~): the pages left at this file's rate, plus writing the output.

[b]Live[/b]  tok/s: the blocks decoding now, each over its last 2 s; pages/min
over the file's wall time; at effort low no model runs and no tokens count.

[b]Page[/b]  boxes in MinerU's colours, numbered in reading order; pale: not
read yet, tinted: being read, filled: selected.

Results are written as [i]parse -o[/i] writes them: OUT/<stem>/<stem>.md,
_content_list.json, _middle.json, _model.json, images/. A restart reads only
new or changed files and rebuilds the pages of the others from OUT.
"""


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
