"""TemplateRetriever: index a library of reasoning templates and find the best ones for a
problem, falling back to chain of thought."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from notecite.config import Settings
from notecite.embed.base import Embedder
from notecite.errors import NotecitError
from notecite.templates.chroma_store import ChromaTemplateStore
from notecite.templates.library import BUILTIN_CHAIN_OF_THOUGHT, resolve_template_dirs
from notecite.templates.parsing import embed_text, fingerprint, load_templates, parse_template
from notecite.templates.sqlite_store import SQLiteTemplateStore
from notecite.templates.store import IndexedTemplate, TemplateStore
from notecite.templates.types import (
    FALLBACK_SCORE,
    FALLBACK_TEMPLATE_ID,
    RAGConfig,
    Template,
    TemplateMatch,
)

logger = logging.getLogger(__name__)


def _same_model(configured: str, model_id: str) -> bool:
    """``nomic-embed-text`` names the model of ``ollama:nomic-embed-text``."""
    return configured in (model_id, model_id.split(":", 1)[-1])


class TemplateRetriever:
    """Finds the reasoning templates that fit a problem.

    Args:
        embedder: embeds templates and queries (the engine's embedder).
        store: where templates and vectors are kept (closed by :meth:`close`).
        config: top K, threshold, template dirs; ``embedding_model`` is filled in from
            ``embedder`` and must name its model if given.
        cwd: the folder relative template dirs are resolved against (default: the working
            directory at indexing time).

    Nothing is read, embedded or opened until first use.
    """

    def __init__(
        self,
        embedder: Embedder,
        store: TemplateStore,
        config: RAGConfig | None = None,
        *,
        cwd: Path | None = None,
    ) -> None:
        config = config or RAGConfig()
        model_id = embedder.model_id
        if config.embedding_model is None:
            config = config.model_copy(update={"embedding_model": model_id})
        elif not _same_model(config.embedding_model, model_id):
            raise ValueError(
                f"the config names the embedding model {config.embedding_model!r} but the "
                f"embedder is {model_id!r}; configure the embedder, or leave embedding_model unset"
            )
        self.config = config
        self.embedder = embedder
        self.store = store
        self._model_id = model_id
        self._cwd = cwd
        self._lock = threading.RLock()
        self._indexed = False

    @property
    def threshold(self) -> float:
        """The similarity threshold in force."""
        return self.config.threshold()

    def template_dirs(self) -> list[Path]:
        """The template dirs as absolute paths (default dirs fall back to the bundled ones)."""
        return resolve_template_dirs(self.config.template_dirs, self._cwd)

    def close(self) -> None:
        """Close the store (the embedder belongs to whoever passed it in)."""
        self.store.close()

    # -- indexing ---------------------------------------------------------------------------

    def index_templates(self) -> int:
        """Load every ``.md`` in the template dirs, embed what changed and upsert it.

        Idempotent: a template is stored once by id; one whose file, content and model are
        unchanged is not embedded again. Templates stored from files that were deleted from
        a template dir are removed; templates embedded with another model are re-embedded.

        Returns:
            How many templates the dirs hold (invalid files are skipped with a warning).

        Raises:
            EmbeddingError: the embedder failed. StoreError: the store failed.
        """
        with self._lock:
            dirs = self.template_dirs()
            templates = load_templates(dirs)
            loaded = {t.id for t in templates}
            states = self.store.states()
            pending = [
                t
                for t in templates
                if (state := states.get(t.id)) is None
                or state.model_id != self._model_id
                or state.fingerprint != fingerprint(t)
            ]
            gone = [
                template_id
                for template_id, state in states.items()
                if template_id not in loaded and _deleted_from(state.file_path, dirs)
            ]
            self.store.delete(gone)
            for template_id, state in states.items():
                if template_id in loaded or template_id in gone:
                    continue
                if state.model_id != self._model_id:
                    stored = self.store.get(template_id)
                    if stored is not None:
                        pending.append(stored)
            self._upsert(pending)
            self._indexed = True
            logger.info(
                "templates indexed: %d in %d dirs, %d embedded, %d removed",
                len(templates),
                len(dirs),
                len(pending),
                len(gone),
            )
            return len(templates)

    def add_template(self, path: Path) -> Template:
        """Parse one template file and upsert it (a template with the same id is replaced).

        Raises:
            ParseError: the file is unreadable or its frontmatter is invalid.
            EmbeddingError, StoreError: embedding or storing failed.
        """
        template = parse_template(path)
        with self._lock:
            self._upsert([template])
        return template

    def _upsert(self, templates: Sequence[Template]) -> None:
        if not templates:
            return
        vectors = self.embedder.embed_documents([embed_text(t) for t in templates])
        self.store.upsert(
            [
                IndexedTemplate(t, self._model_id, fingerprint(t), vectors[i])
                for i, t in enumerate(templates)
            ]
        )

    def list_templates(self) -> list[Template]:
        """Every stored template, by id."""
        return self.store.list_templates()

    def is_ready(self) -> bool:
        """Whether templates can be searched: the library was indexed by this retriever, or
        the store holds templates embedded with this embedder's model."""
        if self._indexed:
            return True
        try:
            return self.store.count(self._model_id) > 0
        except NotecitError as exc:
            logger.warning("template store unavailable: %s", exc)
            return False

    # -- search -----------------------------------------------------------------------------

    def search(self, query: str, top_k: int | None = None) -> list[TemplateMatch]:
        """The best templates for ``query``: the top K by cosine similarity, without those
        under the threshold, best first.

        When none is left, when the library is empty or when embedding or the store fails,
        the answer is the ``bot-chain-of-thought`` template with score 0.5 (a built-in copy
        when no library holds one): a search never fails.

        Raises:
            ValueError: ``top_k`` is below 1 (a programming error, not a search failure).
        """
        k = self.config.top_k if top_k is None else top_k
        if k < 1:
            raise ValueError(f"top_k must be at least 1, not {k}")
        if not query.strip():
            return [self.fallback()]
        try:
            vector = self.embedder.embed_query(query)
            hits = self.store.search(vector, self._model_id, k)
        except NotecitError as exc:
            logger.warning("template search failed; answering with chain of thought: %s", exc)
            return [self.fallback()]
        threshold = self.threshold
        matches = [TemplateMatch.of(t, score) for t, score in hits if score >= threshold]
        logger.debug("template search: %d hits, %d over %.2f", len(hits), len(matches), threshold)
        return matches or [self.fallback()]

    def fallback(self) -> TemplateMatch:
        """The chain-of-thought template with score 0.5: the library's, else the built-in."""
        try:
            stored = self.store.get(FALLBACK_TEMPLATE_ID)
        except NotecitError as exc:
            logger.warning("template store unavailable: %s", exc)
            stored = None
        return TemplateMatch.of(stored or BUILTIN_CHAIN_OF_THOUGHT, FALLBACK_SCORE)


def _deleted_from(file_path: str, dirs: Sequence[Path]) -> bool:
    """Whether ``file_path`` lies in one of ``dirs`` and no longer exists."""
    if not file_path:
        return False
    path = Path(file_path)
    return any(path.is_relative_to(d) for d in dirs) and not path.exists()


def open_template_store(settings: Settings, config: RAGConfig) -> TemplateStore:
    """Chroma when ``config`` names a Chroma server or folder, else the index's SQLite file."""
    if config.chroma_url is not None:
        return ChromaTemplateStore(url=config.chroma_url)
    if config.chroma_path is not None:
        return ChromaTemplateStore(path=config.chroma_path.expanduser())
    return SQLiteTemplateStore(settings.db_path)


def rag_config(settings: Settings, **overrides: Any) -> RAGConfig:
    """The RAGConfig of the ``[templates]`` settings, with ``overrides`` (e.g. CLI flags)."""
    values: dict[str, Any] = {
        key: value for key, value in settings.templates.model_dump().items() if value is not None
    }
    values.update({key: value for key, value in overrides.items() if value is not None})
    return RAGConfig(**values)


def open_template_retriever(
    settings: Settings, embedder: Embedder, config: RAGConfig | None = None
) -> TemplateRetriever:
    """A retriever over the store that ``config`` (default: the settings) selects."""
    config = config or rag_config(settings)
    return TemplateRetriever(embedder, open_template_store(settings, config), config)
