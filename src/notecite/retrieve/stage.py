"""The retrieval stage: scope, embed, search, fuse, rerank, select, auto-RAG.

:class:`RetrievalStage` turns an AskRequest into ranked candidates and the ones kept for the
context (:meth:`RetrievalStage.retrieve`, what ask and chat use), or into the top candidates
of each vault without thresholds (:meth:`RetrievalStage.search`, what search uses): one
ranking path for both. It owns the query-embedding and search-result caches' use, the
auto-RAG pass, and the fallback to the most recent notes when nothing can be searched.

The steps it takes in turn live in their own modules: the question as it is searched
(:mod:`~notecite.retrieve.searched_question`), the folders searched
(:mod:`~notecite.retrieve.folder_scopes`), the notes of a scope found without a search
(:mod:`~notecite.retrieve.scope_notes`: a listing, the open tasks, those due in a window,
the notes linking to a note, the notes mentioning something, the notes of a day), the
terms the notes mention
(:mod:`~notecite.retrieve.mentions`) and the notes a question names by an alias
(:mod:`~notecite.retrieve.alias_lookup`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from notecite.config import AskSettings
from notecite.embed.base import Embedder, Vectors
from notecite.errors import EmbeddingError, StoreError
from notecite.filters import Condition
from notecite.generate.base import LLM, Judge, Owners
from notecite.retrieve.alias_lookup import AliasLookup, AliasNamed
from notecite.retrieve.answerability import DEFAULT_MODEL, features
from notecite.retrieve.autok import automatic_k
from notecite.retrieve.autorag import AutoRag, AutoRagOptions
from notecite.retrieve.backlinks import asked_target
from notecite.retrieve.cache import RetrievalCaches, vector_key
from notecite.retrieve.dated_sections import newest_entry_first
from notecite.retrieve.due_window import DueWindow, asked_due_window
from notecite.retrieve.folder_scopes import FolderScopes, rank_folders_by_scores
from notecite.retrieve.folders import Scope, resolve_user_folder
from notecite.retrieve.frontmatter import no_note_left, request_filters
from notecite.retrieve.latest import asks_for_latest, latest_first
from notecite.retrieve.listing import Listing, asks_for_every_note, asks_for_listing
from notecite.retrieve.mentioning import asked_mention
from notecite.retrieve.mentions import MentionLookup
from notecite.retrieve.parts import question_parts
from notecite.retrieve.rerank import final_score, lexical_score
from notecite.retrieve.rerankers.base import Reranker
from notecite.retrieve.retriever import Candidate, Retrieval, RetrievalOptions, Retriever
from notecite.retrieve.salient import MissingTerms
from notecite.retrieve.scope_notes import ScopeNotes
from notecite.retrieve.searched_question import QuestionReader
from notecite.retrieve.tasks import asks_for_open_tasks, task_owners
from notecite.retrieve.terms import query_terms
from notecite.retrieve.timehints import TimeRange, parse_time_hint
from notecite.retrieve.whole_note import asks_of_a_time, asks_of_the_whole
from notecite.schemas.ask import AskRequest, AutoRagMode, DebugInfo
from notecite.store.base import Store
from notecite.types import Vault

RECENT_NOTES = "recent_notes"
"""The strategy label of a context made of the most recent notes (nothing could be searched)."""

LISTING = "listing"
"""The strategy of a question that asks only for the notes of its scope: they are listed."""

NOTES_OF_A_TIME = "notes_of_a_time"
"""The strategy of a question that asks what the notes of a day or a time hold: the notes
dated then are the context."""

OPEN_TASKS = "open_tasks"
"""The strategy of a question that asks only for what is still to do: the open tasks are
listed."""

DUE_TASKS = "due_tasks"
"""The strategy of a question that asks only for the open tasks due in a window ("What's due
this week?"): those dated within it are listed by date."""

BACKLINKS = "backlinks"
"""The strategy of a question that asks which notes link to a note: they are listed, each
at the line of its link."""

MENTIONS = "mentions"
"""The strategy of a question that asks which notes mention something: they are listed,
each at its first line that holds it."""

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
    whole_note: tuple[str, str] | None = None
    """A note (vault, path) the question asks about as a whole, read first
    (:mod:`notecite.retrieve.whole_note`): the newest of a series asked what it holds, the
    one note of a day asked what happened; None for any other question."""


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
        now: Callable[[], datetime] | None = None,
    ) -> None:
        """``now`` tells the moment a question is asked at, which its time words ("this
        week", "What's due tomorrow?") are read from (the system clock, in UTC, when None)."""
        self._now = now or (lambda: datetime.now(UTC))
        self._store = store
        self._embedder = embedder
        self._llm = llm
        self._settings = settings
        self._vaults = list(vaults)
        self._options = options
        self._caches = caches
        self._reranker = reranker
        self._waiting: frozenset[tuple[str, str]] = frozenset()
        self._conditions: tuple[Condition, ...] = ()
        self._readings: dict[str, str] = {}
        self._mentions = MentionLookup(store, self._vaults)
        self._folder_scopes = FolderScopes(llm, settings, self._vaults, folders_of, caches)
        self._reader = QuestionReader(
            store, self._vaults, self._mentions, self._folder_scopes.labels
        )

    # -- stages -----------------------------------------------------------------------------

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

    def _off_topic(self, question: str, debug: DebugInfo) -> bool:
        """Is a weakly retrieved question off-topic: are ``auto_rag_max_absent`` of its
        terms in no note of the vaults? A second pass cannot find words no note holds, so
        auto-RAG then stays off and asks the model nothing (``debug.auto_rag`` says why)."""
        terms = query_terms(question)
        limit = self._settings.auto_rag_max_absent
        if not terms or limit >= 1:
            return False
        try:
            found = self._mentions.mentioned(terms)
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
        searched = self._reader.read(request, debug)
        request, self._conditions = searched.request, searched.conditions
        self._readings = searched.readings
        if no_note_left(self._store, self._vaults, self._conditions):
            debug.notes.append(f"no note meets the filters {', '.join(debug.filters)}")
            found = self._finish([], [], self._options.strategy, 0, debug)
            found.filtered_out = True
            return found
        scope_notes = ScopeNotes(self._store, self._vaults, self._conditions)
        written = [c.source for c in self._conditions]
        now = self._now()
        window = asked_due_window(searched.asked, written, now)
        if window is not None:
            owners = task_owners(request.question)
            due = self._due_tasks(request.folders, owners, window, scope_notes, debug)
            if due is not None:
                return due
        if asks_for_open_tasks(request.question, written):
            owners = task_owners(request.question)
            tasks = self._open_tasks(request.folders, owners, scope_notes, debug)
            if tasks is not None:
                return tasks
        said = asked_target(request.question)
        if said is not None:
            linking = self._backlinks(request.folders, said, scope_notes, debug)
            if linking is not None:
                return linking
        thing = asked_mention(request.question, written)
        if thing is not None:
            mentioning = self._mentioning(request.folders, thing, scope_notes, debug)
            if mentioning is not None:
                return mentioning
        period = asks_of_a_time(request.question, now)
        if period is not None:
            dated = self._notes_of_a_time(request.folders, scope_notes, period, debug)
            if dated is not None:
                return dated
        scoped = (written or request.folders) and asks_for_listing(request.question, written)
        if scoped or asks_for_every_note(request.question):  # "How many notes do I have?"
            return self._listing(request.folders, scope_notes, debug)
        query = self._embed_or_none(request.question, debug)

        t = time.perf_counter()
        scopes = self._folder_scopes.scopes(request, debug)
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
        time_range = parse_time_hint(request.question, now)
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
            recent = scope_notes.recent(scopes, k)
            debug.strategy = RECENT_NOTES
            debug.notes.append(
                "the question could not be embedded and no keyword matched: "
                f"the {len(recent)} most recent notes are the context"
            )
            return self._finish(recent, recent, RECENT_NOTES, k, debug)

        # Salient names no note holds settle the answer ("your notes don't mention X") when
        # they are a third of the question's names (salient.SETTLING_SHARE): no second pass,
        # and no model call for one.
        absent = self._mentions.missing(request.question, kept) if kept else MissingTerms()
        t = time.perf_counter()
        if not absent.settled:
            retrieval, kept = self._auto_rag(
                request, retriever, query, scopes, time_range, retrieval, kept, k, debug
            )
        timings.auto_rag = (time.perf_counter() - t) * 1000
        latest = asks_for_latest(request.question) if time_range is None else None
        newest: tuple[str, str] | None = None
        if latest and kept:
            kept, newest = self._latest_first(
                request.question,
                retriever,
                query,
                scopes,
                kept,
                retrieval.candidates,
                latest,
                debug,
            )
        aliases = AliasLookup(self._store, self._vaults, scope_notes)
        named = AliasNamed(kept)
        if not absent.settled:
            named = aliases.named_first(
                request.question,
                scope_notes.scopes(request.folders),
                retrieval.candidates,
                kept,
                max(k, 1),
                debug,
            )
            kept = named.kept
        found = self._finish(retrieval.candidates, kept, self._options.strategy, k, debug)
        if newest is not None and kept and (kept[0].chunk.vault, kept[0].chunk.rel_path) == newest:
            first = kept[0].chunk
            if asks_of_the_whole(request.question, first.vault, first.rel_path, first.title):
                found.whole_note = newest
                debug.notes.append(
                    "the question asks what the newest note holds as a whole: it is read whole"
                )
        if self._settings.folder_ranking == "scores":
            rank_folders_by_scores(retrieval.candidates, debug)
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
                found.missing = self._mentions.unseen_named(absent, context)
            else:
                found.missing = self._mentions.missing(request.question, context)
            debug.missing_terms = list(found.missing.not_in_vaults)
            debug.absent_from_context = list(found.missing.not_in_context)
            focus: frozenset[tuple[str, str]] = frozenset()  # the only notes kept, if any
            # the gate reads what the question's own search kept, as it was fitted on
            if query is not None and not found.missing.settled:
                # the asker's words: the gate reads no word the search added ("(wed)")
                focus = self._gate(searched.asked, found, named.notes, debug)
            if found.kept:
                found.kept = [
                    c for c in context if not focus or (c.chunk.vault, c.chunk.rel_path) in focus
                ]
                found.named = aliases.named_notes(request.question, found.kept, debug)
                found.owners = named.owners
                listed = {c.rowid for c in found.candidates}
                found.candidates = [
                    *found.candidates,
                    *(c for c in context if c.rowid not in listed),
                ]
        else:  # nothing to answer from: the abstention names what no note mentions
            found.missing = self._mentions.missing(request.question, [])
            debug.missing_terms = list(found.missing.not_in_vaults)
        return found

    def _latest_first(
        self,
        question: str,
        retriever: Retriever,
        query: Vectors | None,
        scopes: Sequence[Scope],
        kept: list[Candidate],
        candidates: Sequence[Candidate],
        phrase: str,
        debug: DebugInfo,
    ) -> tuple[list[Candidate], tuple[str, str] | None]:
        """``kept`` with the newest relevant note of the series the question is about first
        (:func:`notecite.retrieve.latest.latest_first`), searching again from a date on,
        and that note (vault, path; None when there is no series); with no series, the
        newest entry of the dated log a kept chunk is in first
        (:func:`notecite.retrieve.dated_sections.newest_entry_first`)."""

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
            return ordered, newest
        ordered, log = newest_entry_first(question, kept, candidates)
        if log is not None:
            vault, path, parent = log
            debug.notes.append(
                f"the question asks for the newest ({phrase!r}): the newest dated entry of "
                f"{vault}/{path} > {parent or '(top of note)'}, "
                f"{ordered[0].chunk.heading_path!r}, is read first and its older entries are "
                "left out"
            )
        return ordered, None

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

    def _gate(
        self,
        question: str,
        found: Retrieved,
        alias_named: frozenset[tuple[str, str]],
        debug: DebugInfo,
    ) -> frozenset[tuple[str, str]]:
        """The calibrated answerability gate: drop the kept chunks (the ask abstains before
        any model call) when they are unlikely to answer ``question``. It reads scores of the
        embedder it was fitted on (MiniLM, either variant), and stays out of the way of any
        other.

        Returns the only notes (vault, path) a doubted context keeps: those of ``found.kept``
        the question names by an alias (``alias_named``), when the model is left to read
        them; none (every note is kept) otherwise."""
        focus: frozenset[tuple[str, str]] = frozenset()
        if self._embedder.model_id not in DEFAULT_MODEL.embedders:
            return focus
        signals = features(
            question,
            found.candidates,
            found.kept,
            self._mentions.mentioned,
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
            return focus
        read_threshold = self._settings.answerability_read_threshold
        if read_threshold is None:
            read_threshold = model.read_threshold
        named = {(c.chunk.vault, c.chunk.rel_path) for c in found.kept} & alias_named
        if named and self._reads():
            # the question is about the note it names: the rest of a doubted context is noise
            debug.notes.append(
                f"answerability {probability:.3f} under {threshold:.3f}, but the question names "
                "a note by its alias: only that note is kept, and the model is asked whether "
                "it answers before it writes"
            )
            found.read_first = True
            return frozenset(named)
        if probability >= read_threshold and self._reads():
            debug.notes.append(
                f"answerability {probability:.3f} under {threshold:.3f}: the model is asked "
                "whether the kept chunks answer before it writes"
            )
            found.read_first = True
            return focus
        debug.notes.append(
            f"answerability {probability:.3f} under {threshold:.3f}: the kept chunks are "
            "unlikely to answer; abstaining before any model call"
        )
        found.kept = []
        return focus

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
        question = self._reader.as_searched(found.question, debug).question
        query = self._embed_or_none(question, debug)
        pairs = [p for f in folders for p in resolve_user_folder(f, self._vaults)]
        scopes = [Scope(v, f, 1.0) for v, f in dict.fromkeys(pairs)] or [
            Scope(v, "", 1.0) for v in self._vaults
        ]
        per_scope = max(self._settings.hits_per_scope, limit)
        retriever = self._retriever()
        time_range = parse_time_hint(question, self._now())
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

    def _listing(
        self, folders: Sequence[str], scope_notes: ScopeNotes, debug: DebugInfo
    ) -> Retrieved:
        """The notes of the request's scope (its filters and ``folders``), newest first, for
        a question that asks for nothing else."""
        notes, listing = scope_notes.listing(folders)
        debug.notes.append(
            f"the question asks only for the notes {listing.scope}: they are listed, newest "
            "first, and nothing was searched"
        )
        return self._listed(notes, listing, LISTING, debug)

    def _notes_of_a_time(
        self,
        folders: Sequence[str],
        scope_notes: ScopeNotes,
        period: TimeRange,
        debug: DebugInfo,
    ) -> Retrieved | None:
        """The notes of the request's scope dated in ``period``, newest first (the first
        chunk of each, at most ``ask.k_default``), for a question that asks what they hold; the
        one note of such a time is read whole. None when no note is dated then (the question
        is then searched)."""
        try:
            kept = scope_notes.dated(folders, period, self._settings.k_default)
        except StoreError:
            return None
        if not kept:
            return None
        debug.notes.append(
            f"the question asks what the notes of {period.phrase!r} hold: the {len(kept)} "
            "notes dated then are the context, newest first, and nothing was searched"
        )
        found = self._finish(kept, kept, NOTES_OF_A_TIME, len(kept), debug)
        notes = {(c.chunk.vault, c.chunk.rel_path) for c in kept}
        if len(notes) == 1:
            found.whole_note = notes.pop()
        return found

    def _open_tasks(
        self,
        folders: Sequence[str],
        owners: Sequence[str],
        scope_notes: ScopeNotes,
        debug: DebugInfo,
    ) -> Retrieved | None:
        """The chunks holding the open tasks of the request's scope (its filters and
        ``folders``; those naming one of ``owners`` when it gives any), newest notes first,
        for a question that asks for nothing else; None when the scope holds no such task
        (the question is then searched)."""
        try:
            kept, listing = scope_notes.open_tasks(folders, owners)
        except StoreError:
            return None
        if not kept:
            return None
        scope = f" {listing.scope}" if listing.scope else ""
        debug.notes.append(
            f"the question asks only for the open tasks{scope}: their unchecked items and TODO "
            "lines are listed, newest notes first, and nothing was searched"
        )
        return self._listed(kept, listing, OPEN_TASKS, debug)

    def _due_tasks(
        self,
        folders: Sequence[str],
        owners: Sequence[str],
        window: DueWindow,
        scope_notes: ScopeNotes,
        debug: DebugInfo,
    ) -> Retrieved | None:
        """The chunks holding the open tasks of the request's scope (its filters and
        ``folders``; those naming one of ``owners`` when it gives any) dated within
        ``window``, by date, for a question that asks for nothing else; with none, the chunk
        holding the dated task nearest it, or nothing (the answer says that none is due, or
        that none has a date: a search would answer from notes that are no task). None when
        the question names owners none of whose tasks has a date ("What is Apollo's
        deadline?" may be about a project: it is then searched)."""
        try:
            kept, listing = scope_notes.open_tasks(folders, owners, window)
        except StoreError:
            return None
        if owners and not kept:
            return None
        asked = " ".join(
            part for part in ("the open tasks", listing.scope, window.said) if part
        ) + (f" ({window.phrase!r})" if window.phrase else "")
        debug.notes.append(
            f"the question asks only for {asked}: {listing.total} listed by date, and nothing "
            "was searched"
            if listing.total
            else f"the question asks only for {asked}: there is none, and nothing was searched"
        )
        return self._listed(kept, listing, DUE_TASKS, debug)

    def _backlinks(
        self, folders: Sequence[str], said: str, scope_notes: ScopeNotes, debug: DebugInfo
    ) -> Retrieved | None:
        """The notes of the request's scope that link to the note ``said`` names, newest
        first, each at its link's line (the note alone when none links to it); None when no
        note is so named (the question is then searched)."""
        try:
            target = scope_notes.named(said)
            if target is None:
                debug.notes.append(f"the question asks what links to {said!r}: no note is so named")
                return None
            kept, listing = scope_notes.linking(folders, target)
        except StoreError:
            return None
        debug.notes.append(
            f"the question asks which notes link to {target.vault}/{target.rel_path}: the "
            f"{listing.total} linking notes {listing.scope} are listed from the links recorded "
            "at index time, newest first, and nothing was searched"
        )
        return self._listed(kept, listing, BACKLINKS, debug)

    def _mentioning(
        self, folders: Sequence[str], thing: str, scope_notes: ScopeNotes, debug: DebugInfo
    ) -> Retrieved | None:
        """The notes of the request's scope that mention ``thing``, newest first, each at its
        first line that holds it; None when none does (the question is then searched)."""
        try:
            kept, listing = scope_notes.mentioning(folders, thing)
        except StoreError:
            return None
        where = f" {listing.scope}" if listing.scope else ""
        debug.notes.append(
            f"the question asks which notes mention {thing!r}: the {listing.total} notes"
            f"{where} whose text holds it are listed, newest first, and nothing was searched"
            if kept
            else f"the question asks which notes mention {thing!r}: no note's text holds it"
        )
        return self._listed(kept, listing, MENTIONS, debug) if kept else None

    def _listed(
        self, kept: list[Candidate], listing: Listing, strategy: str, debug: DebugInfo
    ) -> Retrieved:
        """What was found for a listing: ``kept`` as the candidates and the context, with
        ``listing`` saying what the answer lists."""
        found = self._finish(kept, kept, strategy, len(kept), debug)
        found.listing = listing
        return found

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
