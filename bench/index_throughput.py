"""End-to-end indexing versus the embedder alone, on the same texts, in one run.

End to end is ``Engine.index`` of a fresh vault into a fresh SQLite file in a temp dir (scan,
read, hash, parse, chunk, embed, write). Embed only is ``embed_documents`` on exactly the texts
that indexing embedded: the notes are parsed and chunked the way the indexer does it, the
chunks are deduplicated by content hash, and the result is checked against the hashes stored
by the end-to-end run. The texts are the chunks' and, with index.sentence_vectors on (the
default; --no-sentence-vectors turns it off), their sentence windows'. The model is loaded
and warmed up once before anything is timed, and the measurements alternate in order from
one repeat to the next. Wall time is the figure; process CPU time (onnxruntime's threads
included) is printed beside it because other work on a small machine moves wall time far
more than it moves CPU time.

The whole vault-dendron vault takes about 3 min per measurement on an idle 2-core machine
(6 under load), so the default is a fixed subset of 100 notes evenly spaced over the sorted
paths (about 20 s per measurement).

    python bench/index_throughput.py                         # 100 notes, 3 repeats
    python bench/index_throughput.py --limit 0 --repeat 2    # the whole vault, ~13 min
    python bench/index_throughput.py --grouped               # also the indexer's windows
    python bench/index_throughput.py --no-sentence-vectors   # chunk vectors only
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _measure import load, machine, median
from notecite.chunking import ChunkerConfig, chunk_note
from notecite.config import EmbedderSettings, IndexSettings, Settings, StoreSettings
from notecite.embed.base import Embedder
from notecite.embed.registry import create_embedder
from notecite.engine import Engine
from notecite.ingest.indexer import _WINDOW_CHUNKS
from notecite.ingest.parse import parse_file
from notecite.ingest.scan import ScanEntry, scan_vault
from notecite.store.sqlite import SQLiteStore
from notecite.types import IndexReport

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


def note_chunks(vault: Path, embedder: Embedder, settings: IndexSettings) -> list[dict[str, str]]:
    """Per note, in scan order: content hash -> embed text, parsed and chunked as indexing does."""
    max_tokens = settings.chunk_max_tokens or embedder.max_tokens
    config = ChunkerConfig(
        max_tokens=min(max_tokens, embedder.max_tokens),
        overlap_tokens=settings.chunk_overlap_tokens,
        sentence_vectors=settings.sentence_vectors,
    )
    notes = []
    for entry in scan_vault(
        vault, settings.extensions, settings.ignore_dirs, settings.max_file_bytes
    ):
        mtime = datetime.fromtimestamp(entry.mtime_ns / 1e9, tz=UTC)
        note = parse_file(entry.rel_path, entry.path.read_bytes(), mtime)
        chunks = chunk_note(note, VAULT_NAME, embedder.count_tokens, config)
        texts = {c.content_hash: c.embed_text for c in chunks}
        for chunk in chunks:
            texts.update(zip(chunk.sentence_hashes, chunk.sentence_texts, strict=True))
        notes.append(texts)
    return notes


def flush_groups(notes: list[dict[str, str]]) -> list[list[str]]:
    """The texts of each of the indexer's windows of notes on a fresh index (about
    ``_WINDOW_CHUNKS`` texts, counted here with their sentence windows)."""
    groups: list[list[str]] = []
    seen: set[str] = set()
    pending: list[dict[str, str]] = []
    for index, note in enumerate(notes):
        pending.append(note)
        if sum(len(p) for p in pending) >= _WINDOW_CHUNKS or index == len(notes) - 1:
            texts = {h: t for p in pending for h, t in p.items() if h not in seen}
            groups.append([texts[h] for h in sorted(texts)])
            seen.update(texts)
            pending = []
    return groups


def end_to_end(vault: Path, db: Path, embedder: Embedder, index: IndexSettings) -> IndexReport:
    """Index ``vault`` into a fresh SQLite file at ``db``, as `notecite index` does."""
    settings = Settings(home=db.parent, store=StoreSettings(path=db), index=index)
    with Engine(settings, store=SQLiteStore(db), embedder=embedder) as engine:
        engine.add_vault(VAULT_NAME, vault)
        (report,) = engine.index(VAULT_NAME)
    return report


def embedded_hashes(db: Path, model_id: str, report: IndexReport) -> set[str]:
    """The content hashes that the end-to-end run embedded (checked against its report)."""
    store = SQLiteStore(db)
    stored = {
        str(row[0])
        for table in ("embeddings", "sentence_embeddings")
        for row in store.conn.execute(
            f"SELECT content_hash FROM {table} WHERE model_id = ?", (model_id,)
        )
    }
    store.close()
    if report.failed or report.chunks_embedded + report.sentences_embedded != len(stored):
        sys.exit(f"unexpected index report: {report}")
    return stored


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
    parser.add_argument(
        "--grouped",
        action="store_true",
        help="also time embed_documents on the indexer's windows (padding effect)",
    )
    parser.add_argument(
        "--no-sentence-vectors",
        action="store_true",
        help="index.sentence_vectors = false: embed chunk texts only",
    )
    args = parser.parse_args()

    index_settings = IndexSettings(sentence_vectors=not args.no_sentence_vectors)
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
        notes_texts = note_chunks(vault, embedder, index_settings)
        prepare_s = time.perf_counter() - start
        texts = {h: t for note in notes_texts for h, t in note.items()}
        ordered = list(texts.values())
        groups = flush_groups(notes_texts)
        embedder.embed_documents(ordered[:64])  # warm-up at real lengths, untimed
        print(
            f"notes {len(notes)} of {args.vault}; unique texts {len(texts)} "
            f"(sentence vectors {'off' if args.no_sentence_vectors else 'on'}); "
            f"embedder {embedder.model_id}; model load {load_s:.2f} s; "
            f"parse+chunk alone {prepare_s:.2f} s"
        )

        steps = ["e2e", "embed", *(["grouped"] if args.grouped else [])]
        wall: dict[str, list[float]] = {step: [] for step in steps}
        cpu: dict[str, list[float]] = {step: [] for step in steps}
        for run in range(args.repeat):
            for step in steps if run % 2 == 0 else steps[::-1]:
                start, start_cpu = time.perf_counter(), time.process_time()
                if step == "e2e":
                    report = end_to_end(
                        vault, workdir / f"index-{run}.db", embedder, index_settings
                    )
                elif step == "embed":
                    embedder.embed_documents(ordered)
                else:
                    for group in groups:
                        embedder.embed_documents(group)
                wall[step].append(time.perf_counter() - start)
                cpu[step].append(time.process_time() - start_cpu)
                if step == "e2e":
                    db = workdir / f"index-{run}.db"
                    if embedded_hashes(db, embedder.model_id, report) != set(texts):
                        sys.exit("the indexer embedded other texts than the benchmark's")
                print(
                    f"  run {run + 1} {step:8s}: {wall[step][-1]:7.2f} s wall, "
                    f"{cpu[step][-1]:7.2f} s CPU (all threads); {load()}"
                )

    chunks = len(texts)  # chunk and sentence texts
    names = {
        "e2e": "end to end",
        "embed": "embed only",
        "grouped": f"embed only, in the indexer's {len(groups)} windows",
    }
    for step in steps:
        w, c = median(wall[step]), median(cpu[step])
        print(f"{names[step]}: median {w:.2f} s wall ({chunks / w:.1f} texts/s), {c:.2f} s CPU")
    e2e_w, embed_w = median(wall["e2e"]), median(wall["embed"])
    print(f"ratio embed_only / end_to_end = {embed_w / e2e_w:.3f} wall (goal >= 0.9), ", end="")
    print(f"{median(cpu['embed']) / median(cpu['e2e']):.3f} CPU")
    if args.grouped:
        print(f"ratio grouped / end_to_end = {median(wall['grouped']) / e2e_w:.3f} wall")


if __name__ == "__main__":
    main()
