"""``/mcp``: the MCP server over streamable HTTP, behind the API's bearer keys.

Each request's tenant is decided as for every other route, by :func:`tenant_for_key` over the
server's keys (no key configured: the default tenant; a wrong or missing key: 401 before the
MCP transport sees the request). The tenant rides in the request's scope to the tools, which
run on that tenant's engine only: a session opened with one key and used with another key
sees the second key's notes. The page's session cookie is not accepted here: assistants send
keys. The API's middleware (allowed hosts, body cap, JSON guard, security headers) wraps
this route as it wraps the others, so the SDK's own host check is off.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from notecite.api.errors import UnauthorizedError, send_error
from notecite.api.security import tenant_for_key
from notecite.api.services import get_tenants
from notecite.config import DEFAULT_TENANT
from notecite.engine import Engine
from notecite.mcp import build_server

PATH = "/mcp"
TENANT_KEY = "notecite_tenant"  # where the request's tenant rides in its ASGI scope state


def request_engine(ctx: Context[Any, Any]) -> Engine:
    """The engine of the tenant :class:`McpEndpoint` resolved for this MCP request."""
    request = ctx.request_context.request
    if not isinstance(request, Request):
        raise RuntimeError("an MCP request over HTTP carries its Starlette request")
    tenant = request.scope.get("state", {}).get(TENANT_KEY)
    if not isinstance(tenant, str):
        raise RuntimeError("the MCP request reached a tool without passing through /mcp")
    return get_tenants(request).get(tenant).engine


class McpEndpoint:
    """The ASGI endpoint at ``/mcp``: the bearer key's tenant, then the SDK's transport."""

    def __init__(self, server: MCPServer[Any]) -> None:
        # builds the SDK's session manager (its own Starlette app is not used: this endpoint
        # is the route, inside the API's middleware)
        server.streamable_http_app(
            streamable_http_path=PATH,
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager = server.session_manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        keys = get_tenants(request).settings.server.keys_by_tenant()
        try:
            tenant = tenant_for_key(request.headers.get("authorization"), keys, DEFAULT_TENANT)
        except UnauthorizedError as exc:
            await send_error(
                send, 401, "UnauthorizedError", str(exc), [(b"www-authenticate", b"Bearer")]
            )
            return
        state = dict(scope.get("state") or {})
        state[TENANT_KEY] = tenant
        await self.manager.handle_request({**scope, "state": state}, receive, send)


def mount_mcp(app: FastAPI) -> McpEndpoint:
    """Add ``/mcp`` to ``app``; run its sessions with ``async with running_mcp(endpoint)``
    inside the app's lifespan."""
    endpoint = McpEndpoint(build_server(request_engine))
    app.router.routes.append(Route(PATH, endpoint=endpoint, methods=["GET", "POST", "DELETE"]))
    return endpoint


@asynccontextmanager
async def running_mcp(endpoint: McpEndpoint) -> AsyncIterator[None]:
    """The MCP session manager's task group, for the lifetime of the app."""
    async with endpoint.manager.run():
        yield
