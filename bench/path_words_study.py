"""Do the words of a note's path help dense retrieval? Chunk vectors with and without them.

Every markdown note of the Foam and Dendron vaults is parsed and chunked as the index does,
and each chunk's embedded text is embedded twice with the bundled embedder: as the chunker
writes it (the words of the note's path first, :func:`notecite.chunking.chunker.path_words`)
and with that first line left out. Each answerable question of the vault QA sets (dev split
by default) is embedded as a query; a note's score is its best chunk's cosine, and the rank
of the best-ranked gold note is reported: first, in the top 3, in the top 10, and the mean
reciprocal rank. Dense retrieval alone, no BM25, fusion or sentence vectors: the one signal
the path words change. Nothing is read from or written to an index.

    python bench/path_words_study.py [--split dev] [--changed]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from _measure import QA_DEV_SETS, REPO, machine
from notecite.chunking.chunker import ChunkerConfig, chunk_note, path_words
from notecite.config import load_settings
from notecite.embed.base import Embedder
from notecite.embed.registry import create_embedder
from notecite.errors import ParseError
from notecite.evaluate.qa_data import QaItem, load_qa
from notecite.ingest.markdown import parse_markdown

VAULTS = {
    "foam": REPO.parent / "shared" / "data" / "vault-foam" / "docs",
    "dendron": REPO.parent / "shared" / "data" / "vault-dendron" / "vault",
}
BATCH = 64


@dataclass
class Corpus:
    """One vault's chunks: the note of each, and the vectors with and without path words."""

    notes: list[str]
    with_path: np.ndarray
    without_path: np.ndarray


def _embed(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    return np.vstack(
        [
            np.asarray(embedder.embed_documents(texts[i : i + BATCH]))
            for i in range(0, len(texts), BATCH)
        ]
    )


def _corpus(root: Path, vault: str, embedder: Embedder) -> Corpus:
    notes: list[str] = []
    with_path: list[str] = []
    without_path: list[str] = []
    config = ChunkerConfig(max_tokens=embedder.max_tokens)
    for path in sorted(root.rglob("*.md")):
        rel_path = path.relative_to(root).as_posix()
        try:
            note = parse_markdown(rel_path, path.read_text(encoding="utf-8"), datetime.now(UTC))
        except (ParseError, UnicodeDecodeError):
            continue
        words = path_words(rel_path)
        for chunk in chunk_note(note, vault, embedder.count_tokens, config):
            notes.append(rel_path)
            with_path.append(chunk.embed_text)
            plain = chunk.embed_text
            if words and plain.startswith(words + "\n"):
                plain = plain[len(words) + 1 :]
            without_path.append(plain)
    return Corpus(notes, _embed(embedder, with_path), _embed(embedder, without_path))


def _gold_rank(corpus: Corpus, vectors: np.ndarray, query: np.ndarray, gold: Sequence[str]) -> int:
    """The 0-based rank of the best-ranked gold note by its best chunk's cosine (a large
    number when no gold note is in the vault)."""
    best: dict[str, float] = {}
    for note, score in zip(corpus.notes, vectors @ query, strict=True):
        best[note] = max(best.get(note, -1.0), float(score))
    order = sorted(best, key=lambda note: -best[note])
    return min((order.index(g) for g in gold if g in best), default=len(order))


def _row(name: str, ranks: Sequence[int]) -> str:
    mrr = sum(1 / (r + 1) for r in ranks) / len(ranks)
    first = sum(r == 0 for r in ranks)
    top3 = sum(r < 3 for r in ranks)
    top10 = sum(r < 10 for r in ranks)
    return f"{name:<22} {first:>5} {top3:>5} {top10:>6} {mrr:>6.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, nargs="+", default=list(QA_DEV_SETS))
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--changed", action="store_true", help="list questions that moved")
    args = parser.parse_args()
    embedder = create_embedder(load_settings().embedder)
    items: list[QaItem] = [
        item
        for path in args.data
        for item in load_qa(path)
        if item.split == args.split and item.answerable and item.vault in VAULTS
    ]
    print(machine())
    print(f"{len(items)} answerable {args.split} questions, dense retrieval alone")
    without: list[int] = []
    with_path: list[int] = []
    moved: list[str] = []
    for vault, root in VAULTS.items():
        corpus = _corpus(root, vault, embedder)
        for item in (i for i in items if i.vault == vault):
            query = np.asarray(embedder.embed_query(item.question)).reshape(-1)
            before = _gold_rank(corpus, corpus.without_path, query, item.gold_files)
            after = _gold_rank(corpus, corpus.with_path, query, item.gold_files)
            without.append(before)
            with_path.append(after)
            if (before < 3) != (after < 3):
                moved.append(f"  {item.id}: gold rank {before} -> {after}")
    print(f"{'chunk vectors':<22} {'first':>5} {'top3':>5} {'top10':>6} {'MRR':>6}")
    print(_row("without path words", without))
    print(_row("with path words", with_path))
    if args.changed:
        print("in or out of the top 3:")
        print("\n".join(moved))


if __name__ == "__main__":
    main()
