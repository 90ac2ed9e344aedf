"""A limit on the size of request bodies, before anything parses them."""

from __future__ import annotations

import json


class BodyLimit:
    """ASGI middleware: a request body over ``max_body`` bytes is answered 413 (by its declared
    ``Content-Length`` at once, else when the streamed body passes the limit) and never reaches
    the application; the body read is replayed to it otherwise."""

    def __init__(self, app, max_body: int):
        self.app = app
        self.max_body = int(max_body)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_body
            except ValueError:
                return await _answer(send, 400, "Content-Length is not a number")
            if too_big:
                return await _answer(send, 413, self._message())
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return await _answer(send, 413, self._message())
            chunks.append(chunk)
            more = message.get("more_body", False)
        body, sent = b"".join(chunks), False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()  # the client's disconnect, when it comes
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await self.app(scope, replay, send)

    def _message(self) -> str:
        return f"request body over the limit of {self.max_body:,} bytes"


async def _answer(send, status: int, message: str) -> None:
    body = json.dumps({"detail": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
