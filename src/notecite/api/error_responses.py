"""The last line of the error boundary: no response leaves the app as a plain-text error.

The exception handlers of :mod:`notecite.api.errors` shape every error a route raises. This
middleware catches what gets past them: an exception no handler knows (a JSON 500, logged,
instead of Starlette's plain ``Internal Server Error``) and an error response some mounted
component wrote as text (the GraphQL router's 400s, a 405), whose text becomes the message of
the same ``{"error": {"type", "message"}}`` body.
"""

from __future__ import annotations

from http import HTTPStatus

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from notecite.api.errors import describe, send_error

_TYPES = {400: "BadRequestError", 404: "NotFoundError", 405: "MethodNotAllowedError"}
_DROPPED = {b"content-type", b"content-length"}
_MAX_MESSAGE = 500


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        if name.lower() == b"content-type":
            return value.split(b";")[0].strip().lower() == b"application/json"
    return False


class JsonErrors:
    """ASGI middleware: every error response is ``{"error": {"type", "message"}}`` JSON."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        held: Message | None = None  # the start of a text error response, until its body
        parts: list[bytes] = []

        async def send_json_errors(message: Message) -> None:
            nonlocal started, held
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", []))
                if message["status"] >= 400 and not _is_json(headers):
                    held = message
                    return
            elif message["type"] == "http.response.body" and held is not None:
                parts.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                status = held["status"]
                text = b"".join(parts).decode("utf-8", "replace").strip()
                if not text or len(text) > _MAX_MESSAGE:
                    text = HTTPStatus(status).phrase if status in HTTPStatus else "error"
                kind = _TYPES.get(status, "HTTPError")
                kept = [(k, v) for k, v in held["headers"] if k.lower() not in _DROPPED]
                await send_error(send, status, kind, text, kept)
                return
            await send(message)

        try:
            await self.app(scope, receive, send_json_errors)
        except Exception as exc:
            if started:
                raise
            status, body = describe(exc)  # logs the unexpected error with its traceback
            await send_error(send, status, body["error"]["type"], body["error"]["message"])
