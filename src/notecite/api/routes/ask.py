"""``POST /ask`` (the ask contract) and ``POST /search``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from notecite.api.errors import llm_failure_status
from notecite.api.schemas import SearchHit, SearchRequest, SearchResponse
from notecite.api.services import ServicesDep
from notecite.schemas.ask import AskRequest, AskResponse

router = APIRouter(tags=["ask"])

_FAILED_LLM: dict[int | str, dict[str, Any]] = {
    502: {"model": AskResponse, "description": "the LLM failed; references still included"},
    504: {"model": AskResponse, "description": "the LLM timed out; references still included"},
}


@router.post("/ask", response_model=AskResponse, responses=_FAILED_LLM)
def ask(body: AskRequest, services: ServicesDep) -> JSONResponse:
    """Answer a question from the notes with validated citations.

    When the model fails the reply still holds the retrieved references, with ``error``
    set and status 504 for a timeout (502 otherwise).
    """
    services.check_scope(body.vaults, body.folders)
    response = services.engine.ask(body)
    status = 200
    if response.error is not None:
        status = llm_failure_status(response.error.type)
    return JSONResponse(response.model_dump(mode="json"), status_code=status)


@router.post("/search")
def search(body: SearchRequest, services: ServicesDep) -> SearchResponse:
    """The chunks that best match the query, by hybrid vector + BM25 score."""
    services.check_scope(body.vaults, body.folders)
    results = services.engine.search(
        body.query, vaults=body.vaults, folders=body.folders, k=body.k, filters=body.filters
    )
    return SearchResponse(results=[SearchHit.of(r) for r in results])
