"""Connections of ``serve`` that stall are closed: a header and idle timeout for uvicorn.

uvicorn times out a connection only between requests (keep-alive); a client that opens a
connection and sends half a request line, or headers and then half a body, holds it (and
a file descriptor) for ever, and a few thousand such clients lock every other client out,
``/health`` included. :class:`GuardedH11Protocol` closes a connection on which the client
owes bytes (its request line and headers, or its body) and sent none for
``IDLE_SECONDS``. While the server works on a request or sends its answer, the client owes
nothing and the connection stays open however long that takes.
"""

from __future__ import annotations

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

IDLE_SECONDS = 15.0


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the header / body idle timeout described above."""

    idle_seconds = IDLE_SECONDS

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._idle = None
        self._arm()

    def data_received(self, data: bytes) -> None:
        self._arm()
        super().data_received(data)

    def connection_lost(self, exc) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        self._idle = self.loop.call_later(self.idle_seconds, self._expired)

    def _expired(self) -> None:
        self._idle = None
        # IDLE: no complete request line and headers yet; SEND_BODY: the body is not all in
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and self.conn.our_state in (
                h11.IDLE, h11.SEND_RESPONSE):
            if self.cycle is not None and not self.cycle.response_complete:
                self.cycle.disconnected = True
                self.cycle.message_event.set()
            self.transport.close()
        else:
            self._arm()  # the server is working or answering: check again later
