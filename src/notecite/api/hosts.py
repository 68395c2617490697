"""Which ``Host`` names the server answers: a guard against DNS rebinding.

A web page the user visits can point a name it controls at 127.0.0.1 and then talk to a
keyless notecite on loopback as if it were its own origin; the browser still sends that name
as ``Host``. So loopback names (``localhost``, ``127.0.0.1``, ``[::1]``, any port) are always
answered, other names only when ``server.allowed_hosts`` lists them; a server with API keys
and no list answers any name (a rebinding page has no key). See
:class:`notecite.config.ServerSettings`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from notecite.api.errors import send_error
from notecite.api.security import is_loopback_host
from notecite.config import ServerSettings

logger = logging.getLogger(__name__)


def host_name(header: str) -> str | None:
    """The name of a ``Host`` header without its port (lower case), or ``None`` if malformed."""
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[: end + 1], value[end + 1 :]
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
    if rest and not (rest.startswith(":") and rest[1:].isdigit()):
        return None
    name = name.rstrip(".")
    return name or None


def host_allowed(name: str, allowed: Sequence[str], any_host: bool) -> bool:
    """Is the host ``name`` (from :func:`host_name`) one the server answers?"""
    if any_host or is_loopback_host(name):
        return True
    for pattern in allowed:
        if pattern.startswith("*."):
            if name.endswith(pattern[1:]):
                return True
        elif name == pattern:
            return True
    return False


class TrustedHosts:
    """ASGI middleware: 400 ``HostNotAllowedError`` for a ``Host`` the server does not answer.

    A request with no ``Host`` at all (HTTP/1.0) is served: no browser sends one.
    """

    def __init__(self, app: ASGIApp, server: ServerSettings) -> None:
        self.app = app
        self.allowed = tuple(server.allowed_hosts)
        self.any_host = server.answers_any_host()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.any_host:
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers", [])).get(b"host")
        if header is None:
            await self.app(scope, receive, send)
            return
        text = header.decode("latin-1")
        name = host_name(text)
        if name is not None and host_allowed(name, self.allowed, self.any_host):
            await self.app(scope, receive, send)
            return
        logger.info("refused a request for a host this server does not answer")
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        message = (
            f"this server does not answer to the host {text[:100]!r}: reach it as localhost or "
            "127.0.0.1, or have its operator add the name to server.allowed_hosts"
        )
        await send_error(send, 400, "HostNotAllowedError", message)
