"""PostgreSQL against SQLite on the vault QA set: do both stores rank the same hits?

An existing SQLite index of one vault (built by ``notecite eval qa``, any embedder) is copied
into a fresh PostgreSQL database with ``store migrate`` (vectors and sentence vectors come
along; nothing is re-embedded). Then every question of that vault in ``bench/qa/vaults.jsonl``
is searched on both, with the index's own embedder and the default (hybrid) settings, and
full text alone (``lexical_search``, top 5). Printed: how many questions have the same top
hit, the mean overlap of the top 5, and how many of PostgreSQL's top-5 hits are "near-empty"
(fewer than 8 words of text), against SQLite's.

    cd bench && PYTHONPATH=../src ../.venv/bin/python pg_parity.py \\
        --sqlite /tmp/home/eval/qa-foam.db --vault foam --url postgresql://app@/db?host=/tmp/pg
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from notecite import Engine, load_settings
from notecite.store.migrate import Location, migrate_index
from notecite.types import SearchFilter

QA = Path(__file__).resolve().parent / "qa" / "vaults.jsonl"
K = 5


def _hits(engine: Engine, question: str) -> tuple[list[str], list[str], list[int]]:
    """Top-K hybrid chunk ids, top-K full-text chunk ids, and word counts of the latter."""
    hybrid = [r.chunk_id for r in engine.search(question, k=K)]
    store = engine.store
    found = store.lexical_search(question, SearchFilter(), K)
    chunks = store.fetch_chunks([h.chunk_rowid for h in found])
    lexical = [chunks[h.chunk_rowid].chunk_id for h in found]
    words = [len(chunks[h.chunk_rowid].text.split()) for h in found]
    return hybrid, lexical, words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sqlite", type=Path, required=True, help="SQLite index of the vault")
    parser.add_argument("--vault", required=True, help="vault name in vaults.jsonl")
    parser.add_argument("--url", required=True, help="PostgreSQL database to copy it into")
    parser.add_argument("--home", type=Path, default=Path("/tmp/pg-parity-home"))
    args = parser.parse_args()
    (report,) = migrate_index(Location(path=args.sqlite), Location(url=args.url))
    print("migrate mismatches:", report.mismatches(), report.copied)
    questions = [
        row["question"]
        for row in map(json.loads, QA.read_text().splitlines())
        if row["vault"] == args.vault
    ]
    base = {"llm": "extractive", "ask": {"folder_ranking": False}}
    sqlite = load_settings(home=args.home / "sqlite", store={"path": args.sqlite}, **base)
    postgres = load_settings(
        home=args.home / "pg", store={"backend": "postgres", "url": args.url}, **base
    )
    same_top = same_lex_top = 0
    overlap = lex_overlap = 0.0
    short = {"sqlite": 0, "postgres": 0}
    with Engine(sqlite) as lite, Engine(postgres) as pg:
        for question in questions:
            (h1, l1, w1), (h2, l2, w2) = _hits(lite, question), _hits(pg, question)
            same_top += bool(h1) and bool(h2) and h1[0] == h2[0]
            same_lex_top += bool(l1) and bool(l2) and l1[0] == l2[0]
            overlap += len(set(h1) & set(h2)) / K
            lex_overlap += len(set(l1) & set(l2)) / K
            short["sqlite"] += sum(w < 8 for w in w1)
            short["postgres"] += sum(w < 8 for w in w2)
    n = len(questions)
    print(f"{args.vault}: {n} questions")
    print(f"hybrid, k={K}: same top hit {same_top}/{n}, top-{K} overlap {overlap / n:.3f}")
    print(f"full text: same top hit {same_lex_top}/{n}, top-{K} overlap {lex_overlap / n:.3f}")
    print(f"full-text hits under 8 words: sqlite {short['sqlite']}, postgres {short['postgres']}")


if __name__ == "__main__":
    main()
