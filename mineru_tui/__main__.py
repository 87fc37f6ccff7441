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
    except BaseException as e:
        # A signal may come back wrapped: Python 3.11 turns an exception raised inside
        # ``__set_name__`` (which creating a dataclass calls) into a RuntimeError.
        if interrupts.received() is None and not isinstance(e, (KeyboardInterrupt,
                                                                 interrupts.Terminated)):
            raise
        interrupts.ignore()
        code = interrupts.exit_code() or 130
        print("terminated" if code == 143 else "interrupted", file=sys.stderr)
        interrupts.exit_now(code)
    cli_main()


if __name__ == "__main__":
    main()
