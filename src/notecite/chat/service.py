"""ChatService: one chat turn, from the user's message to the stored, validated answer.

history -> condense the follow-up -> retrieve (the retrieval stage, as ask does) ->
answer_with_citations (the one answer path: context assembly, generation with history,
citation checks, fallbacks) -> store the question and the answer (with its sources list).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from notecite.chat.answer import without_markers
from notecite.chat.condense import Condensed, condense
from notecite.chat.history import history_messages, sources_block
from notecite.chat.prompts import plain_messages, rag_messages
from notecite.chat.sessions import Sessions, check_tenant, title_from
from notecite.config import AskSettings, ChatSettings, GenerationSettings
from notecite.errors import GenerationCancelled
from notecite.generate.answer import (
    AnswerSettings,
    CitedAnswer,
    TokenCallback,
    answer_with_citations,
)
from notecite.generate.base import LLM, ChatMessage, ContextSource, Owners
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.context import ContextBudget, TokenCounter
from notecite.generate.failures import failure_type
from notecite.generate.grounding import Grounder
from notecite.generate.listing import listed_answer
from notecite.pipeline import (
    NO_NOTES_ANSWER,
    NoteLines,
    context_budget,
    context_pieces,
    debug_chunks,
    place_quotes,
    read_once,
    reading_threshold,
    record_generation,
    summary_context,
)
from notecite.retrieve.aliases import with_named
from notecite.retrieve.frontmatter import no_matching_notes_answer
from notecite.retrieve.implied import implied_terms
from notecite.retrieve.listing import asks_for_every_note
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.salient import not_mentioned_answer, nothing_found_answer
from notecite.retrieve.stage import Retrieved
from notecite.retrieve.terms import query_terms
from notecite.retrieve.typos import with_readings
from notecite.schemas.ask import MAX_QUESTION_CHARS, AbstainReason, AskRequest, DebugInfo, ErrorInfo
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

LLMProvider = Callable[[str | None], LLM]
Retrieve = Callable[[AskRequest, LLM, AskSettings, DebugInfo], Retrieved]
"""The retrieval stage for a question with the given LLM and ask settings (the Engine's)."""

SNIPPET_CHARS = 300

logger = logging.getLogger(__name__)


def session_ask_settings(ask: AskSettings, settings: SessionSettings) -> AskSettings:
    """The ask settings of a session: its ``rag_threshold`` gates the final score, and its
    ``rag_top_k`` (1-10) is K. A threshold set below the vector threshold lowers that too,
    so a session with threshold 0 keeps its top K whatever their cosine."""
    vector = ask.vector_threshold
    if settings.rag_threshold < ask.final_threshold:
        vector = min(vector, settings.rag_threshold)
    return ask.model_copy(
        update={
            "final_threshold": settings.rag_threshold,
            # a session that lowers its threshold wants its top K whatever they score
            "answerability_gate": ask.answerability_gate
            and settings.rag_threshold >= ask.final_threshold,
            "vector_threshold": vector,
            "k_min": 1,
            "k_max": max(ask.k_max, settings.rag_top_k),
        }
    )


class ChatService:
    """Answers chat messages in sessions, from the notes the retrieval stage finds."""

    def __init__(
        self,
        store: SessionStore,
        *,
        llm_for: LLMProvider,
        retrieve: Retrieve,
        count_tokens: TokenCounter,
        chat: ChatSettings,
        ask: AskSettings,
        generation: GenerationSettings,
        grounder: Grounder | None = None,
        note_lines: NoteLines | None = None,
    ) -> None:
        self._note_lines = note_lines
        self.sessions = Sessions(store, SessionSettings.defaults(ask))
        self._store = store
        self._llm_for = llm_for
        self._retrieve = retrieve
        self._count_tokens = count_tokens
        self._grounder = grounder
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
        debug = DebugInfo(llm=llm.name)

        query = Condensed(request.message, "none")
        retrieved: Retrieved | None = None
        retrieval_ms = 0.0
        if settings.enable_rag and history and self._chat.condense_follow_ups:
            query = condense(llm, history, request.message)
        # else nothing to search for, unless it asks for the notes ("What notes do I have?")
        if settings.enable_rag and (query_terms(query.query) or asks_for_every_note(query.query)):
            started = time.perf_counter()
            retrieved = self._retrieve(
                AskRequest(
                    question=query.query[:MAX_QUESTION_CHARS],
                    vaults=list(request.vaults),
                    folders=list(request.folders),
                    k=settings.rag_top_k,
                    detail=request.detail,
                    filters=[*settings.filters, *request.filters],
                ),
                llm,
                session_ask_settings(self._ask, settings),
                debug,
            )
            retrieval_ms = (time.perf_counter() - started) * 1000
        kept = retrieved.kept if retrieved else []

        meta = ChatMeta(
            model=llm.model_id,
            retrieval=_retrieval_meta(retrieved, settings, retrieval_ms),
            query=query.query,
        )
        # names the notes never mention settle the turn; a lesser one is told to the model
        settled = retrieved is not None and bool(kept) and retrieved.missing.settled
        missing = retrieved.missing.absent_names if retrieved and settled else ()
        written: list[str] = []
        absent = retrieved.missing.unheld if retrieved else ()

        def write(piece: str) -> None:
            assert on_token is not None
            on_token(piece)  # raises GenerationCancelled when the client went away
            written.append(piece)

        token = write if on_token is not None else None
        listing = retrieved.listing if retrieved and not retrieved.empty_index else None
        listed = listing is not None and (bool(kept) or listing.answers_when_empty)
        try:
            if settings.enable_rag and not listed and (not kept or missing):
                text = FALLBACK_ANSWER
                if retrieved and retrieved.empty_index:
                    text = NO_NOTES_ANSWER
                elif retrieved and retrieved.filtered_out:
                    text = no_matching_notes_answer(retrieved.debug.filters)
                elif missing:
                    text = not_mentioned_answer(missing)
                elif retrieved:
                    text = nothing_found_answer(text, retrieved.missing.absent_names)
                if token is not None:
                    token(text)
                answer = CitedAnswer(text=text, outcome="fallback")
            elif listing is not None:
                # "What notes are tagged #baking?", "What are my open todos?": listed and cited
                answer = listed_answer(context_pieces(kept), listing)
                note_lines = read_once(self._note_lines)
                if note_lines is not None:  # an open task is cited at its line of the file
                    place_quotes(answer, kept, note_lines)
                if token is not None:
                    token(answer.text)
            else:
                note_lines = read_once(self._note_lines)
                parts = len(retrieved.parts) if retrieved else 1
                # "Summarize the PG16 project": the best-ranked note is read whole
                kept, budget = summary_context(
                    request.message,
                    kept,
                    note_lines,
                    context_budget(self._ask, llm, request.detail, parts),
                    self._count_tokens,
                    retrieved.whole_note if retrieved else None,
                )
                answer = self._answer(
                    request,
                    with_named(
                        with_readings(query.query, retrieved.readings if retrieved else {}),
                        retrieved.named if retrieved else {},
                    ),
                    history,
                    kept,
                    settings,
                    llm,
                    token,
                    budget,
                    absent,
                    read_first=retrieved is not None and retrieved.read_first,
                    note_lines=note_lines,
                    owners=retrieved.owners if retrieved else None,
                )
                if note_lines is not None:
                    place_quotes(answer, kept, note_lines)
        except GenerationCancelled:
            logger.debug("turn cancelled after %d pieces", len(written))
            meta.cancelled = True
            answer = CitedAnswer(text="".join(written).strip(), outcome="failed")
        error = None
        if meta.cancelled:
            pass  # neither an error nor an abstention: the user stopped it
        elif answer.error is not None:
            error = ErrorInfo(type=failure_type(answer.error), message=str(answer.error))
        else:
            meta.invalid_citations = len(answer.invalid)
            reason = _abstain_reason(settings, retrieved, answer)
            meta.abstained, meta.abstain_reason = reason is not None, reason
        meta.retrieval.k = sum(len(m) for m in answer.members.values())
        if answer.raw:  # the model answered: what it read and wrote, in the context's tokens
            sent = _prompt_builder(request, query.query, history, settings, absent)(answer.sources)
            meta.prompt_tokens = sum(self._count_tokens([m.content for m in sent]))
            meta.completion_tokens = sum(self._count_tokens([answer.raw]))
        text = answer.text
        by_cid = {s.cid: s for s in answer.sources}
        cited = [by_cid[cid] for cid in answer.cited]
        if not settings.include_citations:
            text, cited = without_markers(text), []
        citations = self._citations(cited, answer, kept)

        if session is None:
            session = self.sessions.create(title_from(request.message))
        stored = text + sources_block([(c.cid, _label(c)) for c in citations])
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
            answer=text,
            citations=citations,
            session_id=session.id,
            meta=meta,
            error=error,
            debug=(
                _debug(debug, retrieved, answer, retrieval_ms, citations) if request.debug else None
            ),
        )

    def _answer(
        self,
        request: ChatRequest,
        query: str,
        history: Sequence[ChatMessage],
        kept: Sequence[Candidate],
        settings: SessionSettings,
        llm: LLM,
        on_token: TokenCallback | None,
        budget: ContextBudget,
        absent: Sequence[str] = (),
        read_first: bool = False,
        note_lines: NoteLines | None = None,
        owners: Owners | None = None,
    ) -> CitedAnswer:
        """The answer through the one answer path, with history and the session's prompt
        (``budget``: the context's, see :func:`~notecite.pipeline.context_budget`;
        ``read_first``: the gate doubted the context, and the model reads it first)."""
        prompt = _prompt_builder(request, query, history, settings, absent)
        return answer_with_citations(
            llm,
            request.message,  # model-free providers pick sentences by the user's own words
            context_pieces(kept, note_lines),
            prompt,
            self._count_tokens,
            AnswerSettings(
                budget=budget,
                focus=query,
                temperature=self._generation.temperature,
                max_tokens=self._generation.max_tokens,
                grounded=settings.enable_rag,
                grounder=self._grounder if settings.enable_rag else None,
                quote_unsupported=self._ask.quote_unsupported,
                rewrite_from_quotes=self._ask.rewrite_from_quotes,
                reading_threshold=reading_threshold(self._ask, read_first),
                read_first=read_first,
                owners=owners,
                implied=implied_terms(query),
            ),
            on_token,
            _prompt_builder(request, query, history, settings, ()) if absent else None,
        )

    def _citations(
        self, cited: Sequence[ContextSource], answer: CitedAnswer, kept: Sequence[Candidate]
    ) -> list[ChatCitation]:
        """One citation per cited context block, placed at its best-ranked chunk."""
        best = {cid: kept[members[0]] for cid, members in answer.members.items() if members}
        origins = self._store.chunk_origins([best[s.cid].chunk.chunk_id for s in cited])
        citations = []
        for source in cited:
            chunk = best[source.cid]
            origin = origins.get(chunk.chunk.chunk_id)
            support = answer.support.get(source.cid)
            snippet = _snippet(source.text)
            citations.append(
                ChatCitation(
                    cid=source.cid,
                    note_id=origin.note_id if origin else f"{source.vault}/{source.rel_path}",
                    chunk_id=chunk.chunk.chunk_id,
                    created_at=origin.created_at if origin else None,
                    snippet=snippet,
                    score=round(chunk.gate, 4),
                    vault=source.vault,
                    path=source.rel_path,
                    section=source.heading_path,
                    # a property's line, shown above the chunk, starts the span
                    line_start=min(chunk.chunk.line_start, support.line)
                    if support
                    else chunk.chunk.line_start,
                    line_end=chunk.chunk.line_end,
                    quote=support.text if support else None,
                    quote_line=support.line if support else None,
                )
            )
        return citations


def _snippet(text: str) -> str:
    """The passage as markdown the page can render: its lines kept (a heading stays a
    heading), runs of spaces and blank lines squeezed, at most SNIPPET_CHARS."""
    lines = [" ".join(line.split()) for line in text.strip().splitlines()]
    snippet = "\n".join(line for i, line in enumerate(lines) if line or (i and lines[i - 1]))
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 3].rstrip() + "..."
    return snippet


PromptBuilder = Callable[[Sequence[ContextSource]], tuple[ChatMessage, ...]]


def _prompt_builder(
    request: ChatRequest,
    query: str,
    history: Sequence[ChatMessage],
    settings: SessionSettings,
    absent: Sequence[str],
) -> PromptBuilder:
    """The messages the model is sent for a given context."""

    def prompt(sources: Sequence[ContextSource]) -> tuple[ChatMessage, ...]:
        if settings.enable_rag:
            return rag_messages(
                query, sources, history, settings.system_prompt, request.detail, absent
            )
        return plain_messages(request.message, history, settings.system_prompt)

    return prompt


def _label(citation: ChatCitation) -> str:
    where = f"{citation.vault}/{citation.path}"
    return f"{where} > {citation.section}" if citation.section else where


def _retrieval_meta(
    retrieved: Retrieved | None, settings: SessionSettings, time_ms: float
) -> RetrievalMeta:
    if retrieved is None:
        return RetrievalMeta()
    passed = sum(1 for c in retrieved.candidates if c.gate >= settings.rag_threshold)
    return RetrievalMeta(
        k=len(retrieved.kept),
        strategy=retrieved.strategy or "hybrid",
        candidate_count=len(retrieved.candidates),
        rerank_count=passed,
        time_ms=round(time_ms, 3),
    )


def _abstain_reason(
    settings: SessionSettings, retrieved: Retrieved | None, answer: CitedAnswer
) -> AbstainReason | None:
    """Why a grounded answer abstained: no notes at all, nothing relevant found, or the
    sources found did not answer it (the fallback, the closest lines quoted, or an answer
    that says so)."""
    if not settings.enable_rag or answer.outcome == "answered":
        return None
    if retrieved is not None and retrieved.empty_index:
        return "no_notes"
    if retrieved is not None and retrieved.filtered_out:
        return "no_matching_notes"
    if retrieved is not None and retrieved.kept and retrieved.missing.settled:
        return "not_mentioned"
    return "insufficient_information" if answer.sources else "no_relevant_context"


def _debug(
    debug: DebugInfo,
    retrieved: Retrieved | None,
    answer: CitedAnswer,
    retrieval_ms: float,
    citations: Sequence[ChatCitation],
) -> DebugInfo:
    """The retrieval stage's debug for this turn, with the answer's figures and citations."""
    if retrieved is not None:
        debug.retrieved_chunks = debug_chunks(retrieved)
    cited = {c.chunk_id for c in citations}
    for chunk in debug.retrieved_chunks:
        chunk.cited = chunk.chunk_id in cited
    record_generation(debug, answer)
    debug.invalid_citations = list(answer.invalid)
    timings = debug.timings_ms
    timings.generate = round(answer.generate_ms, 3)
    timings.total = round(retrieval_ms + answer.generate_ms, 3)
    return debug
