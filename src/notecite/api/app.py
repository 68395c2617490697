"""The app factory: ``create_app(settings)`` builds a FastAPI app with no global state.

The Engine, the session store and the index-job runner are built when the app starts
(its lifespan) and closed when it stops.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from notecite import __version__
from notecite.api.errors import install_error_handlers
from notecite.api.graphql import graphql_router
from notecite.api.limits import BodyLimit
from notecite.api.routes import (
    ask,
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
from notecite.web import mount_web


def create_app(settings: Settings) -> FastAPI:
    """The notecite HTTP API over the index that ``settings`` points to.

    Routes: ``GET /health``; ``POST /ask``, ``POST /search``; ``/vaults`` (list, add, remove,
    ``POST|GET /vaults/{name}/index``); ``POST /chat`` (JSON or Server-Sent Events);
    ``/sessions`` (create, list, get, rename, delete, ``GET|PATCH .../settings``);
    ``GET /templates``, ``POST /templates/search`` (the library is indexed at start-up).
    ``GET /v1/models``, ``POST /v1/chat/completions`` (OpenAI-compatible, streamed or not);
    ``/graphql`` (sessions with their RAG settings, chat; GraphiQL on GET).
    ``GET /notes/{vault}/{path}`` (an indexed note's file), ``GET /vaults/{name}/folders``;
    the web page at ``/`` (``/logs``, ``/indexing``, ``/view/...``, ``/static``).
    OpenAPI at ``/docs``. When API keys are set (``server.api_keys``, ``server.tenant_keys``),
    every route but /health needs ``Authorization: Bearer <key>``, and the key's tenant is
    the only one whose vaults, notes and sessions the request sees. Reasoning templates are
    a library shared by every tenant.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        tenants = Tenants(settings)
        app.state.tenants = tenants
        app.state.services = tenants.default
        app.state.templates = templates.start(settings, tenants.default.engine.embedder)
        try:
            yield
        finally:
            app.state.templates.close()
            tenants.close()

    app = FastAPI(
        title="notecite",
        version=__version__,
        description="Answers from your notes, citing the exact file and section.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=settings.server.max_request_bytes)
    app.include_router(health.router)
    protected = [Depends(require_api_key)]
    for module in (ask, vaults, chat, sessions, templates, notes, openai_compat):
        app.include_router(module.router, dependencies=protected)
    app.include_router(graphql_router(), dependencies=protected)
    mount_web(app, settings)  # the pages hold no data: their scripts call the routes above
    return app
