"""The app factory: ``create_app(settings)`` builds a FastAPI app with no global state.

The Engine, the session store and the index-job runner are built when the app starts
(its lifespan) and closed when it stops.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from notecite import __version__
from notecite.api.error_responses import JsonErrors
from notecite.api.errors import install_error_handlers
from notecite.api.graphql import graphql_router
from notecite.api.headers import SecurityHeaders
from notecite.api.hosts import TrustedHosts
from notecite.api.limits import BodyLimit
from notecite.api.mcp_route import mount_mcp, running_mcp
from notecite.api.request_guard import RequestGuard
from notecite.api.routes import (
    ask,
    auth,
    chat,
    health,
    notes,
    openai_compat,
    sessions,
    templates,
    vaults,
)
from notecite.api.services import Tenants, require_api_key
from notecite.config import Settings
from notecite.engine import Engine
from notecite.errors import LLMError
from notecite.generate.base import ModelProgress
from notecite.web import mount_web

logger = logging.getLogger(__name__)


def preload_llm(engine: Engine, progress: ModelProgress | None = None) -> None:
    """Load the default LLM's model before the first request. A model that cannot load is
    logged as a warning: answers then fail with their sources, as with any failing model."""
    try:
        engine.prepare_llm(None, progress)
    except LLMError as exc:
        logger.warning("the model could not be prepared: %s", exc)


def create_app(settings: Settings, model_progress: ModelProgress | None = None) -> FastAPI:
    """The notecite HTTP API over the index that ``settings`` points to.

    Routes: ``GET /health``; ``POST /ask``, ``POST /search``; ``/vaults`` (list, add, remove,
    ``POST|GET /vaults/{name}/index``); ``POST /chat`` (JSON or Server-Sent Events);
    ``/sessions`` (create, list, get, rename, delete, ``GET|PATCH .../settings``);
    ``GET /templates``, ``POST /templates/search`` (the library is indexed at start-up).
    ``GET /v1/models``, ``POST /v1/chat/completions`` (OpenAI-compatible, streamed or not);
    ``POST /graphql`` (sessions with their RAG settings, chat; depth, alias and size limits,
    one ``sendMessage`` a request); ``/mcp``, the MCP server (streamable HTTP: the tools
    search, ask, get_note, list_vaults; notes as resources). ``GET /notes/{vault}/{path}``
    (an indexed note's file), ``GET /vaults/{name}/folders``; the web page at ``/``
    (``/logs``, ``/indexing``, ``/view/...``, ``/static``), which signs in with
    ``POST|DELETE /auth/session``.
    OpenAPI at ``/openapi.json``. When API keys are set (``server.api_keys``,
    ``server.tenant_keys``), every route but /health needs ``Authorization: Bearer <key>``
    (or the page's session cookie), and the key's tenant is the only one whose vaults, notes
    and sessions the request sees. Reasoning templates are a library shared by every tenant.

    Every response carries a strict Content-Security-Policy and the other security headers
    (:mod:`notecite.api.headers`); every error is JSON; a ``Host`` the server does not answer
    (:mod:`notecite.api.hosts`), a NUL in the URL, and hostile JSON bodies
    (:mod:`notecite.api.request_guard`) are refused before any route runs.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tenants = Tenants(settings)
        app.state.tenants = tenants
        app.state.services = tenants.default
        app.state.templates = templates.start(settings, tenants.default.engine.embedder)
        if settings.server.preload_llm:
            await asyncio.to_thread(preload_llm, tenants.default.engine, model_progress)
        try:
            async with running_mcp(mcp_endpoint):
                yield
        finally:
            app.state.templates.close()
            tenants.close()

    app = FastAPI(
        title="notecite",
        version=__version__,
        description="Answers from your notes, citing the exact file and section.",
        lifespan=lifespan,
        # the interactive docs load their scripts from a CDN, which the page's policy forbids
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(app)
    # innermost first: the body is capped before the guard reads it; the headers go on last
    app.add_middleware(RequestGuard)
    app.add_middleware(BodyLimit, max_bytes=settings.server.max_request_bytes)
    app.add_middleware(TrustedHosts, server=settings.server)
    app.add_middleware(JsonErrors)
    app.add_middleware(SecurityHeaders)
    app.include_router(health.router)
    app.include_router(auth.router)
    protected = [Depends(require_api_key)]
    for module in (ask, vaults, chat, sessions, templates, notes, openai_compat):
        app.include_router(module.router, dependencies=protected)
    app.include_router(graphql_router(), dependencies=protected)
    mcp_endpoint = mount_mcp(app)  # the bearer key's tenant, checked by the endpoint itself
    mount_web(app, settings)  # the pages hold no data: their scripts call the routes above
    return app
