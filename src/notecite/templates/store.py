"""The TemplateStore protocol: where indexed templates and their vectors are kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from notecite.embed.base import Vectors
from notecite.templates.types import Template


@dataclass(frozen=True)
class IndexedTemplate:
    """A template with its vector, the model that made it and the fingerprint of its file."""

    template: Template
    model_id: str
    fingerprint: str
    vector: Vectors


@dataclass(frozen=True)
class StoredState:
    """What the store holds for one template id: enough to decide whether to re-embed."""

    model_id: str
    fingerprint: str
    file_path: str


@runtime_checkable
class TemplateStore(Protocol):
    """Keeps templates by id, with one vector each.

    Contract:
    - ``upsert`` inserts or replaces by ``template.id``: an id is stored once, whatever
      the number of calls (re-indexing never duplicates).
    - ``states`` returns, for every stored id, its model id, fingerprint and file path.
    - ``search`` ranks the templates embedded with ``model_id`` by cosine similarity to the
      unit ``vector`` and returns the best ``k`` as ``(template, similarity)``, best first.
      Templates embedded with another model are never returned.
    - ``list_templates`` returns every stored template, by id; ``get`` one or ``None``;
      ``count`` how many there are (only those of ``model_id`` when given).
    - ``delete`` removes ids (unknown ids are ignored).
    - Constructing a store does no I/O; it opens on first use. ``close`` is idempotent.
    - Failures raise :class:`notecite.errors.StoreError`.
    """

    def upsert(self, records: Sequence[IndexedTemplate]) -> None: ...

    def states(self) -> dict[str, StoredState]: ...

    def search(self, vector: Vectors, model_id: str, k: int) -> list[tuple[Template, float]]: ...

    def list_templates(self) -> list[Template]: ...

    def get(self, template_id: str) -> Template | None: ...

    def count(self, model_id: str | None = None) -> int: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def close(self) -> None: ...
