"""``python -m mineru_tui`` runs the command line."""

from mineru_tui.cli import main

main()
