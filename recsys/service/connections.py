"""Kept-alive connections closed after a number of requests, so that several workers share the load.

Worker processes share one listening socket, and a burst of new connections is taken by whichever
worker accepts first — often all of them by one worker, which then serves every request while the
others idle, for as long as the clients keep their connections.  Closing a connection after
``max_requests`` answers (``Connection: close`` on the last one; clients reconnect at once, as
HTTP allows) hands it back to the accept race, which a busy worker — its event loop computing —
tends to lose: the load spreads over the workers within seconds.  nginx's ``keepalive_requests``
does the same.
"""

from __future__ import annotations


class RecycleConnections:
    """ASGI middleware: ``Connection: close`` on every ``max_requests``-th answer of a connection."""

    def __init__(self, app, max_requests: int):
        self.app = app
        self.max_requests = int(max_requests)
        self.served: dict[tuple, int] = {}  # (client host, port) -> answers so far

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope.get("client"):
            return await self.app(scope, receive, send)
        key = tuple(scope["client"])
        n = self.served.get(key, 0) + 1
        if n < self.max_requests:
            if len(self.served) > 100_000:  # clients gone before their last answer: forget them
                self.served.clear()
            self.served[key] = n
            return await self.app(scope, receive, send)
        self.served.pop(key, None)

        async def closing(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        return await self.app(scope, receive, closing)
