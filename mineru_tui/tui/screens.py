"""Modal screens: help (``?``) and the output folder (``o``, copy with ``y``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from mineru_tui.console import shown

KEYS = """\
[b]Keys[/b]

  ↑ ↓  j k        move in the focused list
  tab  shift+tab  next / previous pane
  enter           open: file → its pages → a page's blocks
  r               read the selected file again (also failed and "model needed" ones)
  p               pause / resume the queue (the file being read finishes)
  c               cancel the file being read (between tokens)
  o               show the output folder (y copies its path)
  ctrl+p          command palette
  ?               this help
  q               quit (the page being read is cancelled; finished files are kept)

[b]Files[/b]  queued → reading → done | failed | skipped | model needed | cancelled.
Results are written in the layout of [i]parse -o[/i]: OUT/<stem>/<stem>.md,
_content_list.json, _middle.json, images/. OUT/.mineru-tui-watch.json remembers
what was read by content, so a restart reads only new or changed files.
"""


class HelpScreen(ModalScreen[None]):
    """The keys and what the statuses mean."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(KEYS, id="help-text")
            yield Static("[dim]escape closes[/dim]")


class OutputScreen(ModalScreen[None]):
    """Shows a path (the output folder of the selected file, or the whole output folder)."""

    BINDINGS = [Binding("escape,o,q", "dismiss", "Close"),
                Binding("y", "copy", "Copy path")]

    def __init__(self, path: str, what: str) -> None:
        super().__init__()
        self.path, self.what = path, what

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(f"[b]{self.what}[/b]")
            yield Static(shown(self.path), id="output-path", markup=False)
            yield Static("[dim]y copies the path (OSC 52 clipboard) · escape closes[/dim]")

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.path)
        self.app.notify(f"copied {shown(self.path)}", timeout=3)
        self.dismiss()
