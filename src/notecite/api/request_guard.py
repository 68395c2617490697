"""Text no route should ever see, refused before any route runs (422, or 400 for the URL).

* a NUL character in the URL's path or query: no vault, note or session name holds one, and
  the operating system refuses it in a file name;
* a JSON body nested deeper than :data:`MAX_JSON_DEPTH` (every body of the API is at most a
  few levels deep; a very deep one would exhaust the parser's recursion);
* a JSON string, or key, holding a NUL or a lone surrogate (``"\\ud800"``): such text cannot be
  stored, encoded as UTF-8 or put in a file name.

The body is read whole (after :class:`~notecite.api.limits.BodyLimit` has capped its size),
checked, then handed on unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from notecite.api.errors import send_error
from notecite.api.limits import replaying

MAX_JSON_DEPTH = 32
_BAD_TEXT = re.compile("[\x00\ud800-\udfff]")


def json_problem(value: Any) -> str | None:
    """Why the parsed JSON ``value`` is refused, or ``None`` when it is fine."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _BAD_TEXT.search(item):
                return "text may not hold a NUL character or a lone UTF-16 surrogate"
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                return f"the JSON body is nested more than {MAX_JSON_DEPTH} levels deep"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def body_problem(body: bytes) -> str | None:
    """Why the JSON ``body`` is refused; ``None`` when fine or not JSON at all (the route
    reports a syntax error in its own words)."""
    try:
        value = json.loads(body)
    except RecursionError:
        return f"the JSON body is nested more than {MAX_JSON_DEPTH} levels deep"
    except ValueError:
        return None
    return json_problem(value)


def url_problem(scope: Scope) -> str | None:
    """Why the URL of ``scope`` is refused, or ``None``."""
    query = scope.get("query_string", b"")
    if "\x00" in scope.get("path", "") or b"\x00" in query or b"%00" in query.lower():
        return "the URL may not hold a NUL character"
    return None


class RequestGuard:
    """ASGI middleware: refuses the URLs and JSON bodies described in the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        problem = url_problem(scope)
        if problem is not None:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await send_error(send, 400, "InvalidRequestError", problem)
            return
        content_type = dict(scope.get("headers", [])).get(b"content-type", b"")
        # any type naming JSON: the GraphQL router reads a body as JSON on a substring match
        if scope["type"] != "http" or b"json" not in content_type.lower():
            await self.app(scope, receive, send)
            return
        parts: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(parts)
        problem = body_problem(body) if body else None
        if problem is not None:
            await send_error(send, 422, "InvalidRequestError", problem)
            return
        await self.app(scope, replaying(body, receive), send)
