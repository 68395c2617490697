"""``GET /health``: the server is up (no API key needed)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from notecite import __version__
from notecite.api.schemas import Health
from notecite.errors import LLMError
from notecite.generate.base import Preparable

router = APIRouter(tags=["health"])


@router.get("/health")
def health(request: Request) -> Health:
    """The server answers, and whether the default LLM's model is loaded; no key needed,
    nothing is loaded by asking."""
    try:
        llm = request.app.state.services.engine.llm()
    except (AttributeError, LLMError):
        return Health(version=__version__)
    ready = llm.ready if isinstance(llm, Preparable) else None
    return Health(version=__version__, llm=llm.name, model_ready=ready)
