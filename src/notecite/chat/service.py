"""ChatService: one chat turn, from the user's message to the stored, validated answer.

history -> condense the follow-up -> retrieve (the ask pipeline) -> generate with history
-> validate citations -> store the question and the answer (with its sources list).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from notecite.chat.answer import check_answer, without_markers
from notecite.chat.condense import Condensed, condense
from notecite.chat.history import history_messages, sources_block
from notecite.chat.prompts import plain_messages, rag_messages
from notecite.chat.retrieval import AskRunner, Retrieval, RetrievedSource, retrieve
from notecite.chat.sessions import Sessions, check_tenant, title_from
from notecite.config import AskSettings, ChatSettings, GenerationSettings
from notecite.errors import LLMError
from notecite.generate.base import LLM, ChatMessage, GenerationRequest
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.failures import failure_type
from notecite.pipeline import LLM_FAILED_ANSWER
from notecite.schemas.ask import AbstainReason, DebugInfo, ErrorInfo
from notecite.schemas.chat import (
    ChatCitation,
    ChatMeta,
    ChatRequest,
    ChatResponse,
    ChatSession,
    NewMessage,
    RetrievalMeta,
    SessionSettings,
)
from notecite.store.sessions import SessionStore

logger = logging.getLogger(__name__)

TokenCallback = Callable[[str], None]
LLMProvider = Callable[[str | None], LLM]

SNIPPET_CHARS = 300


class ChatService:
    """Answers chat messages in sessions, from the notes the ask pipeline retrieves."""

    def __init__(
        self,
        store: SessionStore,
        *,
        llm_for: LLMProvider,
        run_ask: AskRunner,
        chat: ChatSettings,
        ask: AskSettings,
        generation: GenerationSettings,
    ) -> None:
        self.sessions = Sessions(store, SessionSettings.defaults(ask))
        self._store = store
        self._llm_for = llm_for
        self._run_ask = run_ask
        self._chat = chat
        self._ask = ask
        self._generation = generation

    def session_for(self, request: ChatRequest) -> ChatSession | None:
        """The request's session (None: a new one will be started); raises if unknown."""
        check_tenant(request.tenant_id)
        return self.sessions.get(request.session_id) if request.session_id else None

    def send(self, request: ChatRequest, on_token: TokenCallback | None = None) -> ChatResponse:
        """Answer ``request.message`` and store both messages in the session.

        ``on_token`` receives the answer as the model writes it, before validation; the
        response holds the validated answer. An LLM failure is not raised: the response
        (and the stored answer) carries the error and the retrieved sources.
        """
        session = self.session_for(request)
        settings = session.settings if session else self.sessions.defaults
        llm = self._llm_for(settings.model)
        past = (
            self.sessions.messages(session.id, last=2 * self._chat.history_turns) if session else []
        )
        history = history_messages(past)

        query = Condensed(request.message, "none")
        retrieval = Retrieval()
        if settings.enable_rag:
            if history and self._chat.condense_follow_ups:
                query = condense(llm, history, request.message)
            retrieval = retrieve(
                self._run_ask,
                query.query,
                vaults=request.vaults,
                folders=request.folders,
                settings=settings,
                llm=llm,
                ask=self._ask,
                detail=request.detail,
            )
        meta = ChatMeta(
            model=llm.model_id,
            retrieval=RetrievalMeta(
                k=len(retrieval.sources),
                strategy=retrieval.strategy,
                candidate_count=retrieval.candidate_count,
                rerank_count=retrieval.rerank_count,
                time_ms=retrieval.time_ms,
            ),
            query=query.query,
        )
        started = time.perf_counter()
        answer, cited, error = self._answer(
            request.message, query.query, history, retrieval, settings, llm, on_token, request
        )
        generate_ms = (time.perf_counter() - started) * 1000
        if error is None:
            checked = check_answer(answer, retrieval.sources, grounded=settings.enable_rag)
            answer, cited = checked.text, checked.cited
            meta.invalid_citations = checked.invalid
            reason = _abstain_reason(settings, retrieval, bool(checked.cited))
            meta.abstained, meta.abstain_reason = reason is not None, reason
        if not settings.include_citations:
            answer, cited = without_markers(answer), ()
        citations = self._citations(cited)

        if session is None:
            session = self.sessions.create(title_from(request.message))
        stored = answer + sources_block([(s.cid, s.label) for s in cited])
        self.sessions.add_messages(
            session.id,
            [
                NewMessage(role="user", content=request.message),
                NewMessage(
                    role="assistant",
                    content=stored,
                    citations=citations,
                    meta=meta,
                    error=error,
                ),
            ],
        )
        return ChatResponse(
            answer=answer,
            citations=citations,
            session_id=session.id,
            meta=meta,
            error=error,
            debug=_debug(retrieval, generate_ms, citations) if request.debug else None,
        )

    def _answer(
        self,
        message: str,
        query: str,
        history: Sequence[ChatMessage],
        retrieval: Retrieval,
        settings: SessionSettings,
        llm: LLM,
        on_token: TokenCallback | None,
        request: ChatRequest,
    ) -> tuple[str, tuple[RetrievedSource, ...], ErrorInfo | None]:
        """The model's raw answer; on failure the fallback text, every source and the error."""
        if settings.enable_rag and not retrieval.sources:
            if on_token is not None:
                on_token(FALLBACK_ANSWER)
            return FALLBACK_ANSWER, (), None
        if settings.enable_rag:
            messages = rag_messages(
                query,
                [s.context() for s in retrieval.sources],
                history,
                settings.system_prompt,
                request.detail,
            )
        else:
            messages = plain_messages(message, history, settings.system_prompt)
        generation = GenerationRequest(
            messages=messages,
            question=message,  # model-free providers pick sentences by the user's own words
            sources=tuple(s.context() for s in retrieval.sources),
            citation_style="numbered",
            temperature=self._generation.temperature,
            max_tokens=self._generation.max_tokens,
        )
        try:
            if on_token is None:
                return llm.generate(generation), (), None
            pieces = []
            for piece in llm.stream(generation):
                pieces.append(piece)
                on_token(piece)
            return "".join(pieces), (), None
        except LLMError as exc:
            logger.warning("chat answer failed: %s", exc)
            error = ErrorInfo(type=failure_type(str(exc)), message=str(exc))
            return LLM_FAILED_ANSWER, retrieval.sources, error

    def _citations(self, cited: Sequence[RetrievedSource]) -> list[ChatCitation]:
        origins = self._store.chunk_origins([s.chunk_id for s in cited])
        citations = []
        for source in cited:
            origin = origins.get(source.chunk_id)
            snippet = " ".join(source.text.split())
            if len(snippet) > SNIPPET_CHARS:
                snippet = snippet[: SNIPPET_CHARS - 3].rstrip() + "..."
            citations.append(
                ChatCitation(
                    cid=source.cid,
                    note_id=origin.note_id if origin else f"{source.vault}/{source.rel_path}",
                    chunk_id=source.chunk_id,
                    created_at=origin.created_at if origin else None,
                    snippet=snippet,
                    score=round(source.score, 4),
                    vault=source.vault,
                    path=source.rel_path,
                    section=source.heading_path,
                )
            )
        return citations


def _abstain_reason(
    settings: SessionSettings, retrieval: Retrieval, cites: bool
) -> AbstainReason | None:
    """Why a grounded answer abstained: nothing relevant found, or the sources found did not
    answer it (the fallback, or an answer that says so and cites nothing)."""
    if not settings.enable_rag or cites:
        return None
    return "no_relevant_context" if not retrieval.sources else "insufficient_information"


def _debug(
    retrieval: Retrieval, generate_ms: float, citations: Sequence[ChatCitation]
) -> DebugInfo:
    """The pipeline's debug for this turn, with chat's own generation time and citations."""
    debug = retrieval.debug.model_copy(deep=True) if retrieval.debug else DebugInfo()
    cited = {c.chunk_id for c in citations}
    for chunk in debug.retrieved_chunks:
        chunk.cited = chunk.chunk_id in cited
    timings = debug.timings_ms
    timings.generate = round(generate_ms, 3)
    timings.total = round(retrieval.time_ms + generate_ms, 3)
    return debug
