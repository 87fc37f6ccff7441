"""``python -m mineru_tui`` and the ``mineru-tui`` script: the command line.

The signal handlers go in before anything else is imported, so that Ctrl-C or SIGTERM
during start-up already ends with 130/143 and no traceback (see
:mod:`mineru_tui.interrupts`).
"""

import sys


def main() -> None:
    """Console-script entry point."""
    from mineru_tui import interrupts

    interrupts.install()
    try:
        from mineru_tui.cli import main as cli_main
    except (KeyboardInterrupt, interrupts.Terminated):
        interrupts.ignore()
        code = interrupts.exit_code() or 130
        print("terminated" if code == 143 else "interrupted", file=sys.stderr)
        interrupts.exit_now(code)
    cli_main()


if __name__ == "__main__":
    main()
