"""Deadlines on a request's arrival, so that slow clients cannot hold the server.

uvicorn closes a kept-alive connection that stays idle (``timeout_keep_alive``), but a client that
sends its request a byte at a time is never cut off: each connection holds a slot of
``limit_concurrency`` and up to ``max_body`` bytes, and a few hundred of them starve everyone
("slowloris").  :class:`DeadlineProtocol` is uvicorn's httptools protocol with two timers:

- the **headers** must arrive within ``header_timeout`` seconds of the connection or of the
  request's first byte (a connection that sends nothing is closed after the same time);
- the **body** must arrive within ``body_timeout`` seconds of the headers.

A request over its headers' deadline is answered 408 and closed; one over its body's deadline is
closed (the application, waiting for the body, sees the client leave).  nginx's
``client_header_timeout`` and ``client_body_timeout`` do the same, between reads.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

_MESSAGE = b"request headers not received in time\n"
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
    b"content-length: %d\r\n\r\n%s" % (len(_MESSAGE), _MESSAGE)
)


class DeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines on a request's headers and body (seconds)."""

    def __init__(self, *args, header_timeout: float = 5.0, body_timeout: float = 5.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.header_timeout, self.body_timeout = float(header_timeout), float(body_timeout)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout, self._headers_late)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._deadline is None:  # the next request of a kept-alive connection
            self._arm(self.header_timeout, self._headers_late)

    def on_headers_complete(self) -> None:
        self._arm(self.body_timeout, self._body_late)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def _arm(self, seconds: float, handler) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, handler)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_late(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            if self.cycle is None or self.cycle.response_complete:  # nothing answered on it yet
                self.transport.write(TIMED_OUT)
            self.transport.close()

    def _body_late(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()
