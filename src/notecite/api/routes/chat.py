"""``POST /chat``: one message in a session, answered as JSON or as Server-Sent Events."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse

from notecite.api.errors import llm_failure_status
from notecite.api.services import ServicesDep
from notecite.api.sse import TokenCallback, chat_events
from notecite.schemas.chat import ChatRequest, ChatResponse

router = APIRouter(tags=["chat"])

_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": ChatResponse,
        "content": {"text/event-stream": {}},
        "description": "the answer; with stream: token events, then a final event",
    },
    502: {"model": ChatResponse, "description": "the LLM failed; sources still included"},
    504: {"model": ChatResponse, "description": "the LLM timed out; sources still included"},
}


@router.post("/chat", response_model=None, responses=_RESPONSES)
def chat(body: ChatRequest, services: ServicesDep) -> Response:
    """Answer a message in its session (a new session without ``sessionId``).

    With ``stream: true`` the reply is ``text/event-stream``: ``token`` events as the model
    writes, then one ``final`` event with the validated answer, citations and meta.
    """
    services.require_tenant(body.tenant_id)
    if body.session_id is not None:
        services.sessions.get(body.session_id)  # an unknown session is a 404, even streamed
    services.check_scope(body.vaults, body.folders)
    if body.stream:

        def run(on_token: TokenCallback) -> ChatResponse:
            return services.engine.chat(body, sessions=services.session_store, on_token=on_token)

        return StreamingResponse(
            chat_events(run),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    response = services.engine.chat(body, sessions=services.session_store)
    status = 200 if response.error is None else llm_failure_status(response.error.type)
    return JSONResponse(response.to_json(), status_code=status)
