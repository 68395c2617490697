"""`notecite eval beir`: index a BEIR folder as notes and score retrieval pipelines on it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import median

import numpy as np

from notecite.config import Settings
from notecite.engine import Engine
from notecite.evaluate.beir_data import load_beir, write_vault
from notecite.evaluate.metrics import evaluate_run
from notecite.retrieve.folders import Scope
from notecite.retrieve.retriever import Candidate, Retrieval, Retriever
from notecite.schemas.ask import AskRequest, DebugInfo

PIPELINES: dict[str, tuple[str | None, str]] = {
    # name: (fusion strategy or None for the configured one, reranker)
    "bm25": ("bm25", "none"),
    "dense": ("vector", "none"),
    "hybrid": (None, "none"),
    "hybrid+rerank": (None, "lexical"),
    # the ask pipeline's retrieval: hybrid, lexical + the configured model reranker, auto-RAG
    "full": (None, "lexical"),
}
DEFAULT_PIPELINES = ("bm25", "dense", "hybrid", "hybrid+rerank")
CHUNKS_PER_QUERY = 300
DOCS_PER_QUERY = 100


@dataclass(frozen=True)
class PipelineResult:
    """Metrics and per-query latency of one pipeline."""

    pipeline: str
    strategy: str
    ndcg_10: float
    recall_100: float
    mrr_10: float
    latency_p50_ms: float
    latency_p95_ms: float
    queries: int
    auto_rag_runs: int = 0
    auto_rag_wins: int = 0


def eval_settings(settings: Settings, dataset: str) -> Settings:
    """Settings whose store is a separate file for this dataset (embeddings reused by re-runs)."""
    path = settings.home / "eval" / f"{dataset}.db"
    return settings.model_copy(update={"store": settings.store.model_copy(update={"path": path})})


def run_beir(
    settings: Settings,
    folder: Path,
    split: str,
    pipelines: Sequence[str],
    progress: Callable[[str], None] = lambda message: None,
    llm: str | None = None,
) -> list[PipelineResult]:
    """Index ``folder``'s corpus (incrementally) and evaluate each pipeline on ``split``.

    ``full`` runs the ask pipeline's retrieval (model reranker and auto-RAG as configured)
    with the LLM ``llm`` (default: the configured one) for auto-RAG's steps.
    """
    data = load_beir(folder, split)
    settings = eval_settings(settings, data.name)
    vault_dir = settings.home / "eval" / f"{data.name}-notes"
    progress(f"writing {len(data.corpus)} documents as notes in {vault_dir}")
    stems = write_vault(data, vault_dir)
    results = []
    with Engine(settings) as engine:
        vault = engine.store.get_vault(data.name) or engine.add_vault(data.name, vault_dir)
        progress("indexing (only new or changed documents are embedded)")
        for report in engine.index(data.name):
            progress(report.summary())
        queries = list(data.queries.items())
        started = time.perf_counter()
        engine.embedder.embed_query("warm-up")  # loads the model outside the timings
        progress(f"model warm-up took {(time.perf_counter() - started) * 1000:.0f} ms")
        scope = [Scope(vault, "", 1.0)]
        for name in pipelines:
            strategy, reranker = PIPELINES[name]
            options = replace(engine.retrieval_options(strategy), reranker=reranker)
            search: Callable[[str], Retrieval]
            tally = AutoRagTally()
            if name == "full":
                search = _full_search(engine, vault.name, llm, tally)
            else:
                retriever = Retriever(engine.store, engine.embedder.model_id, options)

                def search(
                    text: str,
                    retriever: Retriever = retriever,
                    lexical_only: bool = strategy == "bm25",
                ) -> Retrieval:
                    vector = None if lexical_only else engine.embedder.embed_query(text)
                    return retriever.retrieve(text, vector, scope, CHUNKS_PER_QUERY)

            run: dict[str, dict[str, float]] = {}
            latencies = []
            for qid, text in queries:
                t = time.perf_counter()
                retrieval = search(text)
                docs: dict[str, float] = {}
                for cand in _ranked(retrieval.candidates):
                    doc_id = stems.get(Path(cand.chunk.rel_path).stem)
                    if doc_id is not None and doc_id not in docs:
                        docs[doc_id] = cand.final
                    if len(docs) >= DOCS_PER_QUERY:
                        break
                latencies.append((time.perf_counter() - t) * 1000)
                run[qid] = docs
            scores = evaluate_run(data.qrels, run)
            results.append(
                PipelineResult(
                    pipeline=name,
                    strategy=options.strategy,
                    ndcg_10=scores["ndcg@10"],
                    recall_100=scores["recall@100"],
                    mrr_10=scores["mrr@10"],
                    latency_p50_ms=median(latencies),
                    latency_p95_ms=float(np.percentile(latencies, 95)),
                    queries=len(queries),
                    auto_rag_runs=tally.runs,
                    auto_rag_wins=tally.wins,
                )
            )
            progress(f"{name}: nDCG@10 {scores['ndcg@10']:.4f}")
    return results


def _ranked(candidates: Sequence[Candidate]) -> list[Candidate]:
    return sorted(candidates, key=lambda c: (-c.final, c.rowid))


@dataclass
class AutoRagTally:
    """How often auto-RAG ran in the full pipeline, and how often its result was kept."""

    runs: int = 0
    wins: int = 0


def _full_search(
    engine: Engine, vault: str, llm: str | None, tally: AutoRagTally
) -> Callable[[str], Retrieval]:
    """The ask pipeline's retrieval over one vault, as deep as the other pipelines."""
    ask = engine.settings.ask.model_copy(
        update={"hits_per_scope": CHUNKS_PER_QUERY, "folder_ranking": False}
    )
    stage = engine.retrieval_stage([vault], llm=engine.llm(llm), ask=ask)

    def search(text: str) -> Retrieval:
        debug = DebugInfo()
        retrieved = stage.retrieve(AskRequest(question=text, vaults=[vault]), debug)
        tally.runs += debug.auto_rag.triggered
        tally.wins += debug.auto_rag.winner == "auto"
        return Retrieval(retrieved.candidates)

    return search
