"""Engine: the use cases (vaults, index, status, search, retrieve, ask, chat), one place.

The components it works with (store, embedder, LLMs, reranker, caches) are built lazily by
:mod:`notecite.wiring`; the retrieval stage and the ask pipeline are built here, once each.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Literal

from notecite.chat import ChatRequest, ChatResponse, ChatService, SessionStore
from notecite.chat.prompts import fixed_chat_prompt
from notecite.chat.sessions import check_tenant
from notecite.config import AskSettings, Settings
from notecite.embed.base import Embedder
from notecite.errors import VaultError
from notecite.generate.answer import TokenCallback, read_fixed_prompt
from notecite.generate.base import LLM, ModelProgress, Preparable
from notecite.generate.prompts import fixed_answer_prompt
from notecite.ingest.indexer import VaultIndexer
from notecite.ingest.note_files import note_path, read_note_text
from notecite.ingest.progress import ProgressCallback
from notecite.pipeline import AskPipeline, grounder_for
from notecite.querylog import query_log_record
from notecite.retrieve.cache import RetrievalCaches
from notecite.retrieve.rerankers import Reranker
from notecite.retrieve.retriever import RetrievalOptions
from notecite.retrieve.stage import RetrievalStage, Retrieved
from notecite.schemas.ask import AskRequest, AskResponse, DebugInfo
from notecite.store.base import Store, bulk_load, index_lock, index_runs, mark_indexed
from notecite.store.factory import QueryLog
from notecite.types import IndexReport, IndexStatus, SearchResult, Vault
from notecite.wiring import Components

logger = logging.getLogger(__name__)


class Engine:
    """Index vaults of notes, search them and answer from them; nothing is opened or loaded
    until first use (close it, or use it as a context manager). ``store``, ``embedder`` and
    ``llm`` replace the configured ones; ``clock`` tells the moment a question is asked at,
    which its time words ("this week", "What's due tomorrow?") are read from (the system
    clock, in UTC, when None)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
        components: Components | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.clock = clock
        self.parts = components or Components.build(
            self.settings, store=store, embedder=embedder, llm=llm
        )

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- components -------------------------------------------------------------------------

    @property
    def tenant(self) -> str:
        """The tenant whose vaults, notes and sessions this engine serves."""
        return self.parts.tenant

    @property
    def store(self) -> Store:
        """The index store (opened on first use)."""
        return self.parts.store

    @property
    def embedder(self) -> Embedder:
        """The configured embedder (its model loads on first embedding)."""
        return self.parts.embedder

    @property
    def reranker(self) -> Reranker | None:
        """The model reranker of ``retrieval.reranker`` (None for lexical/none)."""
        return self.parts.reranker

    @property
    def caches(self) -> RetrievalCaches:
        """The query-embedding and search-result caches of this tenant."""
        return self.parts.caches

    def llm(self, name: str | None = None) -> LLM:
        """The LLM provider ``name`` (default: the configured one), built once."""
        return self.parts.llm(name)

    def prepare_llm(
        self,
        name: str | None = None,
        progress: ModelProgress | None = None,
        first_use: Literal["ask", "chat"] = "ask",
    ) -> bool:
        """Make the LLM ``name`` ready now (the local model: assemble once, load, and read
        the fixed start of the prompts of ``first_use`` into its cache: answers, or chat
        turns with the default system prompt), so the first question does not wait for it;
        False when it has nothing to prepare or is ready already."""
        llm = self.llm(name)
        if not isinstance(llm, Preparable) or llm.ready:
            return False
        llm.prepare(progress)
        fixed = fixed_chat_prompt() if first_use == "chat" else fixed_answer_prompt()
        read_fixed_prompt(llm, fixed)
        return True

    def for_tenant(self, tenant: str) -> Engine:
        """An Engine over ``tenant``'s vaults, notes and sessions (created when new), sharing
        this engine's models; closing it closes only its own store and caches."""
        return Engine(self.settings, components=self.parts.for_tenant(tenant), clock=self.clock)

    def close(self) -> None:
        """Close the store and any provider client that holds connections."""
        self.parts.close()

    def check_embedder(self) -> None:
        """Refuse to mix embedding models in one index."""
        self.parts.check_embedder()

    # -- vaults -----------------------------------------------------------------------------

    def add_vault(self, name: str, path: Path) -> Vault:
        """Register a folder of notes under ``name``."""
        if not name or "/" in name or name != name.strip():
            raise VaultError(f"invalid vault name {name!r}: use a non-empty name without '/'")
        resolved = path.expanduser().resolve()
        if not resolved.is_dir():
            raise VaultError(f"vault folder not found: {path}")
        return self.store.add_vault(name, resolved)

    def remove_vault(self, name: str) -> None:
        """Forget a vault and everything indexed from it (the files are untouched)."""
        self.store.remove_vault(name)

    def vaults(self) -> list[Vault]:
        """Registered vaults, by name."""
        return self.store.list_vaults()

    def vault(self, name: str) -> Vault:
        """The vault called ``name``, or a VaultError that lists the known ones."""
        found = self.store.get_vault(name)
        if found is None:
            known = ", ".join(v.name for v in self.vaults()) or "none yet"
            raise VaultError(f"unknown vault {name!r}; known vaults: {known}")
        return found

    def folders(self, vault: str) -> list[str]:
        """The folders of ``vault``'s indexed notes (``a/b`` form), for scoping a question."""
        return self.store.folders(self.vault(vault).id)

    def note_text(self, vault: str, rel_path: str) -> str:
        """The text of the indexed note ``rel_path`` of ``vault``, as its file holds it now.

        Raises:
            VaultError: unknown vault; a path that is absolute, has ``..`` or leads out of
                the vault's folder; a file that is not an indexed note, or not text.
        """
        found = self.vault(vault)
        file = note_path(found.path, rel_path)
        state = self.store.note_states(found.id).get(rel_path)
        if state is None or state.failed:
            raise VaultError(f"{rel_path!r} is not an indexed note of vault {vault!r}")
        return read_note_text(file)

    # -- indexing ---------------------------------------------------------------------------

    def index(
        self,
        vault: str | None = None,
        *,
        progress: ProgressCallback | None = None,
        rebuild: bool = False,
        stop: threading.Event | None = None,
    ) -> list[IndexReport]:
        """Index one vault, or every vault; ``rebuild`` drops the whole index first (raises
        IndexBusyError when another run holds a vault past ``index.lock_wait_s``). Every
        note is findable by keyword as soon as it is written, before its vectors; setting
        ``stop`` ends the run after the note or batch at hand, keeping what was written
        (the reports say ``interrupted``)."""
        targets = [self.vault(vault)] if vault else self.vaults()
        locked = self.vaults() if rebuild else targets
        with index_lock(
            self.store, [(v.id, v.name) for v in locked], self.settings.index.lock_wait_s
        ):
            if rebuild:
                self.store.clear_index()
                self.parts.choose_embedder_again()  # a rebuilt index takes the configured one
            self.check_embedder()
            reports = []
            for target in targets:
                if stop is not None and stop.is_set():
                    break
                reports.append(self._index_vault(target, progress, stop))
            return reports

    def _index_vault(
        self, target: Vault, progress: ProgressCallback | None, stop: threading.Event | None
    ) -> IndexReport:
        if not target.path.is_dir():
            raise VaultError(
                f"vault {target.name!r} points to a missing folder {target.path}; "
                f"fix it with: notecite vault remove {target.name} && "
                f"notecite vault add {target.name} NEW_PATH"
            )
        warmer = self.parts.reranker_warmer()
        indexer = VaultIndexer(self.store, self.embedder, self.settings.index, target, warmer, stop)
        with bulk_load(self.store):  # PostgreSQL: a first load builds its HNSW at the end
            report = indexer.run(progress)
        if not report.interrupted:
            mark_indexed(self.store, target.id, datetime.now(UTC))
        logger.info("%s", report.summary())
        return report

    def status(self) -> IndexStatus:
        """Per-vault counts, failures, notes waiting for vectors, when each was last indexed
        and whether a run (of any process) indexes it now; the embedding model of the
        index."""
        info = self.store.embedder_info()
        model_id = info[0] if info else self.embedder.model_id
        ids = {v.name: v.id for v in self.store.list_vaults()}
        indexed, holders = index_runs(self.store)
        vaults = tuple(
            replace(
                v,
                waiting_for_vectors=len(
                    self.store.notes_waiting_for_vectors(ids[v.name], model_id)
                ),
                indexed_at=indexed.get(ids[v.name]),
                indexing=holders.get(ids[v.name]),
            )
            if v.name in ids
            else v
            for v in self.store.vault_status()
        )
        return IndexStatus(
            vaults=vaults,
            embedder_model=info[0] if info else None,
            embedder_dimensions=info[1] if info else None,
            caches=self.caches.stats(),
        )

    # -- retrieval --------------------------------------------------------------------------

    def retrieval_options(self, strategy: str | None = None) -> RetrievalOptions:
        """Retrieval options from settings (``strategy`` overrides the configured one)."""
        return RetrievalOptions.from_settings(self.settings, strategy)

    def retrieval_stage(
        self, vaults: Sequence[str] = (), *, llm: LLM | None = None, ask: AskSettings | None = None
    ) -> RetrievalStage:
        """The retrieval stage over ``vaults`` (default: every vault); ``llm`` ranks folders
        and writes auto-RAG queries, ``ask`` replaces the configured ask settings."""
        self.check_embedder()
        store = self.store
        return RetrievalStage(
            store,
            self.embedder,
            llm or self.llm(),
            ask or self.settings.ask,
            [self.vault(name) for name in vaults] or self.vaults(),
            lambda vault: store.folders(vault.id),
            self.retrieval_options(),
            caches=self.caches,
            reranker=self.reranker,
            now=self.clock,
        )

    def retrieve(
        self,
        request: AskRequest,
        *,
        llm: LLM | None = None,
        ask: AskSettings | None = None,
        debug: DebugInfo | None = None,
    ) -> Retrieved:
        """The retrieval stage for one question: ranked candidates and the ones kept."""
        stage = self.retrieval_stage(request.vaults, llm=llm, ask=ask)
        return stage.retrieve(request, debug)

    def search(
        self,
        query: str,
        *,
        vaults: Sequence[str] = (),
        folders: Sequence[str] = (),
        k: int | None = None,
        filters: Sequence[str] = (),
    ) -> list[SearchResult]:
        """The top ``k`` chunks for ``query``, ranked exactly as ask ranks its candidates,
        among the notes that meet every frontmatter filter (``tags=atlas``, ...)."""
        if not query.strip():
            raise ValueError("query is empty")
        limit = k or self.settings.search.k
        stage = self.retrieval_stage(vaults)
        return [c.as_search_result() for c in stage.search(query, folders, limit, filters)]

    # -- asking -----------------------------------------------------------------------------

    def ask(self, request: AskRequest, on_token: TokenCallback | None = None) -> AskResponse:
        """Answer from the notes, citing the chunks used; ``on_token`` receives the stream."""
        llm = self.llm(request.llm)
        stage = self.retrieval_stage(request.vaults, llm=llm)
        pipeline = AskPipeline(
            stage.retrieve,
            llm,
            self.settings.ask,
            self.settings.generation,
            self.embedder.count_tokens,
            grounder_for(self.settings.ask, self.embedder, self.clock),
            self.parts.note_lines,
        )
        started = time.perf_counter()
        response = pipeline.ask(request, on_token)
        if self.settings.ask.log_queries and self.parts.keeps_query_log:
            elapsed_ms = (time.perf_counter() - started) * 1000
            self.query_log().record(
                query_log_record(request.question, response, llm.name, elapsed_ms)
            )
        return response

    def query_log(self) -> QueryLog:
        """The questions and answers of ``ask`` (kept unless ``ask.log_queries`` is off)."""
        return self.parts.query_log()

    # -- chat -------------------------------------------------------------------------------

    def open_sessions(self) -> SessionStore:
        """The chat sessions kept beside the index, on their own connection(s): close it."""
        return self.parts.open_sessions()

    def chat(
        self,
        request: ChatRequest,
        *,
        sessions: SessionStore | None = None,
        on_token: TokenCallback | None = None,
    ) -> ChatResponse:
        """Answer a chat message in its session (a new one without ``session_id``), in the
        open ``sessions`` (default: opened for this call); ``on_token`` gets the stream."""
        check_tenant(request.tenant_id, self.tenant)
        request = request.model_copy(update={"tenant_id": None})  # checked: this engine's
        store = sessions if sessions is not None else self.open_sessions()
        try:
            service = ChatService(
                store,
                llm_for=self.llm,
                retrieve=lambda query, llm, ask, debug: self.retrieve(
                    query, llm=llm, ask=ask, debug=debug
                ),
                count_tokens=self.embedder.count_tokens,
                grounder=grounder_for(self.settings.ask, self.embedder, self.clock),
                note_lines=self.parts.note_lines,
                chat=self.settings.chat,
                ask=self.settings.ask,
                generation=self.settings.generation,
            )
            return service.send(request, on_token)
        finally:
            if sessions is None:
                store.close()
