"""Templates in a ChromaDB collection (``reasoning_templates``, cosine space).

Used when ``chroma_url`` (a Chroma server) or ``chroma_path`` (an embedded persistent
client) is configured. ``chromadb`` is an optional dependency, imported on first use.
Vectors are computed by notecite's embedder and passed in: Chroma's own embedding
function is never used.
"""

from __future__ import annotations

import importlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from notecite.embed.base import Vectors
from notecite.errors import StoreError
from notecite.templates.store import IndexedTemplate, StoredState
from notecite.templates.types import Template

logger = logging.getLogger(__name__)

COLLECTION = "reasoning_templates"
INSTALL_HINT = "pip install 'notecite[chroma]'"
_T = TypeVar("_T")


def _template(template_id: str, metadata: dict[str, Any] | None, document: str | None) -> Template:
    meta = metadata or {}
    return Template(
        id=template_id,
        name=str(meta.get("name", template_id)),
        domain=str(meta.get("domain", "general")),
        complexity=str(meta.get("complexity", "moderate")),
        methodology=str(meta.get("methodology", "sequential")),
        keywords=tuple(json.loads(str(meta.get("keywords", "[]")))),
        description=str(meta.get("description", "")),
        content=document or "",
        file_path=str(meta.get("file_path", "")),
    )


class ChromaTemplateStore:
    """A :class:`~notecite.templates.store.TemplateStore` in a Chroma collection.

    Give ``url`` for a Chroma server, or ``path`` for a local persistent folder.
    """

    def __init__(self, *, url: str | None = None, path: Path | None = None) -> None:
        if (url is None) == (path is None):
            raise ValueError("give exactly one of url (a Chroma server) or path (a local folder)")
        self.url = url
        self.path = path
        self._lock = threading.RLock()
        self._client: Any = None
        self._collection: Any = None

    @property
    def where(self) -> str:
        """The server URL or folder, for messages."""
        return self.url or str(self.path)

    def _connect(self) -> Any:
        try:
            chromadb: Any = importlib.import_module("chromadb")
        except ImportError as exc:
            raise StoreError(
                f"the Chroma template store needs the chromadb package; run: {INSTALL_HINT}"
            ) from exc
        settings = chromadb.Settings(anonymized_telemetry=False)
        if self.path is not None:
            self.path.mkdir(parents=True, exist_ok=True)
            return chromadb.PersistentClient(path=str(self.path), settings=settings)
        parts = urlsplit(self.url or "")
        if not parts.hostname:
            raise StoreError(f"invalid Chroma URL {self.url!r}; expected http://host:port")
        ssl = parts.scheme == "https"
        return chromadb.HttpClient(
            host=parts.hostname,
            port=parts.port or (443 if ssl else 8000),
            ssl=ssl,
            settings=settings,
        )

    def _call(self, what: str, action: Callable[[Any], _T]) -> _T:
        """Run ``action(collection)``, turning Chroma's failures into StoreError."""
        with self._lock:
            try:
                if self._collection is None:
                    self._client = self._connect()
                    self._collection = self._open_collection()
                return action(self._collection)
            except StoreError:
                raise
            except Exception as exc:
                raise StoreError(f"Chroma at {self.where} failed to {what}: {exc}") from exc

    def _open_collection(self) -> Any:
        return self._client.get_or_create_collection(
            COLLECTION, metadata={"hnsw:space": "cosine"}, embedding_function=None
        )

    def close(self) -> None:
        """Forget the client (Chroma's clients hold no connection that needs closing)."""
        with self._lock:
            self._collection = None
            self._client = None

    def upsert(self, records: Sequence[IndexedTemplate]) -> None:
        """Insert or replace by template id. When the collection holds vectors of another
        model and every one of them is being replaced, the collection is recreated (Chroma
        fixes a collection's dimension); otherwise that is a StoreError."""
        if not records:
            return
        models = {r.model_id for r in records}
        if len(models) != 1:
            raise ValueError("upsert records of one embedding model at a time")
        (model_id,) = models
        stored = self.states()
        others = {i for i, s in stored.items() if s.model_id != model_id}
        if others:
            if not others <= {r.template.id for r in records}:
                raise StoreError(
                    f"the Chroma collection {COLLECTION!r} at {self.where} holds templates "
                    f"embedded with another model; re-index every template with this one"
                )
            self._call("recreate the collection", self._recreate)

        def write(collection: Any) -> None:
            collection.upsert(
                ids=[r.template.id for r in records],
                embeddings=[[float(x) for x in r.vector] for r in records],
                documents=[r.template.content for r in records],
                metadatas=[self._metadata(r) for r in records],
            )

        self._call("store templates", write)

    def _recreate(self, collection: Any) -> None:
        self._client.delete_collection(COLLECTION)
        self._collection = self._open_collection()

    @staticmethod
    def _metadata(record: IndexedTemplate) -> dict[str, str | int]:
        t = record.template
        return {
            "name": t.name,
            "domain": t.domain,
            "complexity": t.complexity,
            "methodology": t.methodology,
            "keywords": json.dumps(list(t.keywords)),
            "description": t.description,
            "file_path": t.file_path,
            "model_id": record.model_id,
            "fingerprint": record.fingerprint,
            "dimensions": len(record.vector),
        }

    def _all(self, include: list[str]) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            "read templates", lambda collection: collection.get(include=include)
        )
        return result

    def states(self) -> dict[str, StoredState]:
        """Model id, fingerprint and file of every stored template."""
        got = self._all(["metadatas"])
        return {
            i: StoredState(
                str((m or {}).get("model_id", "")),
                str((m or {}).get("fingerprint", "")),
                str((m or {}).get("file_path", "")),
            )
            for i, m in zip(got["ids"], got["metadatas"], strict=True)
        }

    def search(self, vector: Vectors, model_id: str, k: int) -> list[tuple[Template, float]]:
        """The ``k`` templates of ``model_id`` nearest to ``vector``; similarity is
        1 - cosine distance."""
        if k < 1 or self.count(model_id) == 0:
            return []

        def query(collection: Any) -> dict[str, Any]:
            found: dict[str, Any] = collection.query(
                query_embeddings=[[float(x) for x in vector]],
                n_results=k,
                where={"model_id": model_id},
                include=["metadatas", "documents", "distances"],
            )
            return found

        found = self._call("search templates", query)
        rows = zip(
            found["ids"][0],
            found["metadatas"][0],
            found["documents"][0],
            found["distances"][0],
            strict=True,
        )
        return [(_template(i, m, d), 1.0 - float(dist)) for i, m, d, dist in rows]

    def list_templates(self) -> list[Template]:
        """Every stored template, by id."""
        got = self._all(["metadatas", "documents"])
        rows = zip(got["ids"], got["metadatas"], got["documents"], strict=True)
        return sorted((_template(i, m, d) for i, m, d in rows), key=lambda t: t.id)

    def get(self, template_id: str) -> Template | None:
        """The stored template ``template_id``, or ``None``."""
        got: dict[str, Any] = self._call(
            "read a template",
            lambda collection: collection.get(
                ids=[template_id], include=["metadatas", "documents"]
            ),
        )
        if not got["ids"]:
            return None
        return _template(got["ids"][0], got["metadatas"][0], got["documents"][0])

    def count(self, model_id: str | None = None) -> int:
        """How many templates are stored (embedded with ``model_id`` when given)."""
        if model_id is None:
            total: int = self._call("count templates", lambda collection: collection.count())
            return total
        return sum(1 for s in self.states().values() if s.model_id == model_id)

    def delete(self, ids: Sequence[str]) -> None:
        """Remove templates by id (unknown ids are ignored)."""
        if ids:
            self._call("delete templates", lambda collection: collection.delete(ids=list(ids)))
