"""Auto-RAG: when retrieval is weak, search again with LLM help and keep the better result.

Weak retrieval means no candidate at all, nothing kept, a top gate score under the
threshold, or fewer kept chunks than the minimum. Then, each step with its own timeout:

1. **HyDE**: the LLM writes a short hypothetical answer; its embedding (averaged with the
   question's) becomes the dense query.
2. **Query rewriting**: the LLM turns the question into a keyword query, or, in multi-query
   mode, into several differently worded queries.
3. **Second pass**: each query is searched (in parallel, deeper than the first pass), the
   rankings are fused with reciprocal rank fusion, and every candidate is re-scored against
   the *original* question, so the calibrated thresholds mean what they meant before.
4. The winner of base vs auto is the one with the higher :func:`strength` (top score and
   density of strong chunks).

Without a generating LLM (none configured, or the model-free ``extractive`` one) the LLM
steps are skipped and reported, and the second pass still runs deeper with the question.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import numpy as np

from notecite.embed.base import Embedder, Vectors, embed_passage_for_query, normalise
from notecite.errors import EmbeddingError, LLMError
from notecite.generate.base import LLM, ChatMessage, GenerationRequest
from notecite.retrieve.retriever import Candidate, Retrieval
from notecite.schemas.ask import AutoRagDebug, AutoRagMode, AutoRagStep

logger = logging.getLogger(__name__)

T = TypeVar("T")
StepStatus = Literal["ok", "skipped", "timeout", "failed"]
RRF_K = 60
MAX_QUERY_CHARS = 300

HYDE_PROMPT = (
    "Write a short passage, two or three sentences, that answers the question below the way "
    "a personal note would. Make up plausible details if you must. Write only the passage."
)
REWRITE_PROMPT = (
    "Rewrite the question below as one search query of 3 to 10 keywords, adding synonyms "
    "where useful. Write only the query."
)
MULTI_PROMPT = (
    "Write {n} different search queries, one per line, that would find notes answering the "
    "question below. Vary the wording and use synonyms. Write only the queries."
)
_LEADING = re.compile(r"^\s*(?:[-*\d.)]+\s*)?(?:(?:search )?query\s*:\s*)?", re.IGNORECASE)


@dataclass(frozen=True)
class AutoRagOptions:
    """When auto-RAG runs and how far it goes."""

    mode: str = "auto"
    min_score: float = 0.40
    min_kept: int = 3
    timeout_s: float = 20.0
    multi_query: bool = False
    rewrites: int = 3
    max_tokens: int = 128
    ask_model: bool = True
    """Ask the LLM for HyDE and a rewrite (off: the second pass only searches deeper)."""


@dataclass
class AutoRagOutcome:
    """The retrieval to use, its kept candidates, and the debug record."""

    retrieval: Retrieval
    kept: list[Candidate]
    debug: AutoRagDebug
    notes: list[str] = field(default_factory=list)


Search = Callable[[str, Vectors | None], Retrieval]
Select = Callable[[Sequence[Candidate]], list[Candidate]]
Regate = Callable[[list[Candidate]], None]


def weakness(
    candidates: Sequence[Candidate],
    kept: Sequence[Candidate],
    min_score: float,
    min_kept: int,
    embedded: bool = True,
) -> str | None:
    """Why retrieval is weak ("no_match", "nothing_kept", "low_score", "few_kept"), or None.

    With a query vector, vector search scores every chunk in scope, so no candidate at all
    means an empty scope: nothing to search again, not weak retrieval. Without one (the
    embedder failed) no keyword match is weak retrieval, and a rewrite may find words.
    """
    if not candidates:
        return None if embedded else "no_match"
    if not kept:
        return "nothing_kept"
    if max(c.gate for c in kept) < min_score:
        return "low_score"
    if len(kept) < min_kept:
        return "few_kept"
    return None


def strength(kept: Sequence[Candidate], k: int) -> float:
    """Half the top gate score, half the density of strong chunks (their gate sum over K)."""
    if not kept:
        return 0.0
    gates = sorted((c.gate for c in kept), reverse=True)[: max(1, k)]
    return 0.5 * gates[0] + 0.5 * sum(gates) / max(1, k)


def llm_can_generate(llm: LLM | None) -> bool:
    """Whether ``llm`` writes text (the ``extractive`` provider only quotes sources)."""
    return llm is not None and llm.name != "extractive"


def _timed(fn: Callable[[], T], timeout_s: float) -> tuple[T | None, StepStatus, float, str]:
    """(result, status, ms, detail) of ``fn`` run with a deadline in a worker thread."""
    started = time.perf_counter()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notecite-autorag")
    future = pool.submit(fn)
    status: StepStatus
    try:
        result = future.result(timeout=timeout_s)
        status, detail = "ok", ""
    except FutureTimeout:
        result, status, detail = None, "timeout", f"no reply within {timeout_s:g} s"
    except (LLMError, EmbeddingError) as exc:
        result, status, detail = None, "failed", str(exc)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return result, status, (time.perf_counter() - started) * 1000, detail


def _ask_llm(llm: LLM, system: str, question: str, max_tokens: int) -> str:
    request = GenerationRequest(
        messages=(ChatMessage("system", system), ChatMessage("user", question)),
        question=question,
        temperature=0.0,
        max_tokens=max_tokens,
    )
    return llm.generate(request).strip()


def parse_queries(reply: str, limit: int) -> list[str]:
    """Query lines from a model's reply: numbering, bullets and quotes removed, no repeats."""
    found: list[str] = []
    for line in reply.splitlines():
        cleaned = _LEADING.sub("", line).strip().strip("\"'`").strip()
        if cleaned and cleaned.lower() not in {q.lower() for q in found}:
            found.append(cleaned[:MAX_QUERY_CHARS])
        if len(found) >= limit:
            break
    return found


def rrf_merge(rankings: Sequence[Sequence[Candidate]], k: int = RRF_K) -> list[Candidate]:
    """One ranking from several (by ``final``), scored 1/(k + rank) summed; the first seen
    object of each chunk is kept and its ``final`` set to the fused score."""
    fused: dict[int, float] = {}
    first: dict[int, Candidate] = {}
    for ranking in rankings:
        for rank, cand in enumerate(ranking, start=1):
            fused[cand.rowid] = fused.get(cand.rowid, 0.0) + 1.0 / (k + rank)
            first.setdefault(cand.rowid, cand)
    merged = sorted(first.values(), key=lambda c: (-fused[c.rowid], c.rowid))
    for cand in merged:
        cand.final = fused[cand.rowid]
    return merged


class AutoRag:
    """Runs the auto-RAG steps for one question."""

    def __init__(self, llm: LLM | None, embedder: Embedder, options: AutoRagOptions) -> None:
        self._llm = llm
        self._embedder = embedder
        self._options = options

    def decide(
        self,
        mode: AutoRagMode,
        candidates: Sequence[Candidate],
        kept: Sequence[Candidate],
        embedded: bool = True,
    ) -> AutoRagDebug:
        """The debug record with ``triggered`` and ``reason`` filled in for ``mode``.

        Nothing in scope (no candidate although the question was embedded) never triggers.
        """
        debug = AutoRagDebug(mode=mode)
        if embedded and not candidates:
            debug.reason = "nothing indexed in scope"
        elif mode == "always":
            debug.triggered, debug.reason = True, "always"
        elif mode == "auto":
            opts = self._options
            reason = weakness(candidates, kept, opts.min_score, opts.min_kept, embedded)
            debug.triggered, debug.reason = reason is not None, reason or ""
        return debug

    def run(
        self,
        question: str,
        query: Vectors | None,
        base: Retrieval,
        base_kept: list[Candidate],
        k: int,
        debug: AutoRagDebug,
        search: Search,
        select: Select,
        regate: Regate,
    ) -> AutoRagOutcome:
        """Second pass for a triggered ``debug``; returns base or auto, whichever is stronger."""
        opts = self._options
        queries: list[tuple[str, Vectors | None]] = [(question, query)]
        hyde_vector = self._hyde(question, query, debug)
        if hyde_vector is not None:
            queries[0] = (question, hyde_vector)
        queries.extend(
            (text if opts.multi_query else f"{question} {text}", None)
            for text in self._rewrites(question, debug)
        )
        debug.queries = [text for text, _ in queries]

        started = time.perf_counter()
        rankings: list[list[Candidate]] = []
        try:
            with ThreadPoolExecutor(max_workers=min(4, len(queries))) as pool:
                futures = [pool.submit(self._search_one, search, t, v) for t, v in queries]
                rankings = [f.result().candidates for f in futures]
            merged = rankings[0] if len(rankings) == 1 else rrf_merge(rankings)
            regate(merged)
            auto = Retrieval(merged)
            auto_kept = select(merged)
            debug.steps.append(
                AutoRagStep(
                    name="second_pass",
                    status="ok",
                    ms=(time.perf_counter() - started) * 1000,
                    detail=f"{len(queries)} quer{'y' if len(queries) == 1 else 'ies'}, "
                    f"{len(merged)} candidates, {len(auto_kept)} kept",
                )
            )
        except EmbeddingError as exc:
            debug.steps.append(AutoRagStep(name="second_pass", status="failed", detail=str(exc)))
            return AutoRagOutcome(base, base_kept, debug)
        debug.base_strength = round(strength(base_kept, k), 6)
        debug.auto_strength = round(strength(auto_kept, k), 6)
        if debug.auto_strength > debug.base_strength:
            debug.winner = "auto"
            return AutoRagOutcome(auto, auto_kept, debug)
        return AutoRagOutcome(base, base_kept, debug)

    def _search_one(self, search: Search, text: str, vector: Vectors | None) -> Retrieval:
        if vector is None:
            vector = self._embedder.embed_query(text)
        return search(text, vector)

    def _writer(self, step: str, debug: AutoRagDebug) -> LLM | None:
        """The LLM that writes ``step``, or None (the step is recorded as skipped)."""
        if not llm_can_generate(self._llm) or self._llm is None:
            debug.steps.append(AutoRagStep(name=step, status="skipped", detail="no LLM"))
            return None
        if not self._options.ask_model:
            detail = "the model is not asked (auto_rag_local): the second pass searches deeper"
            debug.steps.append(AutoRagStep(name=step, status="skipped", detail=detail))
            return None
        return self._llm

    def _hyde(self, question: str, query: Vectors | None, debug: AutoRagDebug) -> Vectors | None:
        llm = self._writer("hyde", debug)
        if llm is None:
            return None
        opts = self._options

        def write_and_embed() -> Vectors | None:
            passage = _ask_llm(llm, HYDE_PROMPT, question, opts.max_tokens)
            if not passage:
                return None
            # On the question's clock: the query path's one attempt, not indexing's retries.
            vector = embed_passage_for_query(self._embedder, passage[:2000])
            if query is not None:
                vector = np.asarray(query, dtype=np.float32) + vector
            unit: Vectors = normalise(vector.reshape(1, -1))[0]
            return unit

        vector, status, ms, detail = _timed(write_and_embed, opts.timeout_s)
        if status == "ok" and vector is None:
            status, detail = "failed", "the model wrote nothing"
        debug.steps.append(AutoRagStep(name="hyde", status=status, ms=round(ms, 1), detail=detail))
        return vector

    def _rewrites(self, question: str, debug: AutoRagDebug) -> list[str]:
        opts = self._options
        name = "multi_query" if opts.multi_query else "rewrite"
        llm = self._writer(name, debug)
        if llm is None:
            return []
        wanted = opts.rewrites if opts.multi_query else 1
        system = MULTI_PROMPT.format(n=wanted) if opts.multi_query else REWRITE_PROMPT
        reply, status, ms, detail = _timed(
            lambda: _ask_llm(llm, system, question, opts.max_tokens), opts.timeout_s
        )
        found = parse_queries(reply or "", wanted)
        found = [q for q in found if q.lower() != question.lower()]
        if status == "ok" and not found:
            status, detail = "failed", "no usable query in the reply"
        debug.steps.append(AutoRagStep(name=name, status=status, ms=round(ms, 1), detail=detail))
        return found
