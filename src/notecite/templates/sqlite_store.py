"""Templates in the index's SQLite file (table ``templates`` of migration 3)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from notecite.embed.base import Vectors
from notecite.store.sqlite.connection import SQLiteConnection
from notecite.templates.store import IndexedTemplate, StoredState
from notecite.templates.types import Template

_COLUMNS = "id, name, domain, complexity, methodology, keywords, description, content, file_path"


def _template(row: Sequence[Any]) -> Template:
    return Template(
        id=str(row[0]),
        name=str(row[1]),
        domain=str(row[2]),
        complexity=str(row[3]),
        methodology=str(row[4]),
        keywords=tuple(json.loads(str(row[5]))),
        description=str(row[6]),
        content=str(row[7]),
        file_path=str(row[8]),
    )


class SQLiteTemplateStore:
    """The default :class:`~notecite.templates.store.TemplateStore`: the index's SQLite file.

    It keeps its own connection to the file (WAL lets it write while an index run holds the
    engine's). Vector search is exact (NumPy): a template library is small.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = SQLiteConnection(path, "the templates")

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._db.read() as conn:
            return [tuple(row) for row in conn.execute(sql, params)]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()

    def upsert(self, records: Sequence[IndexedTemplate]) -> None:
        """Insert or replace each record by template id, all in one transaction."""
        if not records:
            return
        now = datetime.now(UTC).isoformat()
        rows = []
        for r in records:
            t = r.template
            vector = np.asarray(r.vector, dtype=np.float32).reshape(-1)
            rows.append(
                (
                    t.id,
                    r.model_id,
                    t.name,
                    t.domain,
                    t.complexity,
                    t.methodology,
                    json.dumps(list(t.keywords)),
                    t.description,
                    t.content,
                    t.file_path,
                    r.fingerprint,
                    int(vector.shape[0]),
                    vector.tobytes(),
                    now,
                )
            )
        with self._db.write() as conn:
            conn.executemany(
                "INSERT INTO templates (id, model_id, name, domain, complexity, methodology, "
                "keywords, description, content, file_path, fingerprint, dimensions, vector, "
                "indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET model_id = excluded.model_id, "
                "name = excluded.name, domain = excluded.domain, "
                "complexity = excluded.complexity, methodology = excluded.methodology, "
                "keywords = excluded.keywords, description = excluded.description, "
                "content = excluded.content, file_path = excluded.file_path, "
                "fingerprint = excluded.fingerprint, dimensions = excluded.dimensions, "
                "vector = excluded.vector, indexed_at = excluded.indexed_at",
                rows,
            )

    def states(self) -> dict[str, StoredState]:
        """Model id, fingerprint and file of every stored template."""
        rows = self._read("SELECT id, model_id, fingerprint, file_path FROM templates")
        return {str(r[0]): StoredState(str(r[1]), str(r[2]), str(r[3])) for r in rows}

    def search(self, vector: Vectors, model_id: str, k: int) -> list[tuple[Template, float]]:
        """The ``k`` templates of ``model_id`` most similar to ``vector`` (exact cosine)."""
        rows = self._read(
            f"SELECT {_COLUMNS}, dimensions, vector FROM templates WHERE model_id = ?",
            (model_id,),
        )
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        usable = [r for r in rows if r[9] == query.shape[0]]
        if not usable or k < 1:
            return []
        matrix = np.frombuffer(b"".join(r[10] for r in usable), dtype=np.float32)
        matrix = matrix.reshape(len(usable), -1)
        scores = matrix @ query
        order = sorted(range(len(usable)), key=lambda i: (-float(scores[i]), str(usable[i][0])))
        return [(_template(usable[i]), float(scores[i])) for i in order[:k]]

    def list_templates(self) -> list[Template]:
        """Every stored template, by id."""
        return [_template(r) for r in self._read(f"SELECT {_COLUMNS} FROM templates ORDER BY id")]

    def get(self, template_id: str) -> Template | None:
        """The stored template ``template_id``, or ``None``."""
        rows = self._read(f"SELECT {_COLUMNS} FROM templates WHERE id = ?", (template_id,))
        return _template(rows[0]) if rows else None

    def count(self, model_id: str | None = None) -> int:
        """How many templates are stored (embedded with ``model_id`` when given)."""
        if model_id is None:
            rows = self._read("SELECT COUNT(*) FROM templates")
        else:
            rows = self._read("SELECT COUNT(*) FROM templates WHERE model_id = ?", (model_id,))
        return int(rows[0][0])

    def delete(self, ids: Sequence[str]) -> None:
        """Remove templates by id (unknown ids are ignored)."""
        if not ids:
            return
        with self._db.write() as conn:
            conn.executemany("DELETE FROM templates WHERE id = ?", [(i,) for i in ids])
