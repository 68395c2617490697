"""The one answer path of ask and chat: context -> generate (or stream) -> citations -> fallback.

:func:`answer_with_citations` takes the retrieved chunks in relevance order as
:class:`ContextPiece` values, assembles the context (overlap merge, dedup, token budget,
chunk and character caps), asks the model with the caller's prompt, validates the
citations against the blocks the model saw, and applies the fallbacks: a grounded answer
with no valid citation becomes :data:`FALLBACK_ANSWER` (unless it says itself that the notes
do not hold the answer), and a failing model returns :data:`LLM_FAILED_ANSWER` with every
block as a source. Callers map blocks back to their chunks through ``members``.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, NamedTuple

from notecite.errors import LLMError
from notecite.generate.base import (
    LLM,
    ChatMessage,
    ContextSource,
    GenerationRequest,
    GenerationUsage,
    Owners,
)
from notecite.generate.citations import (
    FALLBACK_ANSWER,
    ValidatedAnswer,
    acknowledges_gap,
    as_said_of_the_notes,
    validate_citations,
)
from notecite.generate.context import (
    ContextBlock,
    ContextBudget,
    ContextPiece,
    TokenCounter,
    assemble_context,
)
from notecite.generate.evidence import select_evidence
from notecite.generate.extractive import quote_sentences
from notecite.generate.grounding import Grounder, Grounding, SupportLine
from notecite.generate.loops import loop_start, without_loop
from notecite.generate.prompts import (
    TOP_OF_NOTE,
    echoes_hint,
    without_hint_echo,
)
from notecite.generate.reading import NOT_ANSWERED, asks_yes_or_no, reading_score

logger = logging.getLogger(__name__)

TokenCallback = Callable[[str], None]
PromptBuilder = Callable[[Sequence[ContextSource]], tuple[ChatMessage, ...]]
Outcome = Literal["answered", "quoted", "gap", "fallback", "failed", "unanswered"]

_MARKER = re.compile(r"\[(N\d+)\]")

LLM_FAILED_ANSWER = "The language model failed, so here are the most relevant notes instead."
QUOTED_LABEL = (
    "No answer written from your notes held up against them. The lines of your notes closest "
    "to the question:"
)
REWRITTEN_LABEL = "Written from these lines of your notes:"
# The most tokens an answer written from the quoted lines may take: it has three lines to
# write from (the bundled model's longest on the dev sets was ~190 tokens), and a long one
# is one it made up, which grounding removes after the wait.
REWRITE_TOKENS = 256
# one quoted sentence and its citation: "the line [N2]."
_QUOTED_LINE = re.compile(r"(.+?)\s*\[(N\d+)\]([.!?]?)(?:\s+|$)", re.DOTALL)


@dataclass(frozen=True)
class AnswerSettings:
    """How to build the context and sample the model for one answer."""

    budget: ContextBudget = field(default_factory=ContextBudget)
    citation_style: str = "numbered"
    temperature: float = 0.0
    max_tokens: int = 512
    grounded: bool = True  # the answer must cite the notes (False: plain chat)
    grounder: Grounder | None = None  # checks each claim against a line of the notes
    focus: str | None = None  # what evidence lines are chosen by (default: the question)
    implied: tuple[str, ...] = ()
    """Words the question means without saying them (:mod:`notecite.retrieve.implied`:
    "default", "attendees"), weighed in the choice of evidence lines after its own."""
    quote_unsupported: bool = True
    """When no claim of the written answer is supported, abstain with the sentences of the
    sources that share the most words with the question, quoted and cited
    (:func:`~notecite.generate.extractive.quote_sentences`), instead of the fallback's
    bare list of notes."""
    rewrite_from_quotes: bool = True
    """Before abstaining with those sentences, ask the model once more with them alone as
    its context: an answer that then holds up stands, the sentences after it under
    :data:`REWRITTEN_LABEL`."""
    reading_threshold: float | None = None
    """Once the answer is written, ask the model whether the context holds what the question
    asks for (a model that can weigh it: :class:`~notecite.generate.base.Judge`), and abstain
    when its P(yes) is under this; None: no check."""
    owners: Owners | None = None
    """Notes the question names as owners ("my manager's birthday"): a claim about one is
    supported only by its note (:meth:`~notecite.generate.grounding.Grounder.ground`)."""
    read_first: bool = False
    """Ask the reading check's question before the answer is written, and write none when
    the model says no (or cannot say): the answerability gate doubted the context
    (:attr:`~notecite.retrieve.stage.Retrieved.read_first`), so a model that reads it
    decides."""


@dataclass(frozen=True)
class CitedAnswer:
    """The checked answer and how it relates to the context.

    Attributes:
        text: the answer to show (citations that matched no source removed), or a fallback.
        outcome: ``answered`` (cites a source, or is not grounded), ``quoted`` (no claim of
            the written answer was supported: an abstention that quotes the sources'
            sentences closest to the question under :data:`QUOTED_LABEL`), ``gap`` (cites nothing
            but says the notes do not hold the answer), ``fallback`` (cited nothing: replaced
            by :data:`FALLBACK_ANSWER`), ``failed`` (the model failed), ``unanswered`` (the
            reading check found that the context does not answer the question: the answer
            written is replaced by :data:`~notecite.generate.reading.NOT_ANSWERED`).
        sources: the context blocks the model saw, under the ids it cites them by.
        members: for each source id, the indices of the pieces merged into that block.
        cited: the source ids the answer cites, in first-cited order (all sources when the
            model failed, so the caller can still show them).
        invalid: citations that matched no source and were removed.
        error: the model's failure, when ``outcome`` is ``failed``.
        raw: the model's text as written.
        rewritten: the model's text written again from the quoted lines alone, when no
            claim of ``raw`` held up (:func:`_rewritten`); "" when it was not asked.
        generate_ms: wall time of the generation.
        grounding: each claim with its verdict and supporting line (with a grounder).
        support: the supporting line of each cited source id.
        relabel: the model's source ids -> the ids shown (cited ones first, in order).
        usage: the prompt and output token counts and times the provider reported.
        first_token_ms: from the request to the model's first text (streamed answers only).
        context_tokens: the size of the sources' text, in the embedder's tokens.
        reading: the model's P(yes: the context answers the question), when it was asked.
        reading_ms: the wall time of that question.
    """

    text: str
    outcome: Outcome
    sources: tuple[ContextSource, ...] = ()
    members: dict[str, list[int]] = field(default_factory=dict)
    cited: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()
    error: LLMError | None = None
    raw: str = ""
    rewritten: str = ""
    generate_ms: float = 0.0
    grounding: Grounding | None = None
    support: dict[str, SupportLine] = field(default_factory=dict)
    relabel: dict[str, str] = field(default_factory=dict)
    usage: GenerationUsage = field(default_factory=GenerationUsage)
    first_token_ms: float | None = None
    first_token_at: float | None = None
    """``time.perf_counter()`` when the first text came (streamed answers only)."""
    context_tokens: int = 0
    reading: float | None = None
    reading_ms: float = 0.0

    def label(self, text: str) -> str:
        """``text`` with the model's ``[Nk]`` markers renamed to the labels readers see."""
        return _MARKER.sub(lambda m: f"[{self.relabel.get(m.group(1), m.group(1))}]", text)

    @property
    def blocks(self) -> int:
        """How many context blocks the model saw."""
        return len(self.sources)

    @property
    def looped(self) -> bool:
        """Did the model write one block of lines again and again (read once)?"""
        return loop_start(self.raw) is not None


def context_sources(
    pieces: Sequence[ContextPiece],
    budget: ContextBudget,
    count_tokens: TokenCounter,
    question: str = "",
) -> tuple[tuple[ContextSource, ...], dict[str, list[int]]]:
    """The assembled context as sources ``N1``, ``N2`` ... and each source's piece indices
    (with ``budget.evidence_tokens``, only the lines that carry the answer to ``question``)."""
    blocks: list[ContextBlock] = assemble_context(pieces, budget, count_tokens) if pieces else []
    if budget.evidence_tokens is not None and blocks:
        blocks = select_evidence(
            blocks, question, budget.evidence_tokens, count_tokens, budget.whole_first
        )
    sources = tuple(
        ContextSource(f"N{n}", b.vault, b.rel_path, b.heading_path, b.text, b.line_start, b.title)
        for n, b in enumerate(blocks, start=1)
    )
    members = {s.cid: sorted(b.members) for s, b in zip(sources, blocks, strict=True)}
    return sources, members


def answer_with_citations(
    llm: LLM,
    question: str,
    pieces: Sequence[ContextPiece],
    prompt: PromptBuilder,
    count_tokens: TokenCounter,
    settings: AnswerSettings,
    on_token: TokenCallback | None = None,
    prompt_without_hint: PromptBuilder | None = None,
) -> CitedAnswer:
    """Answer ``question`` from ``pieces`` (relevance order) with citations checked.

    ``prompt`` builds the messages from the sources (the caller's system prompt, history
    and detail level); ``on_token`` receives the model's text as it is written, before the
    citations are checked. When ``prompt`` tells the model which terms of the question the
    notes lack, ``prompt_without_hint`` builds the same messages without that hint: a small
    model sometimes answers with the hint alone, and is then asked once more without it;
    what it answers from the notes comes after the plain 'Your notes don't mention "X".'
    With ``settings.reading_threshold``, a model that weighs yes/no questions is then asked
    whether the notes hold what the question asks for (:func:`_read_check`); with
    ``settings.read_first``, before it writes, and it writes nothing on a no.
    """
    chosen_by = " ".join([settings.focus or question, *settings.implied])
    sources, members = context_sources(pieces, settings.budget, count_tokens, chosen_by)
    tokens = sum(count_tokens([s.text for s in sources])) if sources else 0
    context = _Context(sources, members, tokens)
    if settings.read_first and settings.reading_threshold is not None and settings.grounded:
        # the gate doubted the context: the model reads it first, and writes only on a firm
        # yes (the check is not asked again after)
        reading, reading_ms = _reading(llm, (prompt_without_hint or prompt)(sources))
        if reading is None or reading < settings.reading_threshold:
            logger.info("the model read the doubted context and did not find the answer")
            unread = CitedAnswer("", "unanswered", sources, members, context_tokens=tokens)
            return _unanswered(unread, reading, reading_ms)
        answer = _answer(llm, question, prompt, context, settings, on_token, prompt_without_hint)
        return replace(answer, reading=reading, reading_ms=reading_ms)
    answer = _answer(llm, question, prompt, context, settings, on_token, prompt_without_hint)
    return _read_check(
        llm, answer, prompt_without_hint or prompt, settings, settings.focus or question
    )


def _answer(
    llm: LLM,
    question: str,
    prompt: PromptBuilder,
    context: _Context,
    settings: AnswerSettings,
    on_token: TokenCallback | None,
    prompt_without_hint: PromptBuilder | None,
) -> CitedAnswer:
    """The checked answer, asked once more without the absent-terms hint when the model
    answered with the hint alone."""
    sources = context.sources
    answer = _checked_answer(llm, question, prompt(sources), context, settings, on_token, prompt)
    if prompt_without_hint is None or answer.outcome != "gap" or not echoes_hint(answer.raw):
        return answer
    again = _checked_answer(
        llm, question, prompt_without_hint(sources), context, settings, on_token
    )
    if again.outcome != "answered":
        return answer
    logger.info("the model answered with the absent-terms hint; asked again without it")
    return replace(
        again,
        text=f"{answer.text} {again.text}",
        raw=f"{answer.raw}\n\n{again.raw}",
        generate_ms=answer.generate_ms + again.generate_ms,
        first_token_ms=answer.first_token_ms,
        first_token_at=answer.first_token_at,
    )


def _read_check(
    llm: LLM,
    answer: CitedAnswer,
    prompt: PromptBuilder,
    settings: AnswerSettings,
    asked: str,
) -> CitedAnswer:
    """``answer``, or :data:`NOT_ANSWERED` when the model, asked on the answer's prompt (by
    ``prompt`` from the answer's sources, without the absent-terms hint) whether the notes
    hold what the question asks for, says no (its P(yes) under
    ``settings.reading_threshold``).

    The check runs after the answer was written (and streamed), so it costs the first text
    nothing; the answer's prompt is in the model's cache, so it reads only its own line.
    It is skipped for answers that abstained already (quoted lines too: a "no" would only
    take away the lines they show) and for questions answered yes or no.
    """
    if (
        settings.reading_threshold is None
        or answer.outcome != "answered"
        or not settings.grounded
        or not answer.sources
        or asks_yes_or_no(asked)
    ):
        return answer
    reading, reading_ms = _reading(llm, prompt(answer.sources))
    if reading is None:
        return answer
    if reading >= settings.reading_threshold:
        return replace(answer, reading=reading, reading_ms=reading_ms)
    return _unanswered(answer, reading, reading_ms)


def _reading(llm: LLM, messages: tuple[ChatMessage, ...]) -> tuple[float | None, float]:
    """The model's P(yes: the context answers the question) for the answer prompt
    ``messages`` (None: it cannot weigh it), and the wall time of asking."""
    started = time.perf_counter()
    reading = reading_score(llm, messages)
    return reading, (time.perf_counter() - started) * 1000


def _unanswered(answer: CitedAnswer, reading: float | None, reading_ms: float) -> CitedAnswer:
    """``answer`` replaced by :data:`NOT_ANSWERED`: the model read the context and did not
    find what the question asks for."""
    return replace(
        answer,
        text=NOT_ANSWERED,
        outcome="unanswered",
        cited=(),
        support={},
        reading=reading,
        reading_ms=reading_ms,
    )


@dataclass(frozen=True)
class _Context:
    """The sources an answer is written from, their pieces and their size in tokens."""

    sources: tuple[ContextSource, ...]
    members: dict[str, list[int]]
    tokens: int


def _checked_answer(
    llm: LLM,
    question: str,
    messages: tuple[ChatMessage, ...],
    context: _Context,
    settings: AnswerSettings,
    on_token: TokenCallback | None,
    rewrite: PromptBuilder | None = None,
) -> CitedAnswer:
    """One generation of :func:`answer_with_citations`, its citations checked (and, when no
    claim held up, written once more from the quoted lines by ``rewrite``'s prompt:
    :func:`_rewritten`)."""
    sources, members, context_tokens = context.sources, context.members, context.tokens
    request = GenerationRequest(
        messages=messages,
        question=question,
        sources=sources,
        citation_style=settings.citation_style,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        usage=GenerationUsage(),
    )
    usage = request.usage or GenerationUsage()
    started = time.perf_counter()
    first: list[float] = []
    try:
        raw = _generate(llm, request, on_token, first)
    except LLMError as exc:
        logger.warning("the answer failed: %s", exc)
        return CitedAnswer(
            text=LLM_FAILED_ANSWER,
            outcome="failed",
            sources=sources,
            members=members,
            cited=tuple(s.cid for s in sources),
            error=exc,
            generate_ms=(time.perf_counter() - started) * 1000,
            usage=usage,
            context_tokens=context_tokens,
        )
    elapsed = (time.perf_counter() - started) * 1000
    # a model caught in a loop wrote one block again and again: it is read once
    validated, text, cited, grounding = _checked_claims(
        without_loop(raw), sources, question, settings
    )
    if validated.invalid:
        logger.warning("removed %d citation(s) matching no source", len(validated.invalid))
    outcome: Outcome = "answered"
    quoted: _Quote | None = None
    if settings.grounded and not cited:
        if acknowledges_gap(validated.text):
            outcome, text = "gap", as_said_of_the_notes(without_hint_echo(validated.text))
        elif settings.quote_unsupported and (quoted := _quoted(question, sources, settings)):
            outcome, (text, cited, grounding) = "quoted", quoted
        else:
            outcome, text = "fallback", FALLBACK_ANSWER
    again = (
        _rewritten(llm, question, rewrite, context, settings, quoted)
        if quoted is not None and rewrite is not None and settings.rewrite_from_quotes
        else None
    )
    if again is not None:
        elapsed += again.ms
        if again.held is not None:
            outcome, (text, cited, grounding) = "answered", again.held
    relabel = first_cited_order(cited, [s.cid for s in sources])
    text = _MARKER.sub(lambda m: f"[{relabel.get(m.group(1), m.group(1))}]", text)
    if settings.citation_style == "file_section":
        by_cid = {relabel[s.cid]: s for s in sources}
        text = _MARKER.sub(lambda m: _file_section(by_cid.get(m.group(1))) or m.group(0), text)
    return CitedAnswer(
        text=text,
        relabel=relabel,
        outcome=outcome,
        sources=tuple(
            sorted(
                (replace(s, cid=relabel[s.cid]) for s in sources),
                key=lambda s: int(s.cid[1:]),
            )
        ),
        members={relabel[cid]: indices for cid, indices in members.items()},
        cited=tuple(relabel[cid] for cid in cited),
        invalid=validated.invalid,
        raw=raw,
        rewritten=again.raw if again is not None else "",
        generate_ms=elapsed,
        usage=usage,
        first_token_ms=(first[0] - started) * 1000 if first else None,
        first_token_at=first[0] if first else None,
        context_tokens=context_tokens,
        grounding=grounding,
        support=(
            {
                relabel[cid]: replace(line, cid=relabel[cid])
                for cid, line in grounding.support.items()
            }
            if grounding
            else {}
        ),
    )


def _checked_claims(
    written: str, sources: Sequence[ContextSource], question: str, settings: AnswerSettings
) -> tuple[ValidatedAnswer, str, tuple[str, ...], Grounding | None]:
    """``written`` with its citations validated against ``sources`` and, for a grounded
    answer, each claim grounded: the validation, the text and source ids it leaves, and the
    grounding (None when not grounded)."""
    # Both citation styles are checked as [Nk] markers; file_section ones are written back.
    validated = validate_citations(written, sources, "numbered")
    if not (settings.grounded and settings.grounder is not None and sources):
        return validated, validated.text, validated.cited, None
    # Also when the model cited nothing: small models often drop the markers, and a claim
    # that a line of the sources supports gets that source's citation.
    grounding = settings.grounder.ground(validated.text, sources, question, settings.owners)
    return validated, grounding.text, grounding.cited, grounding


_Quote = tuple[str, tuple[str, ...], Grounding | None]
"""An answer's text, the source ids it cites and its grounding."""


class _Rewrite(NamedTuple):
    """The model's answer written again from the quoted lines (:func:`_rewritten`)."""

    raw: str
    ms: float  # the generation's wall time
    held: _Quote | None  # what it shows when it holds up, else None


def _quoted(
    question: str, sources: Sequence[ContextSource], settings: AnswerSettings
) -> _Quote | None:
    """The sentences of ``sources`` closest to the question (``settings.focus`` when set),
    quoted under :data:`QUOTED_LABEL` with their citations, and their grounding; None when
    no sentence shares enough of the question's words (or grounding keeps none)."""
    body = quote_sentences(settings.focus or question, sources)
    if not body:
        return None
    _, text, cited, grounding = _checked_claims(body, sources, question, settings)
    if not cited:
        return None
    return f"{QUOTED_LABEL}\n{text}", cited, grounding


def _rewritten(
    llm: LLM,
    question: str,
    prompt: PromptBuilder,
    context: _Context,
    settings: AnswerSettings,
    quoted: _Quote,
) -> _Rewrite | None:
    """The model's answer written from the ``quoted`` lines alone (each source cut to its
    quoted lines; the prompt otherwise as before), with what it shows when it holds up: the
    grounded answer, then the lines under :data:`REWRITTEN_LABEL`, the source ids cited and
    the grounding (``held`` is None when nothing it writes holds up against the sources, or
    it says the lines do not answer). None when the model fails."""
    text, quoted_cited, quoted_grounding = quoted
    body = text.removeprefix(QUOTED_LABEL).strip()
    lines: dict[str, list[str]] = {}
    for sentence, cid, end in _QUOTED_LINE.findall(body):
        lines.setdefault(cid, []).append(f"{sentence.strip()}{end or '.'}")
    narrow = tuple(
        replace(s, text="\n".join(lines[s.cid])) for s in context.sources if s.cid in lines
    )
    if not narrow:
        return None
    request = GenerationRequest(
        messages=prompt(narrow),
        question=question,
        sources=narrow,
        citation_style=settings.citation_style,
        temperature=settings.temperature,
        max_tokens=min(settings.max_tokens, REWRITE_TOKENS),
    )
    started = time.perf_counter()
    try:
        raw = llm.generate(request)
    except LLMError as exc:
        logger.warning("the answer from the quoted lines failed: %s", exc)
        return None
    elapsed = (time.perf_counter() - started) * 1000
    _, written, cited, grounding = _checked_claims(
        without_loop(raw), context.sources, question, settings
    )
    if not cited or acknowledges_gap(written):
        return _Rewrite(raw, elapsed, None)
    logger.info("no claim held up; written again from the lines closest to the question")
    shown = f"{written}\n\n{REWRITTEN_LABEL}\n{body}"
    every = (*cited, *(cid for cid in quoted_cited if cid not in cited))
    if grounding is not None and quoted_grounding is not None:
        grounding = replace(
            grounding,
            text=shown,
            cited=every,
            support={**quoted_grounding.support, **grounding.support},
        )
    return _Rewrite(raw, elapsed, (shown, every, grounding))


def _file_section(source: ContextSource | None) -> str:
    if source is None:
        return ""
    return f"[File: {source.rel_path}, Section: {source.heading_path or TOP_OF_NOTE}]"


def first_cited_order(cited: Sequence[str], ids: Sequence[str]) -> dict[str, str]:
    """New ids for ``ids``: the cited ones N1, N2 ... in first-cited order, the rest after
    them in their order, so the label a reader sees is the label of the reference."""
    order = [*cited, *(cid for cid in ids if cid not in cited)]
    return {old: f"N{number}" for number, old in enumerate(order, start=1)}


def _generate(
    llm: LLM, request: GenerationRequest, on_token: TokenCallback | None, first: list[float]
) -> str:
    """The model's text; ``first`` gets the time its first piece arrived (when streamed)."""
    if on_token is None:
        return llm.generate(request)
    streamed: list[str] = []
    pieces = llm.stream(request)
    try:
        for piece in pieces:
            if not first:
                first.append(time.perf_counter())
            streamed.append(piece)
            on_token(piece)
    finally:  # on_token raised (the client left): closing the stream stops the provider
        close = getattr(pieces, "close", None)
        if close is not None:
            close()
    return "".join(streamed)


def read_fixed_prompt(llm: LLM, messages: Sequence[ChatMessage]) -> None:
    """Have ``llm`` read ``messages``, the start that every prompt of a kind shares
    (:func:`~notecite.generate.prompts.fixed_answer_prompt`, chat's ``fixed_chat_prompt``),
    and write one token, so that a model with a prompt cache (the local one) holds it before
    the first question instead of reading it then. A failure is logged: the first question
    then reads it, as it would have anyway."""
    request = GenerationRequest(messages=tuple(messages), temperature=0.0, max_tokens=1)
    try:
        llm.generate(request)
    except LLMError as exc:
        logger.warning("the model did not read the fixed prompt ahead: %s", exc)
