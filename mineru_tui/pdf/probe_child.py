"""The page probe's child (:mod:`.probe`): it loads pages under the probe's limits and answers.

Run as ``python -m mineru_tui.pdf.probe_child`` (or as a reader's module that calls
:func:`main` with its reading function), it reads one JSON line (path, password, limits, the
reader's options), then questions one per line (``INDEX``: load the page; ``read INDEX
ORDINAL``: load it, then read it) and answers each with one line (``ok SECONDS``, the load's
time counted from the question, or ``refused WHY``);
after a read's ``ok`` come ``page LENGTH`` and that many bytes, the reading function's.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

def _limit_memory(extra_mb: float) -> None:
    """Cap this process's address space at its current size plus ``extra_mb``."""
    try:
        import resource

        with open("/proc/self/statm") as f:
            current = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = current + int(extra_mb * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):
        pass  # no /proc (macOS) or no RLIMIT_AS: still isolated, not limited


def main(read=None) -> None:
    """The child: answer the reading process's questions until its end of input.

    ``read(page, ordinal, reading)`` (a reader's module passes it): reads a loaded
    :class:`~mineru_tui.pdf.reader.PdfPage` whole and returns bytes for the reading process.
    Any failure ends the child with no answer: the page asked about is refused when it
    happened while loading, and read by the reading process when after. Ctrl-C is left to
    the reading process (the terminal sends it to both): it stops the child when it stops."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _serve(read)
    except BaseException:  # noqa: BLE001 - an answer-less exit is the answer
        sys.exit(3)


def _serve(read) -> None:
    import pypdfium2.raw as pdfium_c

    from mineru_tui.pdf.pdfium import owned
    from mineru_tui.pdf.reader import REOPEN_EVERY, PdfPage, open_pdf

    setup = json.loads(sys.stdin.readline())
    doc = open_pdf(setup["path"], password=setup.get("password"))
    doc.probing = False  # this process is the probe: it loads pages itself
    _limit_memory(setup["memory_mb"])
    out = sys.stdout.buffer
    for n, line in enumerate(sys.stdin):
        asked = time.monotonic()
        words = line.split()  # "INDEX", or "read INDEX ORDINAL"
        reading = words[0] == "read"
        index = int(words[1] if reading else words[0])
        if n and n % REOPEN_EVERY == 0:  # PDFium keeps what it parsed until the file closes
            doc.reopen()
        try:
            with owned():
                raw = doc.raw[index]
        except MemoryError:
            raise
        except Exception:  # a damaged page: the reader loads it again and says why
            raw = None
        count = 0 if raw is None else pdfium_c.FPDFPage_CountObjects(raw.raw)
        page = PdfPage(doc, index, raw)  # loaded once: the reading goes on with it
        if count > setup["objects"]:
            out.write(f"refused it has {count:,} objects (more than {setup['objects']:,})\n".encode())
            out.flush()
            page.close()
            continue
        # the load's time goes with its answer: the reading process may read the answer
        # later than it came (a page asked ahead), and still holds the load to its limit
        out.write(f"ok {time.monotonic() - asked!r}\n".encode())
        out.flush()  # the load's answer, before any reading
        if read is not None and reading:
            data = read(page, int(words[-1]), setup["reading"])
            out.write(b"page %d\n" % len(data))
            out.write(data)
            out.flush()
        page.close()


if __name__ == "__main__":
    main()
