"""Wiring: the components an Engine works with, built lazily from Settings, per tenant.

:class:`Providers` holds what every tenant shares (the embedder, the LLMs, the model reranker,
so each model loads once); :class:`Components` adds one tenant's store, query log and
retrieval caches. :meth:`Components.for_tenant` returns a new set over the same providers:
nothing points back to a parent, and only the set that built the providers closes them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from notecite.config import DEFAULT_TENANT, Settings
from notecite.embed.base import Embedder, EmbedderVariants
from notecite.embed.registry import create_embedder
from notecite.errors import ConfigError, EmbedderMismatchError, ParseError, RerankError
from notecite.generate.base import LLM
from notecite.generate.registry import create_llm
from notecite.ingest.indexer import WrittenCallback
from notecite.ingest.parse import decode_text, note_lines_as_read
from notecite.retrieve.cache import RetrievalCaches
from notecite.retrieve.rerankers import Reranker, RerankerContext, create_reranker
from notecite.retrieve.rerankers.base import Passage, WarmableReranker
from notecite.store.base import Store, TenantStores
from notecite.store.factory import (
    QueryLog,
    keeps_query_log,
    open_query_log,
    open_session_store,
    open_store,
)
from notecite.store.sessions import SessionStore
from notecite.types import Chunk, NoteRecord

logger = logging.getLogger(__name__)


@dataclass
class Providers:
    """The model-backed providers, built on first use and shared by every tenant."""

    settings: Settings
    embedder_: Embedder | None = None
    variants: dict[str, Embedder] = field(default_factory=dict)
    llms: dict[str, LLM] = field(default_factory=dict)
    default_llm: str | None = None
    reranker_: Reranker | None = None

    @property
    def embedder(self) -> Embedder:
        """The configured embedder (its model loads on first embedding)."""
        if self.embedder_ is None:
            self.embedder_ = create_embedder(self.settings.embedder)
        return self.embedder_

    def embedder_for(self, built_with: str | None) -> Embedder:
        """The embedder for an index built with the model ``built_with`` (None: a new
        index): the configured one, or, when the configuration leaves the variant open
        (``embedder.activations`` unset), the variant of it the index was built with."""
        configured = self.embedder
        if (
            built_with is None
            or built_with == configured.model_id
            or self.settings.embedder.activations is not None
            or not isinstance(configured, EmbedderVariants)
        ):
            return configured
        if built_with not in self.variants:
            found = configured.variant(built_with)
            if found is None:
                return configured
            self.variants[built_with] = found
        return self.variants[built_with]

    def llm(self, name: str | None = None) -> LLM:
        """The LLM provider ``name`` (default: configured, else local if installed, else
        extractive); each is built once and loads its model on first use."""
        wanted = name or self.default_llm
        if wanted is not None and wanted in self.llms:
            return self.llms[wanted]
        generation = self.settings.generation
        if generation.model_dir is None:
            generation = generation.model_copy(update={"model_dir": self.settings.home / "models"})
        provider = create_llm(wanted, generation)
        self.llms[provider.name] = provider
        if wanted is None:
            self.default_llm = provider.name
        return provider

    @property
    def reranker(self) -> Reranker | None:
        """The model reranker of ``retrieval.reranker`` (None for lexical/none), built once."""
        name = self.settings.retrieval.reranker
        if self.reranker_ is None or self.reranker_.name != name:
            context = RerankerContext(self.settings.retrieval, self.settings.home / "cache")
            self.reranker_ = create_reranker(name, context)
        return self.reranker_

    def close(self) -> None:
        """Close every provider client that holds connections or a model."""
        providers = [*self.llms.values(), self.embedder_, *self.variants.values(), self.reranker_]
        for provider in providers:
            close = getattr(provider, "close", None)
            if callable(close):
                close()


class Components:
    """One tenant's store, query log and caches, over providers shared by every tenant."""

    def __init__(
        self,
        settings: Settings,
        providers: Providers,
        *,
        store: Store | None = None,
        tenant: str = DEFAULT_TENANT,
        owns_providers: bool = True,
    ) -> None:
        self.settings = settings
        self.providers = providers
        self.tenant = tenant
        self._store = store
        self._query_log: QueryLog | None = None
        self._owns_providers = owns_providers
        self._embedder: Embedder | None = None
        ask = settings.ask
        self.caches = RetrievalCaches(
            query_entries=ask.query_cache_entries,
            query_ttl_s=ask.query_cache_ttl_s,
            result_entries=ask.result_cache_entries,
            result_ttl_s=ask.query_cache_ttl_s,
        )

    @classmethod
    def build(
        cls,
        settings: Settings,
        *,
        store: Store | None = None,
        embedder: Embedder | None = None,
        llm: LLM | None = None,
    ) -> Components:
        """The default tenant's components; the given parts replace the configured ones."""
        providers = Providers(settings, embedder_=embedder, default_llm=settings.llm)
        if llm is not None:
            providers.llms[llm.name] = llm
            providers.default_llm = llm.name
        return cls(settings, providers, store=store)

    @property
    def store(self) -> Store:
        """The index store (opened on first use)."""
        if self._store is None:
            self._store = open_store(self.settings)
        return self._store

    @property
    def embedder(self) -> Embedder:
        """The shared embedder, in the variant this tenant's index was built with."""
        if self._embedder is None:
            info = self.store.embedder_info()
            self._embedder = self.providers.embedder_for(info[0] if info else None)
        return self._embedder

    def choose_embedder_again(self) -> None:
        """Forget which variant of the embedder the index was built with (it was cleared)."""
        self._embedder = None

    def llm(self, name: str | None = None) -> LLM:
        """The shared LLM provider ``name`` (see :meth:`Providers.llm`)."""
        return self.providers.llm(name)

    @property
    def reranker(self) -> Reranker | None:
        """The shared model reranker, if one is configured."""
        return self.providers.reranker

    def query_log(self) -> QueryLog:
        """The questions and answers of ``ask``, on its own connection."""
        if self._query_log is None:
            self._query_log = open_query_log(self.settings, self.store)
        return self._query_log

    @property
    def keeps_query_log(self) -> bool:
        """Does this tenant's store keep a query log?"""
        return keeps_query_log(self.store)

    def open_sessions(self) -> SessionStore:
        """The chat sessions kept beside the index, on their own connection(s): close it."""
        return open_session_store(self.settings, self.store)

    def note_lines(self, vault: str, rel_path: str) -> list[str] | None:
        """The current lines of a note of this tenant (None when it cannot be read); a
        markdown note's as the index reads them (:func:`note_lines_as_read`)."""
        found = self.store.get_vault(vault)
        if found is None:
            return None
        path = (found.path / rel_path).resolve()
        if not path.is_relative_to(found.path.resolve()):
            return None
        try:  # read as the indexer reads it: BOM dropped, line ends normalised
            text = decode_text(path.read_bytes())
        except (OSError, ParseError):
            return None
        return note_lines_as_read(rel_path, text)

    def for_tenant(self, tenant: str) -> Components:
        """A new set over the vaults, notes and sessions of ``tenant`` (created when new).

        It shares these providers, so models load once; its caches and store are its own,
        and closing it closes only them.
        """
        store = self.store
        if not isinstance(store, TenantStores):
            raise ConfigError(
                f"tenant {tenant!r}: this store serves only the tenant {DEFAULT_TENANT!r}"
            )
        return Components(
            self.settings,
            self.providers,
            store=store.for_tenant(tenant),
            tenant=tenant,
            owns_providers=False,
        )

    def check_embedder(self) -> None:
        """Refuse to mix embedding models in one index."""
        info = self.store.embedder_info()
        if info is not None and info[0] != self.embedder.model_id:
            raise EmbedderMismatchError(
                f"this index was built with the embedding model {info[0]!r} ({info[1]} "
                f"dimensions) but {self.embedder.model_id!r} is configured. Either set "
                f"embedder back (for the bundled MiniLM: unset embedder.activations), or "
                f"rebuild the index with: notecite index --rebuild"
            )

    def reranker_warmer(self) -> WrittenCallback | None:
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

    def close(self) -> None:
        """Close the store and query log; the providers too when this set built them."""
        if self._store is not None:
            self._store.close()
        if self._query_log is not None:
            self._query_log.close()
        if self._owns_providers:
            self.providers.close()
