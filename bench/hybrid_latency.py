"""Latency of one `hybrid` query on the SciFact eval index: wall and thread CPU time.

Per query: MiniLM query embedding + `Retriever.retrieve` (vector + BM25, 300 chunks each,
weighted fusion), exactly what `eval beir --pipeline hybrid` times. The embedder runs on one
thread (``threads=1``) so that the calling thread's CPU time covers the model too: on a
shared machine the CPU time is the cost of the code, the wall time adds the wait for a core.
The configured sentence vectors are on (retrieval.sentence_weight); `hybrid, chunk cosine
only` is the same query with sentence_weight 0, interleaved, as the baseline of their cost.
The rerank stages are timed apart: the lexical rerank (retrieve with it minus without) and,
with ``--e5 N``, the e5 model rerank of the top 20 for the first N queries (cold cache, then
warm).

    .venv/bin/python bench/hybrid_latency.py --home /tmp/evalhome --split test [--e5 5]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from statistics import median

import numpy as np

from notecite.config import load_settings
from notecite.engine import Engine
from notecite.evaluate.beir import CHUNKS_PER_QUERY, eval_settings
from notecite.evaluate.beir_data import load_beir
from notecite.retrieve.folders import Scope
from notecite.retrieve.rerankers import RerankerContext, create_reranker
from notecite.retrieve.retriever import Retriever

REPO = Path(__file__).resolve().parents[1]


def summary(label: str, wall: list[float], cpu: list[float]) -> None:
    print(
        f"| {label} | {median(wall):.1f} | {np.percentile(wall, 95):.1f} | "
        f"{median(cpu):.1f} | {np.percentile(cpu, 95):.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/scifact")
    parser.add_argument("--split", default="test")
    parser.add_argument("--e5", type=int, default=0, help="queries re-scored by e5")
    args = parser.parse_args()
    data = load_beir(args.data, args.split)
    settings = eval_settings(load_settings(home=args.home, embedder={"threads": 1}), data.name)
    with Engine(settings) as engine:
        vault = engine.vault(data.name)
        scope = [Scope(vault, "", 1.0)]
        base = engine.retrieval_options()
        plain = Retriever(engine.store, engine.embedder.model_id, replace(base, reranker="none"))
        lexical = Retriever(
            engine.store, engine.embedder.model_id, replace(base, reranker="lexical")
        )
        cosine_only = Retriever(
            engine.store,
            engine.embedder.model_id,
            replace(base, reranker="none", sentence_weight=0.0),
        )
        queries = list(data.queries.values())
        for text in queries[:20]:  # warm-up: model, matrix, SQLite pages
            plain.retrieve(text, engine.embedder.embed_query(text), scope, CHUNKS_PER_QUERY)
        stages = (("hybrid", plain), ("lexical", lexical), ("cosine", cosine_only))
        walls: dict[str, list[float]] = {name: [] for name, _ in stages}
        cpus: dict[str, list[float]] = {name: [] for name, _ in stages}
        for text in queries:
            for name, retriever in stages:
                w, c = time.perf_counter(), time.thread_time()
                vector = engine.embedder.embed_query(text)
                retriever.retrieve(text, vector, scope, CHUNKS_PER_QUERY)
                walls[name].append((time.perf_counter() - w) * 1000)
                cpus[name].append((time.thread_time() - c) * 1000)
        print(f"{len(queries)} {args.split} queries, interleaved")
        print("| stage | wall p50 ms | wall p95 ms | thread CPU p50 ms | thread CPU p95 ms |")
        print("| --- | --- | --- | --- | --- |")
        summary("hybrid (embedding included, no rerank)", walls["hybrid"], cpus["hybrid"])
        summary("hybrid, chunk cosine only (sentence_weight 0)", walls["cosine"], cpus["cosine"])
        summary("hybrid + lexical rerank", walls["lexical"], cpus["lexical"])
        extra_wall = [b - a for a, b in zip(walls["hybrid"], walls["lexical"], strict=True)]
        extra_cpu = [b - a for a, b in zip(cpus["hybrid"], cpus["lexical"], strict=True)]
        summary("lexical rerank alone (difference)", extra_wall, extra_cpu)
        if args.e5:
            cache = Path(tempfile.mkdtemp(prefix="notecite-e5-"))  # starts cold
            reranker = create_reranker("e5", RerankerContext(settings.retrieval, cache))
            e5 = Retriever(
                engine.store,
                engine.embedder.model_id,
                replace(base, reranker="e5"),
                reranker=reranker,
            )
            for label in ("e5 rerank of the top 20, first run", "e5 rerank, cached passages"):
                stage = []
                for text in queries[: args.e5]:
                    result = e5.retrieve(
                        text, engine.embedder.embed_query(text), scope, CHUNKS_PER_QUERY
                    )
                    stage.append(result.rerank_ms)
                print(f"| {label} | {median(stage):.1f} | {max(stage):.1f} (max) | - | - |")


if __name__ == "__main__":
    main()
