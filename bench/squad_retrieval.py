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
"""

from __future__ import annotations

import time
from dataclasses import replace

from _measure import REPO, machine, median
from ask_squad import load_questions, write_vault
from notecite.config import EmbedderSettings, RetrievalSettings, Settings, StoreSettings
from notecite.engine import Engine
from notecite.retrieve.folders import Scope
from notecite.retrieve.retriever import Retriever

OUT = REPO / "bench" / "out" / "squad-retrieval"
DEPTH = 50


def open_engine() -> Engine:
    data, _ = load_questions()
    vault, db = OUT / "vault", OUT / "index.db"
    settings = Settings(
        home=OUT, store=StoreSettings(path=db), embedder=EmbedderSettings(name="minilm")
    )
    if not vault.is_dir():
        OUT.mkdir(parents=True, exist_ok=True)
        write_vault(data, vault)
    engine = Engine(settings)
    if engine.store.get_vault("squad") is None:
        engine.add_vault("squad", vault)
    start = time.perf_counter()
    (report,) = engine.index("squad")
    print(
        f"index: {report.summary()}, {report.chunks_embedded} chunks and "
        f"{report.sentences_embedded} sentences embedded in {time.perf_counter() - start:.0f} s"
    )
    return engine


def main() -> None:
    print(f"machine: {machine()}")
    engine = open_engine()
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
    engine.close()


if __name__ == "__main__":
    main()
