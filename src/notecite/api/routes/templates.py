"""Reasoning templates: ``GET /templates``, ``POST /templates/search``.

The retriever is opened and the library indexed when the app starts (:func:`start`); it
lives on ``app.state.templates``.
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from notecite.config import Settings
from notecite.embed.base import Embedder
from notecite.errors import NotecitError
from notecite.templates import Template, TemplateMatch, TemplateRetriever, open_template_retriever

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/templates", tags=["templates"])


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class TemplateList(_Camel):
    """Every stored template, by id."""

    templates: list[Template]


class TemplateSearch(_Camel):
    """A problem to find reasoning templates for; ``topK`` defaults to 3."""

    query: str = Field(min_length=1, max_length=2000)
    top_k: int | None = Field(default=None, ge=1, le=50)


class TemplateSearchResult(_Camel):
    """The best templates, best first; the chain-of-thought fallback (score 0.5) when none
    passes the threshold."""

    matches: list[TemplateMatch]


def start(settings: Settings, embedder: Embedder) -> TemplateRetriever:
    """Open the template retriever and index the library. A failure is logged, not raised:
    the server starts, and searches answer with the chain-of-thought fallback."""
    retriever = open_template_retriever(settings, embedder)
    try:
        count = retriever.index_templates()
    except NotecitError as exc:
        logger.warning("reasoning templates not indexed: %s", exc)
    else:
        logger.info("reasoning templates indexed: %d", count)
    return retriever


def get_templates(request: Request) -> TemplateRetriever:
    """The app's template retriever (set by its lifespan)."""
    retriever = getattr(request.app.state, "templates", None)
    if not isinstance(retriever, TemplateRetriever):
        raise RuntimeError("the notecite app is not started: run it with its lifespan")
    return retriever


TemplatesDep = Annotated[TemplateRetriever, Depends(get_templates)]


@router.get("")
def list_templates(templates: TemplatesDep) -> TemplateList:
    """Every stored reasoning template, by id."""
    return TemplateList(templates=templates.list_templates())


@router.post("/search")
def search_templates(body: TemplateSearch, templates: TemplatesDep) -> TemplateSearchResult:
    """The templates that best fit the problem in ``query`` (cosine similarity, over the
    calibrated threshold), or chain of thought with score 0.5."""
    return TemplateSearchResult(matches=templates.search(body.query, body.top_k))
