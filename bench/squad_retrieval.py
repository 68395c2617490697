"""Sentence vectors on a second dataset: SQuAD 2.0 dev paragraphs as notes.

The 16 articles of the shared SQuAD 2.0 dev half become 16 notes (one `## Paragraph N`
section per paragraph, as bench/ask_squad.py writes them), indexed once with the bundled
MiniLM and sentence vectors into bench/out/squad-retrieval/. Every answerable question is
then retrieved with the ask pipeline's retriever (weighted hybrid; with and without the
lexical rerank) at retrieval.sentence_weight 0 (chunk cosine only) and at the configured
default, in the same process over the same index. A hit is the question's own paragraph
(note and `Paragraph N` heading) among the top k chunks; reported: hit@1, hit@5, MRR@10 and
the dense-only hit@1.

    .venv/bin/python bench/squad_retrieval.py            # ~6 min the first time (indexing)
    .venv/bin/python bench/squad_retrieval.py --postgres # the same on PostgreSQL + pgvector
    .venv/bin/python bench/squad_retrieval.py --activations float  # MiniLM's float variant

With --postgres the index is built in a fresh database of a PostgreSQL 16 + pgvector
server started from the pgserver wheel (as bench/store_100k.py does), embedding everything
again, and the tables compare the two stores on the same questions.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Literal

from _measure import REPO, machine, median
from ask_squad import load_questions, write_vault
from notecite.config import EmbedderSettings, RetrievalSettings, Settings, StoreSettings
from notecite.engine import Engine
from notecite.retrieve.folders import Scope
from notecite.retrieve.retriever import Retriever
from store_100k import postgres

OUT = REPO / "bench" / "out" / "squad-retrieval"
DEPTH = 50


@contextmanager
def open_engine(
    on_postgres: bool, activations: Literal["int8", "float"] | None = None
) -> Iterator[Engine]:
    data, _ = load_questions()
    vault = OUT / "vault"
    if not vault.is_dir():
        OUT.mkdir(parents=True, exist_ok=True)
        write_vault(data, vault)
    embedder = EmbedderSettings(name="minilm", activations=activations)
    with postgres() if on_postgres else _no_server() as server:
        if server is not None:
            store = StoreSettings(backend="postgres", url=server.url(server.database()))
        else:
            name = f"index-{activations}.db" if activations else "index.db"
            store = StoreSettings(path=OUT / name)
        engine = Engine(Settings(home=OUT, store=store, embedder=embedder))
        try:
            if engine.store.get_vault("squad") is None:
                engine.add_vault("squad", vault)
            start = time.perf_counter()
            (report,) = engine.index("squad")
            print(
                f"index ({store.backend}, {engine.embedder.model_id}): {report.summary()}, "
                f"{report.chunks_embedded} chunks and {report.sentences_embedded} sentences "
                "embedded in "
                f"{time.perf_counter() - start:.0f} s"
            )
            yield engine
        finally:
            engine.close()


@contextmanager
def _no_server() -> Iterator[None]:
    yield None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--postgres", action="store_true", help="index and search on PostgreSQL")
    parser.add_argument(
        "--activations",
        choices=["int8", "float"],
        help="MiniLM's variant (an index of its own); default: the index's, int8 when new",
    )
    args = parser.parse_args()
    print(f"machine: {machine()}")
    with open_engine(args.postgres, args.activations) as engine:
        report(engine)


def report(engine: Engine) -> None:
    _, questions = load_questions()
    answerable = [q for q in questions if q.answerable]
    vault = engine.store.get_vault("squad")
    assert vault is not None
    scopes = [Scope(vault=vault, folder="", weight=1.0)]
    default_w = RetrievalSettings().sentence_weight
    print(f"{len(answerable)} answerable questions; depth {DEPTH}")
    print("| pipeline | sentence_weight | hit@1 | hit@5 | MRR@10 | p50 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    vectors = {q.qid: engine.embedder.embed_query(q.question) for q in answerable}
    for strategy, reranker in (("vector", "none"), (None, "none"), (None, "lexical")):
        for weight in (0.0, default_w):
            options = replace(
                engine.retrieval_options(strategy), reranker=reranker, sentence_weight=weight
            )
            retriever = Retriever(engine.store, engine.embedder.model_id, options)
            hit1 = hit5 = 0
            rr = 0.0
            times = []
            for q in answerable:
                start = time.perf_counter()
                found = retriever.retrieve(q.question, vectors[q.qid], scopes, DEPTH)
                times.append((time.perf_counter() - start) * 1000)
                want = (q.note, f"Paragraph {q.paragraph}")
                ranks = [
                    i
                    for i, c in enumerate(found.candidates[:10], start=1)
                    if c.chunk.rel_path == want[0] and c.chunk.heading_path.endswith(want[1])
                ]
                first = ranks[0] if ranks else None
                hit1 += first == 1
                hit5 += first is not None and first <= 5
                rr += 1 / first if first else 0.0
            n = len(answerable)
            label = {"vector": "dense"}.get(strategy or "", "hybrid") + (
                " + lexical rerank" if reranker == "lexical" else ""
            )
            print(
                f"| {label} | {weight} | {hit1 / n:.4f} | {hit5 / n:.4f} | {rr / n:.4f} | "
                f"{median(times):.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
