"""Engine: the one place that knows every stage (store, embedder, indexer, retrieval)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from notecite.chat import ChatRequest, ChatResponse, ChatService, SessionStore
from notecite.chat.sessions import check_tenant
from notecite.config import DEFAULT_TENANT, AskSettings, Settings
from notecite.embed.base import Embedder, Vectors
from notecite.embed.registry import create_embedder
from notecite.errors import (
    ConfigError,
    EmbedderMismatchError,
    EmbeddingError,
    RerankError,
    VaultError,
)
from notecite.generate.base import LLM
from notecite.generate.registry import create_llm
from notecite.ingest.indexer import ProgressCallback, VaultIndexer, WrittenCallback
from notecite.pipeline import AskPipeline, TokenCallback
from notecite.querylog import query_log_record
from notecite.retrieve.cache import RetrievalCaches
from notecite.retrieve.fusion import FusionWeights
from notecite.retrieve.hybrid import HybridWeights, hybrid_search
from notecite.retrieve.rerankers import Reranker, RerankerContext, create_reranker
from notecite.retrieve.rerankers.base import Passage, WarmableReranker
from notecite.retrieve.retriever import RetrievalOptions
from notecite.schemas.ask import AskRequest, AskResponse
from notecite.store.base import Store, TenantStores, bulk_load, index_lock
from notecite.store.postgres import create_session_store as create_postgres_session_store
from notecite.store.postgres import create_store as create_postgres_store
from notecite.store.sqlite import SQLiteStore
from notecite.store.sqlite.query_log import SQLiteQueryLog
from notecite.store.sqlite.sessions import SQLiteSessionStore
from notecite.types import (
    Chunk,
    IndexReport,
    IndexStatus,
    NoteRecord,
    SearchFilter,
    SearchResult,
    Vault,
)

logger = logging.getLogger(__name__)


class Engine:
    """Index vaults of notes and search them.

    Nothing is opened or loaded until first use; use it as a context manager or call
    :meth:`close`.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.tenant = DEFAULT_TENANT
        self._parent: Engine | None = None
        self._store = store
        self._query_log: SQLiteQueryLog | None = None
        self._embedder = embedder
        self._llms: dict[str, LLM] = {}
        ask = self.settings.ask
        self.caches = RetrievalCaches(
            query_entries=ask.query_cache_entries,
            query_ttl_s=ask.query_cache_ttl_s,
            result_entries=ask.result_cache_entries,
            result_ttl_s=ask.query_cache_ttl_s,
        )
        self._reranker: Reranker | None = None
        if llm is not None:
            self._llms[llm.name] = llm
            self._default_llm: str | None = llm.name
        else:
            self._default_llm = self.settings.llm

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def store(self) -> Store:
        """The index store (opened on first use)."""
        if self._store is None:
            if self.settings.store.backend == "postgres":
                self._store = create_postgres_store(self.settings.store)
            else:
                self._store = SQLiteStore(self.settings.db_path)
        return self._store

    @property
    def embedder(self) -> Embedder:
        """The configured embedder (its model loads on first embedding)."""
        if self._embedder is None:
            self._embedder = create_embedder(self.settings.embedder)
        return self._embedder

    def llm(self, name: str | None = None) -> LLM:
        """The LLM provider ``name`` (default: configured, else local if installed, else
        extractive); each is built once and loads its model on first use."""
        if self._parent is not None:
            return self._parent.llm(name)
        wanted = name or self._default_llm
        if wanted is not None and wanted in self._llms:
            return self._llms[wanted]
        generation = self.settings.generation
        if generation.model_dir is None:
            generation = generation.model_copy(update={"model_dir": self.settings.home / "models"})
        provider = create_llm(wanted, generation)
        self._llms[provider.name] = provider
        if wanted is None:
            self._default_llm = provider.name
        return provider

    def for_tenant(self, tenant: str) -> Engine:
        """An Engine over the vaults, notes and sessions of ``tenant`` (created when new).

        It shares this engine's embedder, LLMs and reranker, so models load once; its
        retrieval caches are its own. Closing it closes only its store and query log. The
        SQLite and the PostgreSQL stores serve named tenants.
        """
        store = self.store
        if not isinstance(store, TenantStores):
            raise ConfigError(
                f"tenant {tenant!r}: this store serves only the tenant {DEFAULT_TENANT!r}"
            )
        tenant_store = store.for_tenant(tenant)
        child = Engine(self.settings, store=tenant_store, embedder=self.embedder)
        child.tenant = tenant
        child._parent = self
        return child

    def close(self) -> None:
        """Close the store and any provider client that holds connections."""
        if self._store is not None:
            self._store.close()
        if self._query_log is not None:
            self._query_log.close()
        if self._parent is not None:  # the providers are the parent's
            return
        for provider in [*self._llms.values(), self._embedder, self._reranker]:
            close = getattr(provider, "close", None)
            if callable(close):
                close()

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

    # -- indexing ---------------------------------------------------------------------------

    def check_embedder(self) -> None:
        """Refuse to mix embedding models in one index."""
        info = self.store.embedder_info()
        if info is not None and info[0] != self.embedder.model_id:
            raise EmbedderMismatchError(
                f"this index was built with the embedding model {info[0]!r} ({info[1]} "
                f"dimensions) but {self.embedder.model_id!r} is configured. Either set "
                f"embedder back, or rebuild the index with: notecite index --rebuild"
            )

    def index(
        self,
        vault: str | None = None,
        *,
        progress: ProgressCallback | None = None,
        rebuild: bool = False,
    ) -> list[IndexReport]:
        """Index one vault, or every vault; ``rebuild`` drops the whole index first.

        Raises:
            IndexBusyError: another run indexes one of the vaults, and did not finish
                within ``index.lock_wait_s``.
        """
        targets = [self.vault(vault)] if vault else self.vaults()
        locked = self.vaults() if rebuild else targets
        with index_lock(
            self.store, [(v.id, v.name) for v in locked], self.settings.index.lock_wait_s
        ):
            return self._index(targets, progress, rebuild)

    def _index(
        self, targets: list[Vault], progress: ProgressCallback | None, rebuild: bool
    ) -> list[IndexReport]:
        if rebuild:
            self.store.clear_index()
        self.check_embedder()
        reports = []
        for target in targets:
            if not target.path.is_dir():
                raise VaultError(
                    f"vault {target.name!r} points to a missing folder {target.path}; "
                    f"fix it with: notecite vault remove {target.name} && "
                    f"notecite vault add {target.name} NEW_PATH"
                )
            indexer = VaultIndexer(
                self.store, self.embedder, self.settings.index, target, self._reranker_warmer()
            )
            with bulk_load(self.store):  # PostgreSQL: a first load builds its HNSW at the end
                report = indexer.run(progress)
            logger.info("%s", report.summary())
            reports.append(report)
        return reports

    def _reranker_warmer(self) -> WrittenCallback | None:
        """With ``retrieval.e5_index_vectors``, a callback that computes the model
        reranker's passage work for chunks as they are written (cached by text, so only new
        text costs); None otherwise."""
        if not self.settings.retrieval.e5_index_vectors:
            return None
        reranker = self.reranker
        if not isinstance(reranker, WarmableReranker):
            return None

        def warm(written: list[tuple[NoteRecord, list[Chunk]]]) -> None:
            passages = [
                Passage(chunk.text, note.title, chunk.heading_path)
                for note, chunks in written
                for chunk in chunks
            ]
            try:
                done = reranker.warm(passages)
            except RerankError as exc:  # indexing goes on; the reranker fails again at ask
                logger.warning("%s passage vectors not computed: %s", reranker.name, exc)
                return
            if done:
                logger.info("%s: %d passage vectors computed", reranker.name, done)

        return warm

    def status(self) -> IndexStatus:
        """Per-vault counts and failures, and the embedding model of the index."""
        info = self.store.embedder_info()
        return IndexStatus(
            vaults=tuple(self.store.vault_status()),
            embedder_model=info[0] if info else None,
            embedder_dimensions=info[1] if info else None,
            caches=self.caches.stats(),
        )

    # -- search -----------------------------------------------------------------------------

    def search_filter(
        self, vaults: Sequence[str] = (), folders: Sequence[str] = ()
    ) -> SearchFilter:
        """A filter from vault names (unknown ones raise) and folder prefixes."""
        ids = tuple(self.vault(name).id for name in vaults)
        cleaned = tuple(f.strip("/") for f in folders if f.strip("/"))
        return SearchFilter(vault_ids=ids, folders=cleaned)

    def embed_query(self, query: str) -> Vectors | None:
        """The query vector, or None when the embedder fails (search goes lexical-only)."""
        try:
            return self.embedder.embed_query(query)
        except EmbeddingError as exc:
            logger.warning("query embedding failed, using keyword search only: %s", exc)
            return None

    def search(
        self,
        query: str,
        *,
        vaults: Sequence[str] = (),
        folders: Sequence[str] = (),
        k: int | None = None,
    ) -> list[SearchResult]:
        """The top ``k`` chunks for ``query`` by hybrid vector + BM25 score."""
        if not query.strip():
            raise ValueError("query is empty")
        flt = self.search_filter(vaults, folders)
        self.check_embedder()
        settings = self.settings.search
        limit = k or settings.k
        scored = hybrid_search(
            self.store,
            self.embedder.model_id,
            self.embed_query(query),
            query,
            flt,
            limit,
            max(settings.candidates, limit),
            HybridWeights(
                settings.vector_weight,
                settings.bm25_weight,
                self.settings.retrieval.sentence_weight,
            ),
        )
        chunks = self.store.fetch_chunks([c.rowid for c in scored])
        results = []
        for cand in scored:
            chunk = chunks.get(cand.rowid)
            if chunk is None:
                continue
            results.append(
                SearchResult(
                    vault=chunk.vault,
                    rel_path=chunk.rel_path,
                    heading_path=chunk.heading_path,
                    chunk_index=chunk.chunk_index,
                    chunk_id=chunk.chunk_id,
                    text=chunk.text,
                    title=chunk.title,
                    line_start=chunk.line_start,
                    line_end=chunk.line_end,
                    score_vector=cand.score_vector,
                    score_bm25=cand.score_bm25,
                    score=cand.score,
                    note_date=chunk.note_date,
                )
            )
        return results

    def retrieval_options(self, strategy: str | None = None) -> RetrievalOptions:
        """Retrieval options from settings (``strategy`` overrides the configured one)."""
        r = self.settings.retrieval
        return RetrievalOptions(
            strategy=strategy or r.strategy,
            reranker=r.reranker,
            weights=FusionWeights(r.vector_weight, r.keyword_weight, r.recency_weight, r.rrf_k),
            sentence_weight=r.sentence_weight,
            recency_half_life_days=r.recency_half_life_days,
            time_hint_recency_weight=r.time_hint_recency_weight,
            doc_type_weights={k.lower(): v for k, v in r.doc_type_weights.items()},
            max_candidates=self.settings.ask.max_candidates,
            rerank_depth=r.rerank_depth,
            model_rerank_depth=r.model_rerank_depth,
            model_rerank_weight=r.model_rerank_weight,
        )

    @property
    def reranker(self) -> Reranker | None:
        """The model reranker of ``retrieval.reranker`` (None for lexical/none), built once."""
        if self._parent is not None:  # a tenant's engine shares its parent's models
            return self._parent.reranker
        name = self.settings.retrieval.reranker
        if self._reranker is None or self._reranker.name != name:
            context = RerankerContext(self.settings.retrieval, self.settings.home / "cache")
            self._reranker = create_reranker(name, context)
        return self._reranker

    # -- asking -----------------------------------------------------------------------------

    def ask(self, request: AskRequest, on_token: TokenCallback | None = None) -> AskResponse:
        """Answer from the notes, citing the chunks used; ``on_token`` receives the stream."""
        vaults = [self.vault(name) for name in request.vaults] or self.vaults()
        self.check_embedder()
        store = self.store
        pipeline = AskPipeline(
            store=store,
            embedder=self.embedder,
            llm=self.llm(request.llm),
            settings=self.settings.ask,
            generation=self.settings.generation,
            vaults=vaults,
            folders_of=lambda vault: store.folders(vault.id),
            options=self.retrieval_options(),
            caches=self.caches,
            reranker=self.reranker,
        )
        started = time.perf_counter()
        response = pipeline.ask(request, on_token)
        if self.settings.ask.log_queries and isinstance(store, SQLiteStore):
            elapsed_ms = (time.perf_counter() - started) * 1000
            self.query_log().record(
                query_log_record(request.question, response, self.llm(request.llm).name, elapsed_ms)
            )
        return response

    def query_log(self) -> SQLiteQueryLog:
        """The questions and answers of ``ask`` (kept unless ``ask.log_queries`` is off)."""
        store = self.store
        if not isinstance(store, SQLiteStore):
            raise ConfigError("the query log is kept only in the SQLite store for now")
        if self._query_log is None:
            self._query_log = SQLiteQueryLog(store.path, tenant_id=store.tenant_id)
        return self._query_log

    # -- chat -------------------------------------------------------------------------------

    def open_sessions(self) -> SessionStore:
        """The chat sessions kept beside the index, on their own connection(s): close it."""
        store = self.store
        if isinstance(store, SQLiteStore):
            store.list_vaults()  # the index connection applies the migrations before ours opens
            return SQLiteSessionStore(store.path, tenant_id=store.tenant_id)
        if self.settings.store.backend == "postgres":
            tenant_id = getattr(store, "tenant_id", 1)
            return create_postgres_session_store(self.settings.store, tenant_id=tenant_id)
        raise ConfigError("chat sessions need the sqlite or the postgres store")

    def chat(
        self,
        request: ChatRequest,
        *,
        sessions: SessionStore | None = None,
        on_token: TokenCallback | None = None,
    ) -> ChatResponse:
        """Answer a chat message in its session (a new one without ``session_id``).

        ``sessions`` is an open session store (default: one opened for this call);
        ``on_token`` receives the answer as it is written, before citation validation.
        """

        def run_ask(query: AskRequest, llm: LLM, ask: AskSettings) -> AskResponse:
            vaults = [self.vault(name) for name in query.vaults] or self.vaults()
            self.check_embedder()
            index = self.store
            return AskPipeline(
                store=index,
                embedder=self.embedder,
                llm=llm,
                settings=ask,
                generation=self.settings.generation,
                vaults=vaults,
                folders_of=lambda vault: index.folders(vault.id),
                options=self.retrieval_options(),
                caches=self.caches,
                reranker=self.reranker,
            ).ask(query)

        check_tenant(request.tenant_id, self.tenant)
        request = request.model_copy(update={"tenant_id": None})  # checked: this engine's
        store = sessions if sessions is not None else self.open_sessions()
        try:
            service = ChatService(
                store,
                llm_for=self.llm,
                run_ask=run_ask,
                chat=self.settings.chat,
                ask=self.settings.ask,
                generation=self.settings.generation,
            )
            return service.send(request, on_token)
        finally:
            if sessions is None:
                store.close()
