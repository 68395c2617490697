"""Search latency at 10k and 100k chunks: no filter, a folder filter, a frontmatter filter.

The index is synthetic but goes through the store API (``add_vault``, ``replace_note``,
``put_embeddings``): SciFact abstracts, cut at sentence ends into chunks of about 120 words,
cycled with variations (sentence order rotated, a revision tag) over 200 folders, so FTS5 has
realistic BM25 work; each note's frontmatter holds one of 20 tags (``tags=label-NN``, drawn
apart from its folder), so the frontmatter filter lets ~5% through as the folder filter does;
vectors are random unit 384-d float32 recorded under the MiniLM model id.
Queries are SciFact claims, embedded by the real MiniLM embedder (``Engine.embedder``), which is
timed on its own and excluded from every other figure.

Each size is built in one child process and searched in a fresh one, so the peak RSS of the
searching process is its own. Per query and filter, it times, interleaved:

- numpy floor: ``matrix @ query`` and ``argpartition`` on the store's own matrix (baseline)
- vector: ``store.vector_search``; lexical: ``store.lexical_search`` (50 candidates each)
- hybrid: vector + BM25 fused by the weighted strategy (``bench/_fused.py``; top 8 of 50)
- engine: ``Engine.search`` with an embedder that looks up the precomputed query vector

    python bench/search_latency.py                     # 10k and 100k chunks, 200 queries
    python bench/search_latency.py --sizes 10000 --queries 100
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from _fused import fused_search
from _measure import machine, median, percentile
from notecite.config import SearchSettings, Settings, StoreSettings
from notecite.embed.base import Vectors
from notecite.engine import Engine
from notecite.filters import parse_filter
from notecite.store.sqlite import SQLiteStore
from notecite.types import Chunk, NoteRecord, SearchFilter

SCIFACT = Path("/work/shared/data/scifact")
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"  # notecite.embed.minilm.MODEL_ID, without the import
DIMENSIONS = 384
CANDIDATES = 50  # per signal, as the latency figures in RESULTS.md were taken
FOLDERS = [f"area-{a:02d}/topic-{t:02d}" for a in range(20) for t in range(10)]
FILTER_PREFIXES = [f"area-{a:02d}" for a in range(20)]  # each lets ~5% of chunks through
TAGS = [f"label-{t:02d}" for t in range(20)]  # so does each tags=label-NN
MODES = ("no filter", "folder filter", "frontmatter filter")
CHUNK_WORDS = 120
GOAL_P50_S = 0.030
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

T = TypeVar("T")


def in_child(func: Callable[..., T], *args: Any) -> T:
    """Run ``func(*args)`` in a fresh spawned process and return its result."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(func, *args).result()


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# -- building -------------------------------------------------------------------------------


def _abstract_chunks(title: str, text: str, cycle: int) -> list[tuple[str, str]]:
    """(heading, text) pieces of one abstract; later cycles rotate the sentence order."""
    sentences = [s for s in _SENTENCE_END.split(text.strip()) if s]
    if cycle and len(sentences) > 1:
        shift = cycle % len(sentences)
        sentences = sentences[shift:] + sentences[:shift]
    pieces: list[tuple[str, str]] = []
    current: list[str] = []
    words = 0
    for sentence in sentences:
        count = len(sentence.split())
        if current and words + count > CHUNK_WORDS:
            pieces.append((f"Part {len(pieces) + 1}", " ".join(current)))
            current, words = [], 0
        current.append(sentence)
        words += count
    if current:
        pieces.append((f"Part {len(pieces) + 1}", " ".join(current)))
    return pieces


def _synthetic_notes(total_chunks: int, vault_id: int) -> Iterator[tuple[NoteRecord, list[Chunk]]]:
    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").open(encoding="utf-8")]
    rng = random.Random(7)
    made = 0
    cycle = 0
    epoch = datetime(2020, 1, 1, tzinfo=UTC)
    while made < total_chunks:
        for doc in docs:
            if made >= total_chunks:
                return
            title = doc["title"] if not cycle else f"{doc['title']} (rev {cycle})"
            folder = FOLDERS[rng.randrange(len(FOLDERS))]
            rel_path = f"{folder}/{doc['_id']}-{cycle}.md"
            chunks = []
            pieces = _abstract_chunks(title, doc["text"], cycle)[: total_chunks - made]
            for index, (heading, text) in enumerate(pieces):
                embed_text = f"{title}\n{heading}\n{text}"
                content_hash = hashlib.sha256(embed_text.encode()).hexdigest()
                chunks.append(
                    Chunk(
                        chunk_id=hashlib.sha256(f"{rel_path}\0{index}".encode()).hexdigest()[:24],
                        chunk_index=index,
                        heading_path=heading,
                        text=text,
                        embed_text=embed_text,
                        line_start=index + 1,
                        line_end=index + 1,
                        token_count=len(text.split()),
                        content_hash=content_hash,
                    )
                )
            when = epoch + timedelta(days=rng.randrange(2000))
            front = {"tags": [TAGS[rng.randrange(len(TAGS))], "synthetic"], "type": "abstract"}
            record = NoteRecord(
                vault_id=vault_id,
                rel_path=rel_path,
                folder=folder,
                title=title,
                doc_type="markdown",
                note_type=None,
                description="",
                keywords=(),
                frontmatter=front,
                created=when,
                modified=when,
                content_hash=hashlib.sha256(rel_path.encode()).hexdigest(),
                size=len(doc["text"]),
                mtime_ns=0,
            )
            made += len(chunks)
            yield record, chunks
        cycle += 1


def build_index(db: Path, total_chunks: int) -> dict[str, float]:
    """Write a synthetic index of ``total_chunks`` chunks through the store API."""
    start = time.perf_counter()
    store = SQLiteStore(db)
    vault = store.add_vault("synthetic", db.parent)
    store.set_embedder_info(MODEL_ID, DIMENSIONS)
    rng = np.random.default_rng(11)
    pending: dict[str, Vectors] = {}
    notes = chunks = 0
    for record, note_chunks in _synthetic_notes(total_chunks, vault.id):
        for chunk in note_chunks:
            if chunk.content_hash not in pending:
                vector = rng.standard_normal(DIMENSIONS).astype(np.float32)
                pending[chunk.content_hash] = vector / np.linalg.norm(vector)
        if len(pending) >= 5000:
            store.put_embeddings(MODEL_ID, pending)
            pending = {}
        store.replace_note(record, note_chunks)
        notes += 1
        chunks += len(note_chunks)
    store.put_embeddings(MODEL_ID, pending)
    store.close()
    return {"notes": notes, "chunks": chunks, "seconds": time.perf_counter() - start}


def embed_queries(db: Path, queries: list[str]) -> tuple[list[list[float]], list[float]]:
    """MiniLM vectors of the queries through ``Engine.embedder``, and each one's seconds."""
    settings = Settings(home=db.parent, store=StoreSettings(path=db))
    with Engine(settings) as engine:
        for text in queries[:5]:
            engine.embedder.embed_query(text)  # loads the model; untimed
        vectors: list[list[float]] = []
        seconds: list[float] = []
        for text in queries:
            start = time.perf_counter()
            vector = engine.embedder.embed_query(text)
            seconds.append(time.perf_counter() - start)
            vectors.append(vector.tolist())
    return vectors, seconds


# -- searching ------------------------------------------------------------------------------


def write_phase(db: Path, queries: list[str], vectors: list[list[float]]) -> dict[str, Any]:
    """The first vector search after a one-note write (a note rewritten through the store
    API with new chunk vectors, as an index run writes it) versus a search with no write."""
    table = [np.asarray(v, dtype=np.float32) for v in vectors]
    store = SQLiteStore(db)
    store.vector_search(MODEL_ID, table[0], SearchFilter(), CANDIDATES)  # the cold load
    vault = store.list_vaults()[0]
    rel_path = store.conn.execute(
        "SELECT rel_path FROM notes WHERE vault_id = ? ORDER BY id LIMIT 1", (vault.id,)
    ).fetchone()[0]
    record = next(r for r, _ in _synthetic_notes(1, vault.id))
    rng = np.random.default_rng(3)
    written, unwritten = [], []
    for trial in range(7):
        query = table[(trial + 1) % len(table)]
        start = time.perf_counter()
        store.vector_search(MODEL_ID, query, SearchFilter(), CANDIDATES)
        unwritten.append(time.perf_counter() - start)
        chunk = next(c for _, cs in _synthetic_notes(1, vault.id) for c in cs)
        text = f"{chunk.text} revision {trial}"
        content_hash = hashlib.sha256(text.encode()).hexdigest()
        edited = replace(chunk, text=text, embed_text=text, content_hash=content_hash)
        vector = rng.standard_normal(DIMENSIONS).astype(np.float32)
        store.put_embeddings(MODEL_ID, {content_hash: vector / np.linalg.norm(vector)})
        store.replace_note(replace(record, rel_path=rel_path), [edited])
        start = time.perf_counter()
        store.vector_search(MODEL_ID, query, SearchFilter(), CANDIDATES)
        written.append(time.perf_counter() - start)
    store.close()
    return {"written_s": written, "unwritten_s": unwritten}


@dataclass
class PrecomputedQueries:
    """An embedder that only answers queries, from vectors computed beforehand."""

    vectors: dict[str, Vectors]

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    @property
    def max_tokens(self) -> int:
        return 256

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        raise NotImplementedError("search only")

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        raise NotImplementedError("search only")

    def embed_query(self, text: str) -> Vectors:
        return self.vectors[text]


def _numpy_floor(matrix: Vectors, query: Vectors, limit: int) -> None:
    scores = matrix @ query
    top = np.argpartition(-scores, limit - 1)[:limit]
    top[np.argsort(-scores[top], kind="stable")]


def search_phase(db: Path, queries: list[str], vectors: list[list[float]]) -> dict[str, Any]:
    """Cold load, reload after a write, then per-query latencies of every layer."""
    rss_start = peak_rss_mib()
    table = {q: np.asarray(v, dtype=np.float32) for q, v in zip(queries, vectors, strict=True)}
    store = SQLiteStore(db)
    settings = Settings(home=db.parent, store=StoreSettings(path=db))
    engine = Engine(settings, store=store, embedder=PrecomputedQueries(table))
    search = SearchSettings()
    first = table[queries[0]]

    start = time.perf_counter()
    store.vector_search(MODEL_ID, first, SearchFilter(), CANDIDATES)
    cold_s = time.perf_counter() - start
    store.set_embedder_info(MODEL_ID, DIMENSIONS)  # a write: the matrix must be rebuilt
    start = time.perf_counter()
    store.vector_search(MODEL_ID, first, SearchFilter(), CANDIDATES)
    reload_s = time.perf_counter() - start
    store.set_embedder_info(MODEL_ID, DIMENSIONS)
    tracemalloc.start()
    store.vector_search(MODEL_ID, first, SearchFilter(), CANDIDATES)
    _, reload_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    matrix = store._vector_matrix(MODEL_ID).matrix  # the floor runs on the very same array

    layers: dict[str, Callable[[str, Vectors, SearchFilter], object]] = {
        "numpy floor": lambda q, v, f: _numpy_floor(matrix, v, CANDIDATES),
        "vector": lambda q, v, f: store.vector_search(MODEL_ID, v, f, CANDIDATES),
        "lexical": lambda q, v, f: store.lexical_search(q, f, CANDIDATES),
        "hybrid": lambda q, v, f: fused_search(store, MODEL_ID, v, q, f, search.k, CANDIDATES),
        "engine": lambda q, v, f: engine.search(
            q, folders=f.folders, k=search.k, filters=[str(c) for c in f.frontmatter]
        ),
    }
    results: dict[str, dict[str, list[float]]] = {}
    cpu: dict[str, dict[str, list[float]]] = {}
    for mode in MODES:
        timings: dict[str, list[float]] = {name: [] for name in layers}
        cpu_times: dict[str, list[float]] = {name: [] for name in layers}
        for i, query in enumerate([*queries[:10], *queries]):
            flt = SearchFilter(folders=(FILTER_PREFIXES[i % len(FILTER_PREFIXES)],))
            if mode == "no filter":
                flt = SearchFilter()
            elif mode == "frontmatter filter":
                flt = SearchFilter(frontmatter=parse_filter(f"tags={TAGS[i % len(TAGS)]}"))
            for name, layer in layers.items():
                start, start_cpu = time.perf_counter(), time.thread_time()
                layer(query, table[query], flt)
                if i >= 10:  # the first ten are warm-up
                    timings[name].append(time.perf_counter() - start)
                    cpu_times[name].append(time.thread_time() - start_cpu)
        results[mode] = timings
        cpu[mode] = cpu_times
    engine.close()
    return {
        "cold_s": cold_s,
        "reload_s": reload_s,
        "reload_traced_peak_mib": reload_peak / 2**20,
        "matrix_mib": matrix.nbytes / 2**20,
        "rss_start_mib": rss_start,
        "rss_peak_mib": peak_rss_mib(),
        "timings": results,
        "cpu": cpu,
    }


# -- report ---------------------------------------------------------------------------------


def _row(name: str, values: list[float], cpu: list[float], base: float) -> str:
    p50, p95 = median(values), percentile(values, 95)
    return (
        f"| {name} | {p50 * 1000:.2f} | {p95 * 1000:.2f} | {p50 / base:.2f} "
        f"| {median(cpu) * 1000:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="chunk counts (comma-separated)")
    parser.add_argument("--queries", type=int, default=200, help="timed queries (>= 100)")
    parser.add_argument("--db-dir", type=Path, help="keep and reuse built indexes here")
    parser.add_argument(
        "--write-only",
        action="store_true",
        help="only the first search after a one-note write vs one with no write",
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    queries = [
        json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open(encoding="utf-8")
    ][: args.queries]
    print(f"# search_latency: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print(f"machine: {machine()}")

    with tempfile.TemporaryDirectory(prefix="notecite-bench-") as tmp:
        db_dir = args.db_dir or Path(tmp)
        db_dir.mkdir(parents=True, exist_ok=True)
        vectors, embed_s = in_child(embed_queries, Path(tmp) / "embed.db", queries)
        print(
            f"\nMiniLM embed_query (model loaded), {len(queries)} queries: "
            f"p50 {median(embed_s) * 1000:.2f} ms, p95 {percentile(embed_s, 95) * 1000:.2f} ms"
        )
        for size in sizes:
            db = db_dir / f"synthetic-{size}.db"
            if not db.exists():
                built = in_child(build_index, db, size)
                print(
                    f"\n## {int(built['chunks'])} chunks ({int(built['notes'])} notes): "
                    f"built in {built['seconds']:.1f} s"
                )
            else:
                print(f"\n## {size} chunks: reusing {db}")
            if args.write_only:
                timed = in_child(write_phase, db, queries, vectors)
                after, before = timed["written_s"], timed["unwritten_s"]
                print(
                    f"first search after a one-note write: p50 {median(after) * 1000:.1f} ms "
                    f"(max {max(after) * 1000:.1f}); no write: p50 {median(before) * 1000:.1f} ms "
                    f"(max {max(before) * 1000:.1f}); {len(after)} trials"
                )
                continue
            found = in_child(search_phase, db, queries, vectors)
            print(
                f"first search (matrix load) {found['cold_s'] * 1000:.0f} ms; after a write "
                f"{found['reload_s'] * 1000:.0f} ms, traced peak "
                f"{found['reload_traced_peak_mib']:.0f} MiB for a {found['matrix_mib']:.0f} MiB "
                f"matrix; peak RSS {found['rss_peak_mib']:.0f} MiB "
                f"({found['rss_start_mib']:.0f} MiB after imports)"
            )
            for mode, timings in found["timings"].items():
                base = median(timings["numpy floor"])
                print(f"\n{mode}, {len(timings['vector'])} queries, embedding excluded")
                print("| layer | p50 ms | p95 ms | p50 / numpy floor | thread CPU p50 ms |")
                print("| --- | --- | --- | --- | --- |")
                for name, values in timings.items():
                    print(_row(name, values, found["cpu"][mode][name], base))
                goal = "met" if median(timings["engine"]) < GOAL_P50_S else "missed"
                print(f"Engine.search p50 goal < {GOAL_P50_S * 1000:.0f} ms: {goal}")


if __name__ == "__main__":
    main()
