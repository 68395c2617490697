"""The retrieval stage: scope, embed, search, fuse, rerank, select, auto-RAG.

:class:`RetrievalStage` turns an AskRequest into ranked candidates and the ones kept for the
context (:meth:`RetrievalStage.retrieve`, what ask and chat use), or into the top candidates
of each vault without thresholds (:meth:`RetrievalStage.search`, what search uses): one
ranking path for both. It owns the query-embedding and search-result caches' use, the
auto-RAG pass, and the fallback to the most recent notes when nothing can be searched.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import PurePosixPath

from notecite.config import AskSettings
from notecite.embed.base import Embedder, Vectors
from notecite.errors import EmbeddingError, StoreError
from notecite.filters import Condition, Op
from notecite.generate.base import LLM, Judge, Owners
from notecite.retrieve.aliases import (
    asks_who,
    best_of_notes,
    named_notes,
    notes_named,
    said_aliases,
)
from notecite.retrieve.answerability import DEFAULT_MODEL, features
from notecite.retrieve.autok import automatic_k
from notecite.retrieve.autorag import AutoRag, AutoRagOptions
from notecite.retrieve.cache import RetrievalCaches, vector_key
from notecite.retrieve.folders import (
    Scope,
    position_weight,
    rank_folders_with_llm,
    resolve_user_folder,
)
from notecite.retrieve.frontmatter import no_note_left, request_filters
from notecite.retrieve.implied import implied_terms
from notecite.retrieve.latest import asks_for_latest, latest_first
from notecite.retrieve.listing import LISTED_AT_MOST, Listing, asks_for_listing, scope_words
from notecite.retrieve.named_folder import named_folder
from notecite.retrieve.parts import question_parts
from notecite.retrieve.rerank import final_score, lexical_score
from notecite.retrieve.rerankers.base import Reranker
from notecite.retrieve.retriever import Candidate, Retrieval, RetrievalOptions, Retriever
from notecite.retrieve.salient import (
    MissingTerms,
    maybe_own_names,
    name_groups,
    salient_terms,
    variants,
    without_names,
    without_own_names,
)
from notecite.retrieve.tasks import (
    TASK_CHUNKS_AT_MOST,
    TASK_MARKS,
    TASKS_LISTED_AT_MOST,
    asks_for_open_tasks,
    open_tasks,
)
from notecite.retrieve.terms import fold, query_terms, stem, tokenize
from notecite.retrieve.timehints import TimeRange, parse_time_hint
from notecite.retrieve.typos import respell, with_readings
from notecite.schemas.ask import AskRequest, AutoRagMode, DebugInfo, FolderSelection
from notecite.spelling import spellings
from notecite.store.base import FrontmatterFacets, Store, StoredChunk
from notecite.types import SearchFilter, Vault

RECENT_NOTES = "recent_notes"
"""The strategy label of a context made of the most recent notes (nothing could be searched)."""

LISTING = "listing"
"""The strategy of a question that asks only for the notes of its scope: they are listed."""

OPEN_TASKS = "open_tasks"
"""The strategy of a question that asks only for what is still to do: the open tasks are
listed."""

LISTING_COUNT_LIMIT = 10_000
"""The most notes of a scope a listing counts."""

_NO_DATE = datetime(1970, 1, 1, tzinfo=UTC)

PARTIAL_VECTORS = "+keyword_only_for_waiting_notes"
"""Appended to the strategy while some searched notes still wait for their vectors (a first
index is still embedding): those notes are found by keyword only."""


@dataclass
class Retrieved:
    """What the retrieval stage found for one question.

    Attributes:
        candidates: every candidate considered, ranked by ``final``.
        kept: the candidates chosen for the context, best first (at most K).
        strategy: the fusion strategy that ranked them, or ``recent_notes``.
        k: the K chosen for this question.
        empty_index: the searched vaults hold no notes at all.
        missing: salient terms of the question absent from the vaults or from ``kept``.
        filtered_out: the frontmatter filters leave no note of the searched vaults.
        debug: notes, timings, folder selection and the auto-RAG record.
        parts: the parts of a question that asks several things, each of which was searched
            on its own (empty for a question that asks one thing).
        readings: each misspelt word of the question and the word of the notes it was read
            as (:mod:`notecite.retrieve.typos`); the answer is written to the question so read.
        read_first: the answerability gate doubted ``kept`` (its P is under the threshold
            and at or over the read threshold) and left the model to decide: it is asked
            whether the context answers before it writes anything.
    """

    candidates: list[Candidate]
    kept: list[Candidate]
    strategy: str
    k: int = 0
    empty_index: bool = False
    debug: DebugInfo = field(default_factory=DebugInfo)
    missing: MissingTerms = field(default_factory=MissingTerms)
    filtered_out: bool = False
    parts: tuple[str, ...] = ()
    readings: dict[str, str] = field(default_factory=dict)
    read_first: bool = False
    named: dict[str, str] = field(default_factory=dict)
    owners: Owners | None = None
    listing: Listing | None = None


logger = logging.getLogger(__name__)


class RetrievalStage:
    """Finds the chunks that answer one AskRequest, with the given store, embedder and LLM."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        llm: LLM,
        settings: AskSettings,
        vaults: Sequence[Vault],
        folders_of: Callable[[Vault], list[str]],
        options: RetrievalOptions,
        *,
        caches: RetrievalCaches | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._settings = settings
        self._vaults = list(vaults)
        self._folders_of = folders_of
        self._options = options
        self._caches = caches
        self._reranker = reranker
        self._waiting: frozenset[tuple[str, str]] = frozenset()
        self._conditions: tuple[Condition, ...] = ()
        self._readings: dict[str, str] = {}
        self._alias_named: set[tuple[str, str]] = set()
        self._focus: set[tuple[str, str]] = set()  # the only notes a doubted context keeps
        self._owners: Owners | None = None

    # -- stages -----------------------------------------------------------------------------

    def _scopes(self, request: AskRequest, debug: DebugInfo) -> list[Scope]:
        """The user's folders first (each weighted 1.0: a filter, not a ranking), then the
        folders the LLM ranks (folder ranking on), by position; with no folder at all, one
        scope per vault."""
        available = [
            f"{v.name}/{f}" if f else v.name for v in self._vaults for f in self._folders_of(v)
        ]
        selection = FolderSelection(available=[a for a in available if "/" in a])
        debug.folder_selection = selection
        user: list[tuple[Vault, str]] = []
        for folder in request.folders:
            user.extend(resolve_user_folder(folder, self._vaults))
        user = list(dict.fromkeys(user))
        ranked: list[tuple[Vault, str]] = []
        mode = self._settings.folder_ranking
        if mode == "llm" and selection.available and self._llm.name != "extractive":
            chosen = {f"{v.name}/{f}" for v, f in user}
            labels = [a for a in selection.available if a not in chosen]
            labels = labels[: self._settings.max_folders_ranked]
            picked = self._folder_picks(request.question, labels, debug)
            by_name = {v.name: v for v in self._vaults}
            for label in picked or []:
                name, _, folder = label.partition("/")
                ranked.append((by_name[name], folder))
        selection.method = "user" if user else ("llm" if ranked else selection.method)
        pairs = list(dict.fromkeys([*user, *ranked]))
        selection.selected = [f"{v.name}/{f}" if f else v.name for v, f in pairs]
        if not pairs:
            return [Scope(v, "", 1.0) for v in self._vaults]
        scopes = [Scope(v, f, 1.0) for v, f in user]
        scopes.extend(
            Scope(v, f, position_weight(len(user) + i))
            for i, (v, f) in enumerate(p for p in pairs if p not in set(user))
        )
        if not user:
            # The model's pick is a preference, not a filter: a folder it missed is still
            # searched, below every folder it picked.
            rest = position_weight(len(pairs))
            scopes.extend(Scope(v, "", rest) for v in self._vaults)
        return scopes

    def _folder_picks(
        self, question: str, labels: Sequence[str], debug: DebugInfo
    ) -> list[str] | None:
        """The LLM's folder picks, from the cache when the same question was ranked over the
        same folders before (a model call costs seconds on the local model)."""
        key = (question, tuple(labels))
        if self._caches is not None:
            cached = self._caches.folder_picks.get(key)
            if cached is not None:
                debug.notes.append("folder ranking: the model's earlier picks (cached)")
                return list(cached)
        started = time.perf_counter()
        picked = rank_folders_with_llm(self._llm, question, labels, debug.notes)
        debug.timings_ms.folder_ranking = (time.perf_counter() - started) * 1000
        if picked is not None and self._caches is not None:
            self._caches.folder_picks.put(key, tuple(picked))
        return picked

    def _rank_folders_by_scores(self, candidates: Sequence[Candidate], debug: DebugInfo) -> None:
        """Folder ranking without a model: the folders in the order of their best candidate
        (shown in the debug view; every folder was searched)."""
        selection = debug.folder_selection
        if selection.method != "all" or not selection.available:
            return
        order: dict[str, None] = {}
        for cand in candidates:
            folder = cand.chunk.folder
            if folder:
                order.setdefault(f"{cand.chunk.vault}/{folder}", None)
        selection.method = "scores"
        selection.selected = list(order)[:10]

    def _select(self, candidates: Sequence[Candidate], embedded: bool, k: int) -> list[Candidate]:
        """Candidates over both thresholds (the vector one only when embedded), at most k. A
        chunk of a note still waiting for its vectors is judged by its lexical score alone."""

        def keyword_only(c: Candidate) -> bool:
            return (c.chunk.vault, c.chunk.rel_path) in self._waiting

        ordered = list(candidates)
        if embedded:
            ordered = [
                c
                for c in ordered
                if keyword_only(c) or c.score_vector >= self._settings.vector_threshold
            ]
        final = self._settings.final_threshold
        return [c for c in ordered if (c.lexical if keyword_only(c) else c.gate) >= final][:k]

    def _embed(self, question: str, debug: DebugInfo) -> Vectors:
        if self._caches is None:
            return self._embedder.embed_query(question)
        vector, hit = self._caches.embed_query(self._embedder, question)
        debug.cache.query_embedding = "hit" if hit else "miss"
        debug.cache.query_hit_rate = round(self._caches.queries.stats().hit_rate, 4)
        return vector

    def _retrieve(
        self,
        retriever: Retriever,
        question: str,
        query: Vectors | None,
        scopes: Sequence[Scope],
        per_scope: int,
        time_range: TimeRange | None,
        debug: DebugInfo,
        record: bool = True,
    ) -> Retrieval:
        """One retrieval, from the results cache when the index has not changed since."""

        def run() -> Retrieval:
            return retriever.retrieve(question, query, scopes, per_scope, time_range)

        if self._caches is None:
            return run()
        key = (
            repr(self._options),
            question,
            tuple((s.vault.id, s.folder, s.weight) for s in scopes),
            per_scope,
            time_range,
            vector_key(query),
            self._conditions,
        )
        retrieval, state = self._caches.search(self._store, key, run)
        if record:
            debug.cache.search_results = state
        debug.cache.results_hit_rate = round(self._caches.results.stats().hit_rate, 4)
        return retrieval

    def _regate(self, question: str, query: Vectors | None, candidates: list[Candidate]) -> None:
        """Score candidates found by other queries against the original question."""
        if query is not None:
            cosines = self._store.vector_scores(
                self._embedder.model_id, query, [c.rowid for c in candidates]
            )
            for cand in candidates:
                cand.score_vector = cosines.get(cand.rowid, 0.0)
        for cand in candidates:
            if self._options.reranker != "none":
                cand.lexical = lexical_score(question, cand.chunk.text, cand.chunk.heading_path)
            cand.gate = final_score(cand.score_vector * cand.folder_weight, cand.lexical)

    def _auto_rag(
        self,
        request: AskRequest,
        retriever: Retriever,
        query: Vectors | None,
        scopes: Sequence[Scope],
        time_range: TimeRange | None,
        retrieval: Retrieval,
        kept: list[Candidate],
        k: int,
        debug: DebugInfo,
    ) -> tuple[Retrieval, list[Candidate]]:
        mode: AutoRagMode = request.auto_rag or self._settings.auto_rag
        s = self._settings
        options = AutoRagOptions(
            mode=mode,
            min_score=s.auto_rag_min_score,
            min_kept=s.auto_rag_min_kept,
            timeout_s=s.auto_rag_timeout_s,
            multi_query=s.multi_query if request.multi_query is None else request.multi_query,
            rewrites=s.multi_query_rewrites,
            # the bundled model writes a step in 5-25 s on 2 cores; asked for "always", it is
            ask_model=mode == "always" or s.auto_rag_local or self._llm.name != "local",
        )
        auto = AutoRag(self._llm, self._embedder, options)
        debug.auto_rag = auto.decide(mode, retrieval.candidates, kept, query is not None)
        if not debug.auto_rag.triggered:
            return retrieval, kept
        if mode == "auto" and self._off_topic(request.question, debug):
            return retrieval, kept
        deeper = s.hits_per_scope * s.auto_rag_depth

        def search(text: str, vector: Vectors | None) -> Retrieval:
            return self._retrieve(
                retriever, text, vector, scopes, deeper, time_range, debug, record=False
            )

        outcome = auto.run(
            request.question,
            query,
            retrieval,
            kept,
            k,
            debug.auto_rag,
            search,
            lambda cands: self._select(cands, query is not None, k),
            lambda cands: self._regate(request.question, query, cands),
        )
        return outcome.retrieval, outcome.kept

    def _mentioned(
        self,
        terms: Sequence[str],
        flt: SearchFilter,
        forms: Callable[[str], Sequence[str]] = spellings,
    ) -> set[str]:
        """The ``terms`` that some note of ``flt`` holds in any of its ``forms`` (by default
        either spelling: a note that says "color" holds the question's "colour"), in one
        full-text lookup."""
        asked = {term: forms(term) for term in terms}
        found = self._store.mentions([form for each in asked.values() for form in each], flt)
        return {term for term, each in asked.items() if any(f in found for f in each)}

    def _off_topic(self, question: str, debug: DebugInfo) -> bool:
        """Is a weakly retrieved question off-topic: are ``auto_rag_max_absent`` of its
        terms in no note of the vaults? A second pass cannot find words no note holds, so
        auto-RAG then stays off and asks the model nothing (``debug.auto_rag`` says why)."""
        terms = query_terms(question)
        limit = self._settings.auto_rag_max_absent
        if not terms or limit >= 1:
            return False
        flt = SearchFilter(vault_ids=tuple(v.id for v in self._vaults))
        try:
            found = self._mentioned(terms, flt)
        except StoreError:
            return False
        absent = [t for t in terms if t not in found]
        if len(absent) / len(terms) < limit:
            return False
        auto = debug.auto_rag
        auto.triggered = False
        auto.reason = (
            f"{auto.reason}, but {len(absent)} of {len(terms)} question terms are in no note "
            f"({', '.join(absent[:5])}): off-topic, no second pass"
        )
        return True

    def retrieve(self, request: AskRequest, debug: DebugInfo | None = None) -> Retrieved:
        """Ranked candidates and the ones kept for the context (embedding, scopes, K, time
        hint, fusion, rerank, thresholds, auto-RAG; the most recent notes when the question
        could not be embedded and no keyword matched).

        ``debug`` (a fresh one when None) receives notes, timings and the auto-RAG record.
        """
        debug = debug if debug is not None else DebugInfo(llm=self._llm.name)
        timings = debug.timings_ms
        self._waiting = self._waiting_for_vectors()
        request = self._apply_filters(request, debug)
        if no_note_left(self._store, self._vaults, self._conditions):
            debug.notes.append(f"no note meets the filters {', '.join(debug.filters)}")
            found = self._finish([], [], self._options.strategy, 0, debug)
            found.filtered_out = True
            return found
        written = [c.source for c in self._conditions]
        if asks_for_open_tasks(request.question, written):
            tasks = self._open_tasks(request, debug)
            if tasks.kept:
                return tasks
        if (written or request.folders) and asks_for_listing(request.question, written):
            return self._listing(request, debug)
        query = self._embed_or_none(request.question, debug)

        t = time.perf_counter()
        scopes = self._scopes(request, debug)
        k = automatic_k(
            request.question,
            request.detail,
            narrow_folders=bool(request.folders),
            legacy_k=request.k,
            k_min=self._settings.k_min,
            k_default=self._settings.k_default,
            k_max=self._settings.k_max,
        )
        debug.k = k
        time_range = parse_time_hint(request.question)
        retriever = self._retriever()
        per_scope = self._settings.hits_per_scope
        retrieval = self._retrieve(
            retriever, request.question, query, scopes, per_scope, time_range, debug
        )
        debug.notes.extend(retrieval.notes)
        timings.retrieve = (time.perf_counter() - t) * 1000 - retrieval.rerank_ms

        t = time.perf_counter()
        kept = self._select(retrieval.candidates, query is not None, k)
        if not kept and time_range is not None:
            # Dates in notes are often file times: a hint that leaves nothing is dropped.
            retrieval = self._retrieve(
                retriever, request.question, query, scopes, per_scope, None, debug
            )
            debug.notes.append(
                f"nothing relevant dated {time_range.phrase!r}; searched all dates instead"
            )
            kept = self._select(retrieval.candidates, query is not None, k)
            time_range = None
        timings.rerank = (time.perf_counter() - t) * 1000 + retrieval.rerank_ms

        if query is None and not retrieval.candidates:
            recent = self._recent(scopes, k)
            debug.strategy = RECENT_NOTES
            debug.notes.append(
                "the question could not be embedded and no keyword matched: "
                f"the {len(recent)} most recent notes are the context"
            )
            return self._finish(recent, recent, RECENT_NOTES, k, debug)

        # Salient names no note holds settle the answer ("your notes don't mention X") when
        # they are a third of the question's names (salient.SETTLING_SHARE): no second pass,
        # and no model call for one.
        absent = self._missing(request.question, kept) if kept else MissingTerms()
        t = time.perf_counter()
        if not absent.settled:
            retrieval, kept = self._auto_rag(
                request, retriever, query, scopes, time_range, retrieval, kept, k, debug
            )
        timings.auto_rag = (time.perf_counter() - t) * 1000
        latest = asks_for_latest(request.question) if time_range is None else None
        if latest and kept:
            kept = self._latest_first(
                request.question, retriever, query, scopes, kept, latest, debug
            )
        self._alias_named, self._focus, self._owners = set(), set(), None
        if not absent.settled:
            kept = self._alias_named_first(
                request.question,
                self._user_scopes(request.folders),
                retrieval.candidates,
                kept,
                max(k, 1),
                debug,
            )
        found = self._finish(retrieval.candidates, kept, self._options.strategy, k, debug)
        if self._settings.folder_ranking == "scores":
            self._rank_folders_by_scores(retrieval.candidates, debug)
        if kept:
            t = time.perf_counter()
            parts = question_parts(request.question) if self._settings.question_parts else []
            context = self._with_parts(parts, retriever, scopes, time_range, kept)
            timings.question_parts = (time.perf_counter() - t) * 1000
            if context is not kept:
                found.parts = tuple(parts)
                debug.question_parts = parts
                debug.notes.append(
                    f"the question asks {len(debug.question_parts)} things: each part's best "
                    "chunk was searched on its own and put after the question's best"
                )
            # The vaults were asked before auto-RAG (when anything was kept then); only the
            # context check is redone, since auto-RAG may have changed what was kept.
            if absent.salient:
                found.missing = self._unseen_named(absent, context)
            else:
                found.missing = self._missing(request.question, context)
            debug.missing_terms = list(found.missing.not_in_vaults)
            debug.absent_from_context = list(found.missing.not_in_context)
            # the gate reads what the question's own search kept, as it was fitted on
            if query is not None and not found.missing.settled:
                self._gate(request.question, found, debug)
            if found.kept:
                found.kept = [c for c in context if self._in_focus(c)]
                found.named = self._named_notes(request.question, found.kept, debug)
                found.owners = self._owners
                listed = {c.rowid for c in found.candidates}
                found.candidates = [
                    *found.candidates,
                    *(c for c in context if c.rowid not in listed),
                ]
        else:  # nothing to answer from: the abstention names what no note mentions
            found.missing = self._missing(request.question, [])
            debug.missing_terms = list(found.missing.not_in_vaults)
        return found

    def _latest_first(
        self,
        question: str,
        retriever: Retriever,
        query: Vectors | None,
        scopes: Sequence[Scope],
        kept: list[Candidate],
        phrase: str,
        debug: DebugInfo,
    ) -> list[Candidate]:
        """``kept`` with the newest relevant note of the series the question is about first
        (:func:`notecite.retrieve.latest.latest_first`), searching again from a date on."""

        def search_after(moment: datetime) -> list[Candidate]:
            after = TimeRange(moment, None, phrase)
            per_scope = self._settings.hits_per_scope
            found = self._retrieve(
                retriever, question, query, scopes, per_scope, after, DebugInfo(), record=False
            )
            return self._select(found.candidates, query is not None, len(found.candidates))

        ordered, newest = latest_first(kept, search_after)
        if newest is not None:
            debug.notes.append(
                f"the question asks for the newest ({phrase!r}): {newest[0]}/{newest[1]}, the "
                "newest of its series of notes found, is read first, and the older ones are "
                "left out"
            )
        return ordered

    def _with_parts(
        self,
        parts: Sequence[str],
        retriever: Retriever,
        scopes: Sequence[Scope],
        time_range: TimeRange | None,
        kept: list[Candidate],
    ) -> list[Candidate]:
        """``kept`` with the best chunk of each of the ``parts`` of a question that asks
        several things (:func:`~notecite.retrieve.parts.question_parts`) right after the
        question's own best chunk, so that each part's answer reaches the context; ``kept``
        itself for a question that asks one thing."""
        if len(parts) < 2:
            return kept
        best: list[Candidate] = []
        for part in parts:
            try:
                vector: Vectors | None = self._embed(part, DebugInfo())
            except EmbeddingError:
                vector = None
            searched = self._retrieve(
                retriever,
                part,
                vector,
                scopes,
                self._settings.hits_per_scope,
                time_range,
                DebugInfo(),
                record=False,
            )
            best.extend(self._select(searched.candidates, vector is not None, 1))
        first, seen = kept[0], {kept[0].rowid}
        ordered = [first]
        for candidate in [*best, *kept[1:]]:
            if candidate.rowid not in seen:
                seen.add(candidate.rowid)
                ordered.append(candidate)
        return ordered

    def _apply_filters(self, request: AskRequest, debug: DebugInfo) -> AskRequest:
        """Take the request's frontmatter filters and those written in its question; the
        request comes back with the question as it is searched (without the filters, and
        without a name the question gives the asker's own note, folder or tag)."""
        found = request_filters(self._store, self._vaults, request.question, request.filters)
        self._conditions = found.conditions
        debug.filters = found.shown
        # a name the asker gives their own note or tag is theirs: no note holds it
        searched = without_own_names(found.question)
        searched = without_names(searched, self._theirs(maybe_own_names(searched)))
        searched = self._as_searched(searched, debug)
        folders = list(request.folders)
        if not folders:  # "in my Recipes folder": searched there, without those words
            named = named_folder(searched, self._folder_labels())
            if named.folders:
                searched, folders = named.question, list(named.folders)
                debug.notes.append(
                    f"the question names the folder {', '.join(named.folders)}: searched there"
                )
        if searched == request.question and folders == request.folders:
            return request
        if searched != request.question:
            debug.searched_question = searched
        return request.model_copy(update={"question": searched, "folders": folders})

    def _folder_labels(self) -> list[str]:
        """Every folder of the searched vaults, as ``vault/folder``."""
        return [f"{v.name}/{f}" for v in self._vaults for f in self._folders_of(v) if f]

    def _as_searched(self, question: str, debug: DebugInfo) -> str:
        """``question`` with its misspelt words read as the notes' words and the words it
        means without saying them (:mod:`notecite.retrieve.implied`: "unless I raise it"
        asks for the default, and the line says "(default: 20)") after it."""
        searched = self._respelled(question, debug)
        implied = implied_terms(searched)
        if implied:
            searched = f"{searched} ({', '.join(implied)})"
            debug.notes.append(f"the question asks for {', '.join(implied)}: searched with it")
        return searched

    def _respelled(self, question: str, debug: DebugInfo) -> str:
        """``question`` with each misspelt word read as the word the notes hold
        (:mod:`notecite.retrieve.typos`: "tempalte" as "template"), said in the debug view."""
        flt = SearchFilter(vault_ids=tuple(v.id for v in self._vaults))

        def held(words: Sequence[str]) -> set[str]:
            return self._mentioned(words, flt)

        try:
            readings = respell(question, salient_terms(question, names_in_lowercase=False), held)
        except StoreError:
            readings = {}
        self._readings = readings
        for word, reading in readings.items():
            debug.notes.append(f"read {word!r} as {reading!r}: no note holds {word!r}")
        return with_readings(question, readings)

    def _theirs(self, names: Sequence[str]) -> list[str]:
        """The ``names`` (written after "my note", "a folder", ...) that no note of the
        vaults holds: the asker's own, not the product's ("a file `settings.json`")."""
        if not names:
            return []
        bare = {name: name.strip("`\"'\u201c\u201d\u2018\u2019[]") for name in names}
        flt = SearchFilter(vault_ids=tuple(v.id for v in self._vaults))
        try:
            held = self._mentioned([b for b in bare.values() if b], flt, variants)
        except StoreError:
            return []
        return [name for name, b in bare.items() if b and b not in held]

    def _gate(self, question: str, found: Retrieved, debug: DebugInfo) -> None:
        """The calibrated answerability gate: drop the kept chunks (the ask abstains before
        any model call) when they are unlikely to answer ``question``. It reads scores of the
        embedder it was fitted on (MiniLM, either variant), and stays out of the way of any
        other."""
        if self._embedder.model_id not in DEFAULT_MODEL.embedders:
            return
        flt = SearchFilter(vault_ids=tuple(v.id for v in self._vaults))
        signals = features(
            question,
            found.candidates,
            found.kept,
            lambda terms: self._mentioned(terms, flt),
            # the gate runs only when no absent term settled the question; a minority of
            # absent terms is a detail the model is told about, not a sign of a near miss
            0,
        )
        model = DEFAULT_MODEL
        threshold = self._settings.answerability_threshold
        if threshold is None:
            threshold = model.threshold
        probability = model.probability(signals)
        debug.answerability = round(probability, 4)
        if not self._settings.answerability_gate or probability >= threshold:
            return
        read_threshold = self._settings.answerability_read_threshold
        if read_threshold is None:
            read_threshold = model.read_threshold
        named = {(c.chunk.vault, c.chunk.rel_path) for c in found.kept} & self._alias_named
        if named and self._reads():
            # the question is about the note it names: the rest of a doubted context is noise
            self._focus = named
            debug.notes.append(
                f"answerability {probability:.3f} under {threshold:.3f}, but the question names "
                "a note by its alias: only that note is kept, and the model is asked whether "
                "it answers before it writes"
            )
            found.read_first = True
            return
        if probability >= read_threshold and self._reads():
            debug.notes.append(
                f"answerability {probability:.3f} under {threshold:.3f}: the model is asked "
                "whether the kept chunks answer before it writes"
            )
            found.read_first = True
            return
        debug.notes.append(
            f"answerability {probability:.3f} under {threshold:.3f}: the kept chunks are "
            "unlikely to answer; abstaining before any model call"
        )
        found.kept = []

    def _reads(self) -> bool:
        """Can the model decide whether the context answers (the reading check: a model that
        weighs yes/no)? Also for a question answered yes or no, which the check does not
        read once an answer is written: its right answers are refused too often there, but
        a doubted question is refused anyway when the model is not asked."""
        return self._settings.reading_check and isinstance(self._llm, Judge)

    def search(
        self, question: str, folders: Sequence[str], limit: int, filters: Sequence[str] = ()
    ) -> list[Candidate]:
        """The top ``limit`` candidates of the given folders (else of each vault), ranked as
        :meth:`retrieve` ranks them, with no threshold, no folder ranking and no auto-RAG;
        only notes that meet the frontmatter ``filters`` (and those written in the question).
        A misspelt word is searched as the word the notes hold, as ask reads it."""
        debug = DebugInfo()
        found = request_filters(self._store, self._vaults, question, filters)
        self._conditions = found.conditions
        question = self._as_searched(found.question, debug)
        query = self._embed_or_none(question, debug)
        pairs = [p for f in folders for p in resolve_user_folder(f, self._vaults)]
        scopes = [Scope(v, f, 1.0) for v, f in dict.fromkeys(pairs)] or [
            Scope(v, "", 1.0) for v in self._vaults
        ]
        per_scope = max(self._settings.hits_per_scope, limit)
        retriever = self._retriever()
        time_range = parse_time_hint(question)
        retrieval = self._retrieve(retriever, question, query, scopes, per_scope, time_range, debug)
        if not retrieval.candidates and time_range is not None:
            retrieval = self._retrieve(retriever, question, query, scopes, per_scope, None, debug)
        return retrieval.candidates[:limit]

    # -- helpers ----------------------------------------------------------------------------

    def _retriever(self) -> Retriever:
        return Retriever(
            self._store,
            self._embedder.model_id,
            self._options,
            reranker=self._reranker,
            conditions=self._conditions,
        )

    def _embed_or_none(self, question: str, debug: DebugInfo) -> Vectors | None:
        t = time.perf_counter()
        query: Vectors | None
        try:
            query = self._embed(question, debug)
        except EmbeddingError as exc:
            query = None
            debug.notes.append(f"embedding failed ({exc}); keyword + recency retrieval used")
        debug.timings_ms.embed = (time.perf_counter() - t) * 1000
        return query

    def _listing(self, request: AskRequest, debug: DebugInfo) -> Retrieved:
        """The notes of the request's scope (its filters and folders), newest first, for a
        question that asks for nothing else."""
        scopes = self._user_scopes(request.folders)
        total = len(self._note_rowids(scopes, LISTING_COUNT_LIMIT))
        notes = self._recent(scopes, LISTED_AT_MOST)
        folders = [s.label for s in scopes if s.folder]
        listing = Listing(scope_words(self._conditions, folders), total)
        debug.notes.append(
            f"the question asks only for the notes {listing.scope}: they are listed, newest "
            "first, and nothing was searched"
        )
        found = self._finish(notes, notes, LISTING, len(notes), debug)
        found.listing = listing
        return found

    def _open_tasks(self, request: AskRequest, debug: DebugInfo) -> Retrieved:
        """The chunks holding the open tasks of the request's scope (its filters and
        folders), newest notes first, for a question that asks for nothing else; none when
        the scope holds no open task (the question is then searched)."""
        scopes = self._user_scopes(request.folders)
        rowids: list[int] = []
        try:
            for scope in scopes:
                flt = SearchFilter(
                    vault_ids=(scope.vault.id,),
                    folders=(scope.folder,) if scope.folder else (),
                    frontmatter=self._conditions,
                )
                held = self._store.chunks_holding(TASK_MARKS, flt, TASK_CHUNKS_AT_MOST)
                rowids.extend(r for r in held if r not in rowids)
            chunks = self._store.fetch_chunks(rowids)
        except StoreError:
            return self._finish([], [], OPEN_TASKS, 0, debug)
        counted = [(chunks[r], len(open_tasks(chunks[r].text))) for r in rowids if r in chunks]
        counted = [(chunk, n) for chunk, n in counted if n]
        counted.sort(key=lambda item: -(item[0].note_date or _NO_DATE).timestamp())
        kept: list[Candidate] = []
        listed = 0
        for chunk, n in counted:
            if listed >= TASKS_LISTED_AT_MOST:
                break
            kept.append(Candidate.unscored(chunk))
            listed += n
        folders = [s.label for s in scopes if s.folder]
        listing = Listing(scope_words(self._conditions, folders), sum(n for _, n in counted), True)
        if kept:
            debug.notes.append(
                f"the question asks only for the open tasks {listing.scope or 'of the notes'}: "
                "their unchecked items and TODO lines are listed, newest notes first, and "
                "nothing was searched"
            )
        found = self._finish(kept, kept, OPEN_TASKS, len(kept), debug)
        found.listing = listing
        return found

    def _user_scopes(self, folders: Sequence[str]) -> list[Scope]:
        """The request's ``folders`` as scopes, or each vault whole when it gives none."""
        pairs = [p for folder in folders for p in resolve_user_folder(folder, self._vaults)]
        scopes = [Scope(v, f, 1.0) for v, f in dict.fromkeys(pairs)]
        return scopes or [Scope(v, "", 1.0) for v in self._vaults]

    def _note_rowids(self, scopes: Sequence[Scope], limit: int, *extra: Condition) -> list[int]:
        """The first chunk of each of the ``limit`` most recent notes of each scope."""
        rowids: list[int] = []
        for scope in scopes:
            flt = SearchFilter(
                vault_ids=(scope.vault.id,),
                folders=(scope.folder,) if scope.folder else (),
                frontmatter=(*self._conditions, *extra),
            )
            rowids.extend(r for r in self._store.recent_chunks(flt, limit) if r not in rowids)
        return rowids

    def _recent(self, scopes: Sequence[Scope], k: int) -> list[Candidate]:
        """The first chunk of each of the ``k`` most recent notes over the scopes."""
        rowids = self._note_rowids(scopes, k)
        chunks = self._store.fetch_chunks(rowids)
        found = [Candidate.unscored(chunks[r]) for r in rowids if r in chunks]
        found.sort(key=lambda c: c.chunk.note_date.timestamp() if c.chunk.note_date else 0.0)
        return list(reversed(found))[:k]

    def _missing(self, question: str, kept: Sequence[Candidate]) -> MissingTerms:
        """Salient terms of ``question`` that no chunk of the vaults holds (one full-text
        lookup), and those that ``kept`` does not hold (see :meth:`_unseen_named`)."""
        salient = salient_terms(question)
        if not salient:
            return MissingTerms()
        flt = SearchFilter(vault_ids=tuple(v.id for v in self._vaults))
        try:
            found = self._mentioned(salient, flt, variants)
        except StoreError:
            return MissingTerms(tuple(salient))
        absent = tuple(t for t in salient if t not in found)
        names = name_groups(question, salient)
        return self._unseen_named(MissingTerms(tuple(salient), absent, names=names), kept)

    def _unseen_named(self, missing: MissingTerms, kept: Sequence[Candidate]) -> MissingTerms:
        """:meth:`_unseen`, less the terms a note of ``kept`` has as a tag or an alias (a
        trip log tagged ``denmark`` is about Denmark, though its text says Copenhagen)."""
        found = self._unseen(missing, kept)
        if not found.not_in_context:
            return found
        named = fold(" ".join(self._named_by(kept)))
        unseen = tuple(t for t in found.not_in_context if not _held_in(t, named))
        return replace(found, not_in_context=unseen)

    def _in_focus(self, candidate: Candidate) -> bool:
        """Is ``candidate`` of a note the context is narrowed to (any, when it is not)?"""
        return not self._focus or (candidate.chunk.vault, candidate.chunk.rel_path) in self._focus

    def _alias_named_first(
        self,
        question: str,
        scopes: Sequence[Scope],
        candidates: Sequence[Candidate],
        kept: list[Candidate],
        k: int,
        debug: DebugInfo,
    ) -> list[Candidate]:
        """``kept`` with the notes ``question`` names by an alias first ("my manager" of the
        note whose ``aliases`` say so): each note's best-ranked candidate, or its first chunk
        when no candidate is of it; as many as ``kept`` (at least one, at most ``k``: a note
        the question names is kept even when nothing else passed the thresholds)."""
        if not isinstance(self._store, FrontmatterFacets):
            return kept
        ids = [v.id for v in self._vaults]
        try:
            facets = self._store.frontmatter_facets(ids, list(ALIAS_KEYS))
            said = said_aliases(question, [a for key in ALIAS_KEYS for a in facets[key]])
            if not said:
                return kept
            rowids: list[int] = []
            for key in ALIAS_KEYS:  # within the folders and filters the request gives
                named = Condition(key, Op.IN, tuple(said))
                rowids.extend(self._note_rowids(scopes, ALIAS_NAMED_AT_MOST, named))
            chunks = self._store.fetch_chunks(rowids)
            fields = self._store.chunk_fields(list(chunks), list(ALIAS_KEYS))
        except StoreError:
            return kept
        naming = notes_named(question, said, chunks, fields)
        notes = self._alias_named = set(naming.notes)
        if naming.owners:  # "my manager's birthday": only the named note's lines answer it
            self._owners = Owners(naming.owners)
            debug.notes.append(
                "the question asks what a note it names holds ("
                + ", ".join(f"{alias!r}'s" for alias in naming.owning)
                + "): only that note's lines support the answer"
            )
        if not notes or (kept and (kept[0].chunk.vault, kept[0].chunk.rel_path) in notes):
            return kept
        ahead = best_of_notes(notes, candidates, chunks)
        shown = ", ".join(f"{c.chunk.vault}/{c.chunk.rel_path}" for c in ahead)
        said_as = ", ".join(repr(a) for a in said)
        debug.notes.append(
            f"the question names a note by its alias ({said_as}): {shown} read first"
        )
        taken = {c.rowid for c in ahead}
        return [*ahead, *(c for c in kept if c.rowid not in taken)][: max(len(kept), 1, k)]

    def _named_notes(
        self, question: str, kept: Sequence[Candidate], debug: DebugInfo
    ) -> dict[str, str]:
        """Each alias of a note of ``kept`` that ``question`` says -> the note's title (only
        a question that asks who someone is is read so: no store call for any other)."""
        if not asks_who(question) or not isinstance(self._store, FrontmatterFacets):
            return {}
        firsts: dict[tuple[str, str], Candidate] = {}
        for c in kept:
            firsts.setdefault((c.chunk.vault, c.chunk.rel_path), c)
        try:
            fields = self._store.chunk_fields([c.rowid for c in firsts.values()], ALIAS_KEYS)
        except StoreError:
            return {}
        notes = [
            (c.chunk.title, [v for key in ALIAS_KEYS for v in fields.get(c.rowid, {}).get(key, [])])
            for c in firsts.values()
        ]
        named = named_notes(question, notes)
        if named:
            said = ", ".join(f"{alias!r} as {title!r}" for alias, title in named.items())
            debug.notes.append(f"the question names notes by their aliases: {said}")
        return named

    def _named_by(self, kept: Sequence[Candidate]) -> list[str]:
        """The tags and aliases of the notes of ``kept`` (none where the store cannot say)."""
        if not isinstance(self._store, FrontmatterFacets):
            return []
        try:
            fields = self._store.chunk_fields([c.rowid for c in kept], list(NAMING_KEYS))
        except StoreError:
            return []
        return [value for by_key in fields.values() for each in by_key.values() for value in each]

    @staticmethod
    def _unseen(missing: MissingTerms, kept: Sequence[Candidate]) -> MissingTerms:
        """``missing`` with ``not_in_context`` set to the salient terms in the vaults that no
        chunk of ``kept`` holds, in its text or in the name, title and headings the context
        shows it under (a note titled "Workspace CLI" mentions the CLI)."""
        context = fold(" ".join(" ".join(_shown_text(c.chunk).split()) for c in kept))
        unseen = [
            t
            for t in missing.salient
            if t not in missing.not_in_vaults and not _held_in(t, context)
        ]
        if unseen:  # the context's words are stemmed only when a term is not there as written
            stems = {stem(word) for word in tokenize(context)}
            unseen = [t for t in unseen if not _same_word_held(t, stems)]
        return replace(missing, not_in_context=tuple(unseen))

    def _waiting_for_vectors(self) -> frozenset[tuple[str, str]]:
        """(vault, rel path) of the searched notes that have a chunk with no vector yet."""
        model_id = self._embedder.model_id
        try:
            return frozenset(
                (v.name, p)
                for v in self._vaults
                for p in self._store.notes_waiting_for_vectors(v.id, model_id)
            )
        except StoreError:
            return frozenset()

    def _finish(
        self,
        candidates: list[Candidate],
        kept: list[Candidate],
        strategy: str,
        k: int,
        debug: DebugInfo,
    ) -> Retrieved:
        if self._waiting:
            strategy += PARTIAL_VECTORS
            debug.notes.append(
                f"{len(self._waiting)} notes still wait for their vectors (indexing is not done): "
                "they are found by keyword only"
            )
        debug.strategy = strategy
        debug.reranker = self._options.reranker
        empty = not candidates and not any(
            status.notes
            for status in self._store.vault_status()
            if status.name in {v.name for v in self._vaults}
        )
        return Retrieved(candidates, kept, strategy, k, empty, debug, readings=dict(self._readings))


ALIAS_KEYS = ("aliases", "alias")
"""Frontmatter keys whose values are the names a note goes by."""

ALIAS_NAMED_AT_MOST = 3
"""The most notes one question's aliases name that are read first."""

NAMING_KEYS = ("tags", "tag", *ALIAS_KEYS)
"""Frontmatter keys whose values name what a note is about: a question's term among them is
not absent from a context that holds the note."""


def _shown_text(chunk: StoredChunk) -> str:
    """What the context shows of ``chunk``: its note's file name without its extension (as
    written, and with its separators read as spaces; the header always shows it, its folders
    only at times), title and heading path, then its text."""
    name = PurePosixPath(chunk.rel_path).stem
    spaced = re.sub(r"[._-]+", " ", name)
    return "\n".join((name, spaced, chunk.title, chunk.heading_path, chunk.text))


def _held_in(term: str, text: str) -> bool:
    """Does ``text`` (without accents) hold ``term`` in one of its :func:`variants`, where a
    word starts (:func:`_starts_a_word`)?"""
    return any(_starts_a_word(" ".join(v.split()), text) for v in variants(term))


def _starts_a_word(form: str, text: str) -> bool:
    """Does ``text`` hold ``form`` (in any case) where a word or a part of a CamelCase word
    starts: "mac" in "macOS", "Git" in "GitHub", "TeX" in "KaTeX", but not "ios" in
    "scenarios" or "aws" in "draws". (A word that only starts like the term holds it too,
    "Mac" in "machine": a form the notes write with an ending is held the same way.)
    ``text`` comes without accents (:func:`~notecite.retrieve.terms.fold`), and ``form``'s do
    not count: "Ogedei" is in "Ögedei's"."""
    form = fold(form)
    for found in re.finditer(re.escape(form), text, re.IGNORECASE):
        start = found.start()
        before = text[start - 1] if start else " "
        if not before.isalnum() or (before.islower() and text[start].isupper()):
            return True
    return False


def _same_word_held(term: str, stems: set[str]) -> bool:
    """Does the text hold a form of the one-word ``term`` ("Palestinian" for "Palestine",
    "Germans" for "German"): a word of it that starts with the term's stem?"""
    if not term.isalpha():
        return False
    root = stem(term.lower())
    return len(root) >= 5 and any(held.startswith(root) for held in stems)
