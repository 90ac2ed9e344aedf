"""Headers every answer carries, so that a browser treats the service's pages as what they are.

- ``Content-Security-Policy``: scripts and everything else from the service itself only (the page's
  script is a file, ``/page.js``; no inline script runs), styles inline (the reports are one file
  each), no ``<object>``, no framing, forms posting back only;
- ``X-Content-Type-Options: nosniff``: a JSON answer is never run as a script or shown as HTML;
- ``X-Frame-Options: DENY`` for browsers older than ``frame-ancestors``;
- ``Referrer-Policy: no-referrer``: user ids in the page's address do not leak to other sites.
"""

from __future__ import annotations

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` added to every HTTP answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        return await self.app(scope, receive, with_headers)


def allowed_hosts(bound: str, extra: list[str] | None) -> list[str]:
    """The names a request's ``Host`` may carry: the loopback names, the address the server is bound
    to (unless it is a wildcard, which has no name), and ``extra`` (``*`` allows any)."""
    names = list(LOOPBACK_NAMES)
    if bound not in ("0.0.0.0", "::", ""):
        names.append(f"[{bound}]" if ":" in bound else bound)
    for name in extra or []:
        name = name.strip().lower()
        if name and name not in names:
            names.append(name)
    return names
