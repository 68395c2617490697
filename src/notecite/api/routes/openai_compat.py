"""OpenAI-compatible routes: ``GET /v1/models``, ``POST /v1/chat/completions``.

Chat front ends and SDKs can use notecite as a model. The last user message is the
question; the messages before it are the history; system messages become the session's
system prompt (the citation rules are kept). Each completion runs as a chat turn in a
session that lives only for the request, so condensing, retrieval, citation validation
and the ``[Nk]`` markers are those of ``/chat``. Citations are in the message text (the
markers and a sources list) and in ``citations``. API keys and tenants apply as to every
route.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response, StreamingResponse

from notecite.api.errors import (
    InvalidRequestError,
    NotFoundError,
    describe,
    error_body,
    llm_failure_status,
)
from notecite.api.services import Services, ServicesDep
from notecite.api.sse import relay
from notecite.chat.history import sources_block
from notecite.generate.registry import available_llms
from notecite.schemas.ask import MAX_QUESTION_CHARS
from notecite.schemas.chat import (
    MAX_SYSTEM_PROMPT_CHARS,
    ChatCitation,
    ChatRequest,
    ChatResponse,
    NewMessage,
    SessionSettingsPatch,
)
from notecite.schemas.openai import (
    MODEL_PREFIX,
    Choice,
    Completion,
    CompletionRequest,
    Extension,
    ModelCard,
    ModelList,
    OutputMessage,
    Usage,
)

router = APIRouter(prefix="/v1", tags=["openai-compatible"])

TokenCallback = Callable[[str], None]


@router.get("/models")
def list_models() -> ModelList:
    """``notecite`` (the configured LLM) and ``notecite:<provider>`` for each provider."""
    names = [MODEL_PREFIX, *(f"{MODEL_PREFIX}:{name}" for name in available_llms())]
    return ModelList(data=[ModelCard(id=name) for name in names])


@router.post("/chat/completions", response_model=None)
def chat_completions(body: CompletionRequest, services: ServicesDep) -> Response:
    """Answer the last user message from the notes, citing them (streamed with ``stream``)."""
    turn = _Turn.of(body, services)
    if body.stream:
        return StreamingResponse(
            _chunks(turn),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    response = turn.run(None)
    if response.error is not None:  # the error, with the sources that were retrieved
        failed = error_body(response.error.type, response.error.message)
        failed["citations"] = [c.model_dump(mode="json", by_alias=True) for c in response.citations]
        return JSONResponse(failed, status_code=llm_failure_status(response.error.type))
    completion = Completion(
        id=turn.id,
        created=turn.created,
        model=body.model,
        choices=[
            Choice(message=OutputMessage(content=_content(response), citations=response.citations))
        ],
        citations=response.citations,
        usage=_usage(response),
        notecite=Extension(answer=response.answer, meta=response.meta),
    )
    return JSONResponse(completion.model_dump(mode="json", by_alias=True))


class _Turn:
    """One completion: the question, its history and settings, run in a passing session."""

    def __init__(
        self, services: Services, request: CompletionRequest, patch: SessionSettingsPatch
    ) -> None:
        self.services = services
        self.request = request
        self.patch = patch
        self.id = f"chatcmpl-{uuid.uuid4().hex}"
        self.created = int(time.time())

    @classmethod
    def of(cls, body: CompletionRequest, services: Services) -> _Turn:
        """Check the request before anything runs (errors are the usual JSON ones)."""
        users = [i for i, m in enumerate(body.messages) if m.role == "user"]
        if not users:
            raise InvalidRequestError("messages: no user message to answer")
        question = body.messages[users[-1]].text().strip()
        if not question:
            raise InvalidRequestError("the last user message is empty")
        if len(question) > MAX_QUESTION_CHARS:
            raise InvalidRequestError(
                f"the last user message is over {MAX_QUESTION_CHARS} characters"
            )
        system = "\n\n".join(
            m.text() for m in body.messages if m.role in ("system", "developer") and m.text()
        )
        if len(system) > MAX_SYSTEM_PROMPT_CHARS:
            raise InvalidRequestError(
                f"system messages are over {MAX_SYSTEM_PROMPT_CHARS} characters in all"
            )
        services.check_scope(body.vaults, body.folders)
        patch = SessionSettingsPatch(model=_provider(body.model), system_prompt=system or None)
        return cls(services, body, patch)

    def run(self, on_token: TokenCallback | None) -> ChatResponse:
        """Answer in a session holding the earlier messages; the session is then deleted."""
        messages = self.request.messages
        last = max(i for i, m in enumerate(messages) if m.role == "user")
        history = [
            NewMessage(role=m.role, content=m.text())
            for m in messages[:last]
            if m.role in ("user", "assistant") and m.text()
        ]
        sessions = self.services.sessions
        session = sessions.create("OpenAI-compatible completion", self.patch)
        try:
            if history:
                sessions.add_messages(session.id, history)
            chat = ChatRequest(
                message=messages[last].text().strip(),
                session_id=session.id,
                vaults=self.request.vaults,
                folders=self.request.folders,
                filters=self.request.filters,
            )
            return self.services.engine.chat(
                chat, sessions=self.services.session_store, on_token=on_token
            )
        finally:
            sessions.delete(session.id)


def _provider(model: str) -> str | None:
    """The LLM provider a model id names (None: the configured one)."""
    if model == MODEL_PREFIX:
        return None
    prefix, _, name = model.partition(":")
    if prefix != MODEL_PREFIX or name not in available_llms():
        known = ", ".join([MODEL_PREFIX, *(f"{MODEL_PREFIX}:{n}" for n in available_llms())])
        raise NotFoundError(f"unknown model {model!r}; models: {known}")
    return name


def _content(response: ChatResponse) -> str:
    """The answer with its sources list, as a chat window shows it."""
    return response.answer + _sources(response)


def _sources(response: ChatResponse) -> str:
    """``- [N1] vault/path.md \u203a Heading \u203a Subheading``, under the ids the text
    cites."""
    return sources_block([(c.cid, _where(c)) for c in response.citations], keep_prefix=True)


def _where(citation: ChatCitation) -> str:
    headings = [h.lstrip("#").strip() for h in citation.section.split(" > ") if h.strip()]
    return " \u203a ".join([citation.note_id, *headings])


def _usage(response: ChatResponse) -> Usage:
    prompt, written = response.meta.prompt_tokens, response.meta.completion_tokens
    return Usage(prompt_tokens=prompt, completion_tokens=written, total_tokens=prompt + written)


def _chunk(turn: _Turn, delta: dict[str, Any], **extra: Any) -> str:
    chunk = {
        "id": turn.id,
        "object": "chat.completion.chunk",
        "created": turn.created,
        "model": turn.request.model,
        "choices": [
            {"index": 0, "delta": delta, "finish_reason": extra.pop("finish_reason", None)}
        ],
        **extra,
    }
    return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n"


async def _chunks(turn: _Turn) -> AsyncIterator[str]:
    """``chat.completion.chunk`` events, then ``data: [DONE]``.

    Deltas are the model's text as it is written; the last chunk adds the sources list,
    ``citations`` and ``notecite`` (the answer after citation validation, and the meta).
    A failure is one ``{"error": ...}`` event, as OpenAI streams send it (an LLM failure
    adds the retrieved sources as ``citations``).
    """
    yield _chunk(turn, {"role": "assistant", "content": ""})
    async for kind, item in relay(turn.run):
        if kind == "token":
            yield _chunk(turn, {"content": item})
        elif kind == "final":
            assert isinstance(item, ChatResponse)
            if item.error is not None:
                failed = error_body(item.error.type, item.error.message)
                failed["citations"] = [
                    c.model_dump(mode="json", by_alias=True) for c in item.citations
                ]
                yield f"data: {json.dumps(failed)}\n\n"
                break
            citations = [c.model_dump(mode="json", by_alias=True) for c in item.citations]
            yield _chunk(
                turn,
                {"content": _sources(item)},
                finish_reason="stop",
                citations=citations,
                usage=_usage(item).model_dump(),
                notecite=Extension(answer=item.answer, meta=item.meta).model_dump(
                    mode="json", by_alias=True
                ),
            )
        else:
            _, error = describe(item)
            yield f"data: {json.dumps(error)}\n\n"
    yield "data: [DONE]\n\n"
