"""A cap on request bodies, checked before any route reads them.

Every JSON body of the API is small (a question is at most 2,000 characters), so a body past
``server.max_request_bytes`` is refused with 413 before it is buffered whole: at once by its
``Content-Length``, or, for a chunked body, as soon as the bytes received pass the cap (the
middleware reads at most the cap, then hands the body on).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from notecite.api.errors import send_error


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app ``body`` (already read) first, then the rest."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class BodyLimit:
    """ASGI middleware: 413 ``{"error": {"type": "PayloadTooLargeError", ...}}`` past the cap."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        length = headers.get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.max_bytes:
                await self._refuse(send)
                return
            await self.app(scope, receive, send)
            return
        if b"chunked" not in headers.get(b"transfer-encoding", b"").lower():
            await self.app(scope, receive, send)
            return
        parts: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await self._refuse(send)
                return
            parts.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(parts)
        await self.app(scope, replaying(body, receive), send)

    async def _refuse(self, send: Send) -> None:
        message = f"the request body is over {self.max_bytes} bytes"
        await send_error(send, 413, "PayloadTooLargeError", message)
