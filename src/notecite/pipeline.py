"""The ask use case: retrieve (the retrieval stage) -> answer_with_citations -> AskResponse.

Built by :class:`notecite.engine.Engine` in one place; this module turns what the stages
return into the ``/ask`` contract (references, abstentions, the debug view).
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import PurePosixPath

from notecite.config import AskSettings, GenerationSettings
from notecite.embed.base import Embedder
from notecite.generate.answer import (
    AnswerSettings,
    CitedAnswer,
    PromptBuilder,
    TokenCallback,
    answer_with_citations,
)
from notecite.generate.base import LLM, ChatMessage, ContextSource
from notecite.generate.context import ContextBudget, ContextPiece, TokenCounter
from notecite.generate.evidence import GAP
from notecite.generate.failures import failure_type
from notecite.generate.grounding import Grounder, SupportLine, locate
from notecite.generate.listing import listed_answer
from notecite.generate.outline import asks_for_summary, outline
from notecite.generate.prompts import answer_messages
from notecite.generate.properties import shown_properties
from notecite.ingest.frontmatter import frontmatter_end
from notecite.ingest.parse import MARKDOWN_EXT, ORG_EXT
from notecite.retrieve.aliases import with_named
from notecite.retrieve.frontmatter import no_matching_notes_answer
from notecite.retrieve.implied import implied_terms
from notecite.retrieve.listing import asks_for_every_note
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.salient import not_mentioned_answer, nothing_found_answer
from notecite.retrieve.stage import Retrieved
from notecite.retrieve.terms import query_terms
from notecite.retrieve.typos import with_readings
from notecite.schemas.ask import (
    AskRequest,
    AskResponse,
    ClaimCheck,
    DebugInfo,
    ErrorInfo,
    GenerationDebug,
    Reference,
    RetrievedChunk,
)
from notecite.store.base import StoredChunk

logger = logging.getLogger(__name__)

Retrieve = Callable[[AskRequest, DebugInfo], Retrieved]
NoteLines = Callable[[str, str], "list[str] | None"]
"""The current lines of a note, by vault name and path (None when unreadable)."""

AMBIGUOUS_ANSWER = "Your question has no words to search for; please say what you are looking for."
NO_CONTEXT_ANSWER = "I couldn't find anything relevant to that in your notes."
NO_NOTES_ANSWER = "I don't have any notes to search yet: add a vault and index it first."


def read_once(note_lines: NoteLines | None) -> NoteLines | None:
    """``note_lines`` reading each note once, for one ask: its properties are read for the
    context, and the same lines again to place each quote."""
    return functools.cache(note_lines) if note_lines is not None else None


def context_pieces(
    kept: Sequence[Candidate], note_lines: NoteLines | None = None
) -> list[ContextPiece]:
    """The kept candidates as context pieces, indexed by their position in ``kept``; with
    ``note_lines``, the first kept chunk of a note in the file's order is given the note's
    properties above its text (:mod:`notecite.generate.properties`)."""
    first: dict[tuple[str, str], int] = {}
    for i, c in enumerate(kept):
        key = (c.chunk.vault, c.chunk.rel_path)
        if key not in first or c.chunk.line_start < kept[first[key]].chunk.line_start:
            first[key] = i
    pieces = []
    for i, c in enumerate(kept):
        chunk = c.chunk
        shown: list[tuple[int, str]] = []
        if note_lines is not None and first[(chunk.vault, chunk.rel_path)] == i:
            shown = _properties(chunk, note_lines)
        above = [text for _, text in shown]
        if shown and chunk.chunk_index > 0:  # the note's text in between is not shown
            above.append(GAP)
        pieces.append(
            ContextPiece(
                index=i,
                vault=chunk.vault,
                rel_path=chunk.rel_path,
                heading_path=chunk.heading_path,
                text="\n".join([*above, chunk.text]),
                line_start=shown[0][0] if shown else chunk.line_start,
                line_end=chunk.line_end,
                title=chunk.title,
                properties=len(above),
            )
        )
    return pieces


def _properties(chunk: StoredChunk, note_lines: NoteLines) -> list[tuple[int, str]]:
    """The note's properties shown above ``chunk``: (line number in the file, line)."""
    lines = note_lines(chunk.vault, chunk.rel_path)
    end = frontmatter_end(lines) if lines else 0
    if not lines or not end or chunk.line_start <= end:
        return []
    inside = lines[1 : end - 1]
    return [(position + 2, inside[position]) for position in shown_properties(inside)]


EVIDENCE_SCALE = {"brief": 0.6, "normal": 1.0, "detailed": 2.0}
"""The evidence budget per detail level, as a share of the ``normal`` one."""


PART_SHARE = 0.5
"""Each part of a question after the first adds this share of the evidence budget (up to
twice it): two notes' lines have to fit where one's did."""


def context_budget(
    settings: AskSettings, llm: LLM, detail: str = "normal", parts: int = 1
) -> ContextBudget:
    """The context budget for ``llm`` (the local model reads slowly: a smaller one), the
    answer's detail level and the number of things the question asks
    (:func:`~notecite.retrieve.parts.question_parts`)."""
    local = llm.name == "local"
    evidence = None
    if settings.context == "evidence":
        base = settings.evidence_tokens_local if local else settings.evidence_tokens
        more = min(2.0, 1.0 + PART_SHARE * max(0, parts - 1))
        evidence = round(base * EVIDENCE_SCALE.get(detail, 1.0) * more)
    return ContextBudget(
        max_tokens=settings.context_tokens_local if local else settings.context_tokens,
        evidence_tokens=evidence,
    )


SUMMARY_SHARE = 0.75
"""The share of the evidence budget a note's outline may take, for a request to summarize
it (its properties are shown above it)."""

OUTLINED = frozenset({*MARKDOWN_EXT, *ORG_EXT, ".txt"})
"""The notes read whole as their outline: those whose file is its text (an HTML page's or a
PDF's file is not; their chunks stay the context)."""


def summary_context(
    question: str,
    kept: Sequence[Candidate],
    note_lines: NoteLines | None,
    budget: ContextBudget,
    count_tokens: TokenCounter,
    whole_note: tuple[str, str] | None = None,
) -> tuple[list[Candidate], ContextBudget]:
    """For a request to summarize (:func:`~notecite.generate.outline.asks_for_summary`), or
    when the best-ranked note is the ``whole_note`` the question asks about as a whole
    (:mod:`notecite.retrieve.whole_note`), ``kept`` with that note read whole first, as its
    outline when the context is evidence-sized (the note's other chunks are left out: the
    outline holds them), and the budget that keeps that outline whole; else ``kept`` and
    ``budget`` as they are."""
    if not kept or note_lines is None:
        return list(kept), budget
    best = kept[0].chunk
    if PurePosixPath(best.rel_path).suffix.lower() not in OUTLINED:
        return list(kept), budget
    if whole_note != (best.vault, best.rel_path) and not asks_for_summary(question):
        return list(kept), budget
    lines = note_lines(best.vault, best.rel_path)
    if not lines:
        return list(kept), budget
    end = frontmatter_end(lines)
    body = [line.rstrip() for line in lines[end:]]
    if budget.evidence_tokens is not None:
        body = outline(body, round(budget.evidence_tokens * SUMMARY_SHARE), count_tokens)
    if not any(line.strip() for line in body):
        return list(kept), budget
    whole = replace(
        kept[0],
        chunk=replace(
            best,
            text="\n".join(body).strip("\n"),
            line_start=end + 1,
            line_end=len(lines),
            heading_path="",
            chunk_index=0,
        ),
    )
    note = (best.vault, best.rel_path)
    rest = [c for c in kept[1:] if (c.chunk.vault, c.chunk.rel_path) != note]
    return [whole, *rest], replace(budget, whole_first=True)


def place_quotes(answer: CitedAnswer, kept: Sequence[Candidate], note_lines: NoteLines) -> None:
    """Set each supporting line's number to its line in the note file (a chunk's text drops
    blank lines, so the number counted in the chunk is only an estimate; a note's
    properties are shown above a chunk)."""
    for cid, support in list(answer.support.items()):
        for index in answer.members.get(cid, []):
            chunk = kept[index].chunk
            lines = note_lines(chunk.vault, chunk.rel_path)
            if not lines:
                continue
            found = locate(lines, support.text, chunk.line_start, chunk.line_end)
            if found is None:  # a property, shown above the chunk
                found = locate(lines, support.text, 1, frontmatter_end(lines))
            if found is not None:
                answer.support[cid] = replace(support, line=found)
                break


def grounder_for(
    settings: AskSettings, embedder: Embedder, clock: Callable[[], datetime] | None = None
) -> Grounder | None:
    """The claim checker of ``ask.grounding`` (None when it is off); ``clock`` tells today
    (the system clock when None)."""
    if settings.grounding == "off":
        return None
    if settings.grounding == "vectors":
        return Grounder(embed=embedder.embed_documents, now=clock)
    return Grounder(now=clock)


def debug_chunks(retrieved: Retrieved) -> list[RetrievedChunk]:
    """Every candidate with every score, for the debug view."""
    kept_ids = {c.rowid for c in retrieved.kept}
    return [
        RetrievedChunk(
            chunk_id=c.chunk.chunk_id,
            vault=c.chunk.vault,
            rel_path=c.chunk.rel_path,
            heading_path=c.chunk.heading_path,
            text=c.chunk.text,
            score_vector=round(c.score_vector, 6),
            score_dense=round(c.score_dense, 6),
            score_lexical=round(c.lexical, 6),
            score_final=round(c.final, 6),
            score_bm25=round(c.score_bm25, 6),
            score_gate=round(c.gate, 6),
            score_rerank=round(c.score_rerank, 6),
            rank=rank,
            kept=c.rowid in kept_ids,
        )
        for rank, c in enumerate(retrieved.candidates, start=1)
    ]


class AskPipeline:
    """Answers one AskRequest: the retrieval stage, then the one answer path."""

    def __init__(
        self,
        retrieve: Retrieve,
        llm: LLM,
        settings: AskSettings,
        generation: GenerationSettings,
        count_tokens: TokenCounter,
        grounder: Grounder | None = None,
        note_lines: NoteLines | None = None,
    ) -> None:
        self._grounder = grounder
        self._note_lines = note_lines
        self._retrieve = retrieve
        self._llm = llm
        self._settings = settings
        self._generation = generation
        self._count_tokens = count_tokens

    def ask(self, request: AskRequest, on_token: TokenCallback | None = None) -> AskResponse:
        """Answer ``request``; ``on_token`` receives the model's text as it is written."""
        started = time.perf_counter()
        debug = DebugInfo(llm=self._llm.name)

        def finish(response: AskResponse) -> AskResponse:
            debug.timings_ms.total = (time.perf_counter() - started) * 1000
            response.debug = debug if request.debug else None
            return response

        # "What notes do I have?" has no word to search, but asks for the notes themselves
        if not query_terms(request.question) and not asks_for_every_note(request.question):
            return finish(
                AskResponse(
                    answer=AMBIGUOUS_ANSWER, abstained=True, abstain_reason="ambiguous_question"
                )
            )
        retrieved = self._retrieve(request, debug)
        debug.retrieved_chunks = debug_chunks(retrieved)
        if retrieved.empty_index:
            return finish(
                AskResponse(answer=NO_NOTES_ANSWER, abstained=True, abstain_reason="no_notes")
            )
        if retrieved.filtered_out:
            return finish(
                AskResponse(
                    answer=no_matching_notes_answer(debug.filters),
                    abstained=True,
                    abstain_reason="no_matching_notes",
                )
            )
        listing = retrieved.listing
        if listing is not None and (retrieved.kept or listing.answers_when_empty):
            # "What notes are tagged #baking?", "What are my open todos?": listed and cited
            answer = listed_answer(context_pieces(retrieved.kept), listing)
            note_lines = read_once(self._note_lines)
            if note_lines is not None:  # an open task is cited at its line of the file
                place_quotes(answer, retrieved.kept, note_lines)
            return finish(self._response(answer, retrieved.kept, debug, None))
        if not retrieved.kept:
            return finish(
                AskResponse(
                    answer=nothing_found_answer(NO_CONTEXT_ANSWER, retrieved.missing.absent_names),
                    abstained=True,
                    abstain_reason="no_relevant_context",
                )
            )
        kept = retrieved.kept
        if retrieved.missing.settled:
            # A name, command or version the notes never mention: say so, show the closest.
            return finish(
                AskResponse(
                    answer=not_mentioned_answer(retrieved.missing.absent_names),
                    references=closest(kept),
                    abstained=True,
                    abstain_reason="not_mentioned",
                )
            )
        absent = retrieved.missing.unheld
        # the question with its misspelt words read as the notes' words ("tempalte")
        # and with the title of a note it names by an alias ("my manager (Ruben Castellanos)")
        asked = with_named(with_readings(request.question, retrieved.readings), retrieved.named)
        threshold = reading_threshold(self._settings, retrieved.read_first)
        note_lines = read_once(self._note_lines)
        # "Summarize the PG16 project": the best-ranked note is read whole, as its outline
        kept, budget = summary_context(
            request.question,
            kept,
            note_lines,
            context_budget(self._settings, self._llm, request.detail, len(retrieved.parts)),
            self._count_tokens,
            retrieved.whole_note,
        )
        answer = answer_with_citations(
            self._llm,
            asked,
            context_pieces(kept, note_lines),
            _prompt_builder(request, absent, asked),
            self._count_tokens,
            AnswerSettings(
                budget=budget,
                citation_style=request.citation_style,
                temperature=self._generation.temperature,
                max_tokens=self._generation.max_tokens,
                grounder=self._grounder,
                quote_unsupported=self._settings.quote_unsupported,
                rewrite_from_quotes=self._settings.rewrite_from_quotes,
                reading_threshold=threshold,
                read_first=retrieved.read_first,
                owners=retrieved.owners,
                implied=implied_terms(asked),
            ),
            on_token,
            _prompt_builder(request, (), asked) if absent else None,
        )
        if note_lines is not None:
            place_quotes(answer, kept, note_lines)
        record_generation(debug, answer, started)
        debug.invalid_citations = list(answer.invalid)
        return finish(self._response(answer, kept, debug, threshold))

    def _response(
        self,
        answer: CitedAnswer,
        kept: Sequence[Candidate],
        debug: DebugInfo,
        threshold: float | None,
    ) -> AskResponse:
        """The response for ``answer`` (``threshold``: the reading check's, named in the
        debug view's note when the model read the context and did not find the answer)."""
        in_context = references(answer, kept, answer.members)
        debug.claims = claim_checks(answer)
        if answer.looped:
            debug.notes.append("the model wrote the same lines again and again: they are read once")
        if answer.outcome == "failed":
            debug.uncited_references = True
            return AskResponse(
                answer=answer.text,
                references=in_context,
                error=ErrorInfo(type=failure_type(answer.error), message=str(answer.error)),
            )
        cited = references(answer, kept, {cid: answer.members[cid] for cid in answer.cited})
        cited_ids = {kept[i].chunk.chunk_id for cid in answer.cited for i in answer.members[cid]}
        for item in debug.retrieved_chunks:
            item.cited = item.chunk_id in cited_ids
        if answer.outcome == "answered":
            if answer.rewritten:
                debug.notes.append(
                    "no claim of the written answer was supported; written again from the "
                    "lines of the notes closest to the question alone, and that held up"
                )
            return AskResponse(answer=answer.text, references=cited)
        if answer.outcome == "quoted":
            # no written answer held up: an abstention (insufficient_information, as for any
            # answer left with no supported claim) that shows the closest lines, cited
            again = ", and written again from them alone" if answer.rewritten else ""
            debug.notes.append(
                "no claim of the written answer was supported; abstained, with the lines of "
                f"the notes closest to the question quoted{again}"
            )
            return AskResponse(
                answer=answer.text,
                references=cited,
                abstained=True,
                abstain_reason="insufficient_information",
            )
        debug.uncited_references = True
        if answer.outcome == "unanswered":
            debug.notes.append(
                f"the model read the context and did not find the answer (P(yes) "
                f"{answer.reading or 0.0:.2f} under {threshold or 0.0:.2f})"
            )
        if answer.outcome == "fallback":
            debug.notes.append("answer carried no supported citation; replaced by the fallback")
        return AskResponse(
            answer=answer.text,
            references=in_context,
            abstained=True,
            abstain_reason="insufficient_information",
        )


def _prompt_builder(request: AskRequest, absent: Sequence[str], question: str) -> PromptBuilder:
    """The messages of ``request``'s answer to ``question`` (its question as read) for a
    given context; ``absent`` as in ``answer_messages``."""

    def prompt(sources: Sequence[ContextSource]) -> tuple[ChatMessage, ...]:
        return answer_messages(
            question, sources, request.citation_style, request.detail, absent=absent
        )

    return prompt


def reading_threshold(settings: AskSettings, doubted: bool = False) -> float | None:
    """The reading check's threshold (None: the check is off); ``doubted``: for a question
    the answerability gate doubts, which the model reads before it writes."""
    if not settings.reading_check:
        return None
    return settings.doubted_reading_threshold if doubted else settings.reading_threshold


def record_generation(debug: DebugInfo, answer: CitedAnswer, asked_at: float | None = None) -> None:
    """The answer's model calls in the debug view: the reading check's P(yes) and time, the
    answer's times, tokens and rates (and, given ``asked_at``, the ``perf_counter`` of the
    question, the wait for the first text)."""
    debug.reading = round(answer.reading, 4) if answer.reading is not None else None
    if answer.reading is not None:
        debug.timings_ms.reading_check = answer.reading_ms
    debug.timings_ms.generate = answer.generate_ms
    debug.timings_ms.first_token = answer.first_token_ms
    if asked_at is not None and answer.first_token_at is not None:
        debug.timings_ms.first_text = (answer.first_token_at - asked_at) * 1000
    debug.context_blocks = answer.blocks
    debug.raw_answer = answer.raw
    debug.raw_rewritten = answer.rewritten
    usage = answer.usage
    if usage.prompt_ms:
        debug.timings_ms.prompt_eval = usage.prompt_ms
    read = usage.prompt_tokens - usage.cached_tokens
    debug.generation = GenerationDebug(
        prompt_tokens=usage.prompt_tokens,
        cached_tokens=usage.cached_tokens,
        output_tokens=usage.output_tokens,
        prompt_tokens_per_s=round(read / usage.prompt_ms * 1000, 2) if usage.prompt_ms else None,
        output_tokens_per_s=(
            round(usage.output_tokens / usage.output_ms * 1000, 2) if usage.output_ms else None
        ),
        context_tokens=answer.context_tokens,
    )


def closest(kept: Sequence[Candidate]) -> list[Reference]:
    """The kept chunks as uncited references (an abstention's closest notes), one per note."""
    seen: dict[tuple[str, str], Reference] = {}
    for c in kept:
        seen.setdefault((c.chunk.vault, c.chunk.rel_path), _reference(c.chunk))
    return list(seen.values())


def _reference(
    chunk: StoredChunk,
    cid: str | None = None,
    support: SupportLine | None = None,
    properties: bool = False,
) -> Reference:
    """A chunk as a reference; ``support`` is its supporting line when the chunk holds it
    (with ``properties``, the chunk was shown under its note's properties, and a property's
    line above it counts: the reference's span then starts there)."""
    holds = support is not None and (
        chunk.line_start <= support.line <= chunk.line_end
        or (properties and support.line < chunk.line_start)
    )
    start = min(chunk.line_start, support.line) if holds and support else chunk.line_start
    return Reference(
        vault=chunk.vault,
        rel_path=chunk.rel_path,
        heading_path=chunk.heading_path,
        chunk_index=chunk.chunk_index,
        cid=cid,
        line_start=start,
        line_end=chunk.line_end,
        quote=support.text if holds and support else None,
        quote_line=support.line if holds and support else None,
    )


def references(
    answer: CitedAnswer, kept: Sequence[Candidate], members: dict[str, list[int]]
) -> list[Reference]:
    """The chunks of ``members`` as references, in the order of their ids, each with its id,
    line span and (for the chunk holding it) the line that supports the answer."""
    found: list[Reference] = []
    for cid in sorted(members, key=lambda c: int(c[1:])):
        support = answer.support.get(cid)
        # a block's first chunk in the note's order is the one shown under its properties
        top = min(members[cid], key=lambda i: kept[i].chunk.line_start, default=None)
        found.extend(
            _reference(kept[index].chunk, cid, support, index == top) for index in members[cid]
        )
    return found


def claim_checks(answer: CitedAnswer) -> list[ClaimCheck]:
    """Each claim of the model's answer with its verdict, for the debug view."""
    if answer.grounding is None:
        return []
    return [
        ClaimCheck(
            text=answer.label(item.claim.text),
            status=item.status,
            score=round(item.score, 4),
            cid=answer.relabel.get(item.support.cid) if item.support else None,
            quote=item.support.text if item.support else None,
            line=item.support.line if item.support else None,
            repaired=item.repaired,
        )
        for item in answer.grounding.claims
    ]
