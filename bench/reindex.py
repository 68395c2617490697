"""Re-index of an unchanged vault, and of the same vault after one note was edited.

A copy of the vault is indexed once (the fill), then ``Engine.index`` is timed on the same
open engine, with the model loaded: first with nothing changed, then after appending a new
line to one note (a different note and a new sentence each run, so its last chunk really has
to be embedded again). The embedder that fills the index is the one that re-indexes it.

Filling the whole vault with MiniLM takes minutes on 2 cores, so the MiniLM vectors are kept
in a cache (``--cache-dir``) keyed by model id and content hash, exactly like the store's own
embedding table: a later fill reuses them and embeds only texts it has never seen. The timed
re-runs never touch the cache.

    python bench/reindex.py                     # minilm, 5 runs per case
    python bench/reindex.py --embedder hash     # no model at all
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import platformdirs

from _measure import machine, median, ms
from notecite.config import EmbedderSettings, Settings, StoreSettings
from notecite.embed.base import Vectors
from notecite.embed.registry import create_embedder
from notecite.engine import Engine
from notecite.store.sqlite import SQLiteStore
from notecite.types import IndexReport

DEFAULT_VAULT = Path("/work/shared/data/vault-dendron/vault")
VAULT_NAME = "bench"
GOAL_UNCHANGED_S = 1.0
GOAL_EDITED_S = 0.3


class EmbeddingCache:
    """A side SQLite file of (model id, content hash) -> vector, shared between runs."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path)
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS embeddings (model_id TEXT, content_hash TEXT, "
            "vector BLOB, PRIMARY KEY (model_id, content_hash)) WITHOUT ROWID"
        )

    def load(self, model_id: str) -> dict[str, Vectors]:
        rows = self._conn.execute(
            "SELECT content_hash, vector FROM embeddings WHERE model_id = ?", (model_id,)
        )
        return {h: np.frombuffer(v, dtype=np.float32) for h, v in rows}

    def save_from(self, store: SQLiteStore, model_id: str) -> None:
        rows = store.conn.execute(
            "SELECT content_hash, vector FROM embeddings WHERE model_id = ?", (model_id,)
        ).fetchall()
        with self._conn:
            self._conn.executemany(
                "INSERT OR IGNORE INTO embeddings VALUES (?, ?, ?)",
                [(model_id, h, v) for h, v in rows],
            )

    def close(self) -> None:
        self._conn.close()


def timed_index(engine: Engine) -> tuple[float, IndexReport]:
    start = time.perf_counter()
    (report,) = engine.index(VAULT_NAME)
    return time.perf_counter() - start, report


def notes_to_edit(store: SQLiteStore, count: int) -> list[str]:
    """``count`` notes of at least 3 chunks, evenly spaced over the sorted paths."""
    rows = store.conn.execute(
        "SELECT n.rel_path FROM notes n JOIN chunks c ON c.note_id = n.id "
        "GROUP BY n.id HAVING COUNT(*) >= 3 ORDER BY n.rel_path"
    ).fetchall()
    paths = [str(r[0]) for r in rows]
    return [paths[i * len(paths) // count] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument("--embedder", default="minilm", help="embedder name (default minilm)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per case (default 5)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(platformdirs.user_cache_dir("notecite-bench", appauthor=False)),
        help="where fill embeddings are kept between runs",
    )
    parser.add_argument("--no-cache", action="store_true", help="embed the whole fill")
    args = parser.parse_args()
    print(f"# reindex: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print(f"machine: {machine()}")

    embedder = create_embedder(EmbedderSettings(name=args.embedder))
    cache = None if args.no_cache else EmbeddingCache(args.cache_dir / "embeddings.db")
    with tempfile.TemporaryDirectory(prefix="notecite-bench-") as tmp:
        workdir = Path(tmp)
        vault = workdir / "vault"
        shutil.copytree(args.vault, vault)
        store = SQLiteStore(workdir / "index.db")
        settings = Settings(home=workdir, store=StoreSettings(path=store.path))
        with Engine(settings, store=store, embedder=embedder) as engine:
            engine.add_vault(VAULT_NAME, vault)
            if cache is not None:
                cached = cache.load(embedder.model_id)
                if cached:
                    store.set_embedder_info(embedder.model_id, embedder.dimensions)
                    store.put_embeddings(embedder.model_id, cached)
            fill_s, fill = timed_index(engine)
            print(
                f"fill: {fill_s:.1f} s, {fill.added} notes, {fill.chunks_embedded} chunks "
                f"embedded by {embedder.model_id}, {fill.chunks_reused} reused (cache or same text)"
            )
            if cache is not None:
                cache.save_from(store, embedder.model_id)
                cache.close()
            embedder.embed_documents(["load the model before timing"])

            unchanged: list[float] = []
            for _ in range(args.runs):
                elapsed, report = timed_index(engine)
                if report.unchanged != fill.added or report.updated or report.added:
                    sys.exit(f"unchanged vault was re-indexed: {report}")
                unchanged.append(elapsed)

            edited: list[float] = []
            embedded: list[int] = []
            for run, rel_path in enumerate(notes_to_edit(store, args.runs)):
                with (vault / rel_path).open("a", encoding="utf-8") as note:
                    note.write(
                        f"\n\nBenchmark edit {run}: reviewed again on {time.time_ns()} "
                        "and nothing else changed.\n"
                    )
                elapsed, report = timed_index(engine)
                if report.updated != 1 or not report.chunks_embedded:
                    sys.exit(f"edited note not re-embedded: {report}")
                edited.append(elapsed)
                embedded.append(report.chunks_embedded)

    print(f"unchanged runs: {', '.join(ms(t) for t in unchanged)}")
    print(f"edited runs   : {', '.join(ms(t) for t in edited)} (chunks embedded: {embedded})")
    print(
        f"unchanged vault ({fill.added} notes): median {ms(median(unchanged))} "
        f"(goal < {GOAL_UNCHANGED_S:.1f} s)"
    )
    print(
        f"one note edited: median {ms(median(edited))} (goal < {GOAL_EDITED_S:.1f} s); "
        f"ratio edited / unchanged = {median(edited) / median(unchanged):.2f}"
    )


if __name__ == "__main__":
    main()
