"""End-to-end indexing versus the embedder alone, on the same chunk texts, in one run.

End to end is ``Engine.index`` of a fresh vault into a fresh SQLite file in a temp dir (scan,
read, hash, parse, chunk, embed, write). Embed only is ``embed_documents`` on exactly the texts
that indexing embedded: the notes are parsed and chunked the way the indexer does it, the
chunks are deduplicated by content hash, and the result is checked against the hashes stored
by the end-to-end run. The model is loaded and warmed up once before anything is timed, and
the two measurements alternate in order from one repeat to the next.

    python bench/index_throughput.py               # default subset: 100 notes, 3 repeats
    python bench/index_throughput.py --limit 0     # the whole vault (about 13 min on 2 cores)
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _measure import machine, median
from notecite.chunking import ChunkerConfig, chunk_note
from notecite.config import EmbedderSettings, IndexSettings, Settings, StoreSettings
from notecite.embed.base import Embedder
from notecite.embed.registry import create_embedder
from notecite.engine import Engine
from notecite.ingest.parse import parse_file
from notecite.ingest.scan import ScanEntry, scan_vault
from notecite.store.sqlite import SQLiteStore

DEFAULT_VAULT = Path("/work/shared/data/vault-dendron/vault")
DEFAULT_LIMIT = 100
VAULT_NAME = "bench"


def pick_notes(vault: Path, limit: int, settings: IndexSettings) -> list[ScanEntry]:
    """``limit`` notes evenly spaced over the vault's sorted files (all of them for 0)."""
    entries = [
        e
        for e in scan_vault(
            vault, settings.extensions, settings.ignore_dirs, settings.max_file_bytes
        )
        if e.error is None
    ]
    entries.sort(key=lambda e: e.rel_path)
    if limit <= 0 or limit >= len(entries):
        return entries
    return [entries[i * len(entries) // limit] for i in range(limit)]


def copy_notes(entries: list[ScanEntry], dest: Path) -> None:
    for entry in entries:
        target = dest / entry.rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(entry.path, target)


def embed_texts(vault: Path, embedder: Embedder, settings: IndexSettings) -> dict[str, str]:
    """Content hash -> embed text of every chunk, parsed and chunked as the indexer does."""
    max_tokens = settings.chunk_max_tokens or embedder.max_tokens
    config = ChunkerConfig(
        max_tokens=min(max_tokens, embedder.max_tokens),
        overlap_tokens=settings.chunk_overlap_tokens,
    )
    texts: dict[str, str] = {}
    for entry in scan_vault(
        vault, settings.extensions, settings.ignore_dirs, settings.max_file_bytes
    ):
        mtime = datetime.fromtimestamp(entry.mtime_ns / 1e9, tz=UTC)
        note = parse_file(entry.rel_path, entry.path.read_bytes(), mtime)
        for chunk in chunk_note(note, VAULT_NAME, embedder.count_tokens, config):
            texts.setdefault(chunk.content_hash, chunk.embed_text)
    return texts


def end_to_end(vault: Path, workdir: Path, embedder: Embedder, run: int) -> tuple[float, set[str]]:
    """Seconds to index ``vault`` into a fresh SQLite file, and the content hashes embedded."""
    db = workdir / f"index-{run}.db"
    settings = Settings(home=workdir, store=StoreSettings(path=db))
    start = time.perf_counter()
    store = SQLiteStore(db)
    with Engine(settings, store=store, embedder=embedder) as engine:
        engine.add_vault(VAULT_NAME, vault)
        (report,) = engine.index(VAULT_NAME)
        elapsed = time.perf_counter() - start
        stored = {
            str(row[0])
            for row in store.conn.execute(
                "SELECT content_hash FROM embeddings WHERE model_id = ?", (embedder.model_id,)
            )
        }
    if report.failed or report.chunks_embedded != len(stored):
        sys.exit(f"unexpected index report: {report}")
    return elapsed, stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=DEFAULT_VAULT)
    parser.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"notes, evenly spaced over the sorted vault; 0 = all (default {DEFAULT_LIMIT})",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed pairs (default 3)")
    parser.add_argument("--embedder", default="minilm", help="embedder name (default minilm)")
    args = parser.parse_args()

    index_settings = IndexSettings()
    embedder = create_embedder(EmbedderSettings(name=args.embedder))
    print(f"# index_throughput: {' '.join(sys.argv[1:]) or '(defaults)'}")
    print(f"machine: {machine()}")

    with tempfile.TemporaryDirectory(prefix="notecite-bench-") as tmp:
        workdir = Path(tmp)
        vault = workdir / "vault"
        notes = pick_notes(args.vault, args.limit, index_settings)
        copy_notes(notes, vault)

        start = time.perf_counter()
        embedder.embed_documents(["model load"])
        load_s = time.perf_counter() - start
        start = time.perf_counter()
        texts = embed_texts(vault, embedder, index_settings)
        prepare_s = time.perf_counter() - start
        ordered = list(texts.values())
        embedder.embed_documents(ordered[:64])  # warm-up at real lengths, untimed
        print(
            f"notes {len(notes)} of {args.vault}; unique chunk texts {len(texts)}; "
            f"embedder {embedder.model_id}; model load {load_s:.2f} s; "
            f"parse+chunk alone {prepare_s:.2f} s"
        )

        e2e: list[float] = []
        embed_only: list[float] = []
        for run in range(args.repeat):
            for step in ("e2e", "embed") if run % 2 == 0 else ("embed", "e2e"):
                if step == "e2e":
                    elapsed, stored = end_to_end(vault, workdir, embedder, run)
                    if stored != set(texts):
                        sys.exit("the indexer embedded other texts than the benchmark's")
                    e2e.append(elapsed)
                else:
                    start = time.perf_counter()
                    embedder.embed_documents(ordered)
                    embed_only.append(time.perf_counter() - start)
                print(f"  run {run + 1} {step}: {(e2e if step == 'e2e' else embed_only)[-1]:.2f} s")

    chunks = len(texts)
    e2e_s, embed_s = median(e2e), median(embed_only)
    print(f"end to end : median {e2e_s:8.2f} s  {chunks / e2e_s:7.1f} chunks/s")
    print(f"embed only : median {embed_s:8.2f} s  {chunks / embed_s:7.1f} chunks/s")
    print(f"ratio embed_only / end_to_end = {embed_s / e2e_s:.3f} (goal >= 0.85)")


if __name__ == "__main__":
    main()
