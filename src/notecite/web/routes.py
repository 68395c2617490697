"""The page routes (``/``, ``/logs``, ``/indexing``, ``/view/...``) and the static files.

The pages carry no note data: they render the layout and the server's choices (the note
link template, the models that can be picked), and their scripts call the API.
"""

from __future__ import annotations

import importlib.util
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, FileSystemLoader

from notecite import __version__
from notecite.config import Settings
from notecite.generate.registry import available_llms

_HERE = Path(str(files("notecite.web")))
_PAGES = {"chat": "Chat", "logs": "Chat logs", "indexing": "Index"}


def configured_llms(settings: Settings) -> list[str]:
    """The LLM providers a session may pick: the configured one, the local model when its
    runtime is installed, and the extractive one (no model); not every registered name, since
    a provider with no server configured fails only after a question is sent."""
    wanted = ["extractive"]
    if importlib.util.find_spec("xllamacpp") is not None:
        wanted.append("local")
    if settings.llm:
        wanted.append(settings.llm)
    registered = set(available_llms())
    return sorted({name for name in wanted if name in registered})


def _page(
    templates: Jinja2Templates, request: Request, name: str, settings: Settings, **extra: Any
) -> HTMLResponse:
    context = {
        "page": name,
        "pages": _PAGES,
        "version": __version__,
        "note_uri_template": settings.server.note_uri_template,
        "models": configured_llms(settings),
        "default_model": settings.llm or "",
        **extra,
    }
    return templates.TemplateResponse(request, f"{name}.html", context)


def web_router(settings: Settings) -> APIRouter:
    """The routes of the pages, rendering with ``settings``."""
    env = Environment(loader=FileSystemLoader(_HERE / "templates"), autoescape=True)
    templates = Jinja2Templates(env=env)
    router = APIRouter(include_in_schema=False)

    @router.get("/", response_class=HTMLResponse)
    def chat_page(request: Request) -> HTMLResponse:
        return _page(templates, request, "chat", settings)

    @router.get("/logs", response_class=HTMLResponse)
    def logs_page(request: Request) -> HTMLResponse:
        return _page(templates, request, "logs", settings)

    @router.get("/indexing", response_class=HTMLResponse)
    def indexing_page(request: Request) -> HTMLResponse:
        return _page(templates, request, "indexing", settings)

    @router.get("/view/{vault}/{path:path}", response_class=HTMLResponse)
    def view_page(request: Request, vault: str, path: str, section: str = "") -> HTMLResponse:
        return _page(templates, request, "view", settings, vault=vault, path=path, section=section)

    return router


def mount_web(app: FastAPI, settings: Settings) -> None:
    """Add the pages and ``/static`` to ``app``."""
    app.include_router(web_router(settings))
    app.mount("/static", StaticFiles(directory=_HERE / "static"), name="static")
