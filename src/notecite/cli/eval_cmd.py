"""`notecite eval beir`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from notecite.cli.state import CliState, pass_state
from notecite.evaluate.beir import DEFAULT_PIPELINES, PIPELINES, run_beir
from notecite.evaluate.qa import run_qa


@click.group("eval")
def eval_group() -> None:
    """Measure retrieval quality on evaluation data."""


@eval_group.command("beir")
@click.option(
    "--data",
    "folder",
    required=True,
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="BEIR folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv.",
)
@click.option("--split", default="test", show_default=True, help="Which qrels file to score.")
@click.option(
    "--pipeline",
    "pipelines",
    multiple=True,
    type=click.Choice(list(PIPELINES)),
    help="Pipeline(s) to score (repeatable; default: all but full). full = the ask "
    "pipeline's retrieval: hybrid, rerank (lexical + retrieval.reranker) and auto-RAG.",
)
@click.option("--llm", default=None, help="LLM for auto-RAG in the full pipeline.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def eval_beir(
    state: CliState,
    folder: Path,
    split: str,
    pipelines: tuple[str, ...],
    llm: str | None,
    as_json: bool,
) -> None:
    """Index a BEIR corpus as notes (once) and report nDCG@10, Recall@100, MRR@10, latency."""
    chosen = list(pipelines) or list(DEFAULT_PIPELINES)
    results = run_beir(
        state.settings,
        folder,
        split,
        chosen,
        progress=lambda message: click.echo(message, err=True),
        llm=llm,
    )
    if as_json:
        click.echo(json.dumps({"split": split, "results": [asdict(r) for r in results]}, indent=2))
        return
    click.echo(f"{'pipeline':<15}{'nDCG@10':>9}{'R@100':>8}{'MRR@10':>8}{'p50 ms':>9}{'p95 ms':>9}")
    for r in results:
        click.echo(
            f"{r.pipeline:<15}{r.ndcg_10:>9.4f}{r.recall_100:>8.4f}{r.mrr_10:>8.4f}"
            f"{r.latency_p50_ms:>9.1f}{r.latency_p95_ms:>9.1f}"
        )
        if r.pipeline == "full":
            click.echo(f"  auto-RAG ran for {r.auto_rag_runs} queries, kept for {r.auto_rag_wins}")


@eval_group.command("qa")
@click.option(
    "--data",
    "data",
    required=True,
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help='JSONL lines {"question", "answerable", "gold_files", "must_contain"}.',
)
@click.option(
    "--vault",
    required=True,
    help="A folder of notes (indexed into <home>/eval/) or a registered vault's name.",
)
@click.option("-k", "k", default=5, show_default=True, help="Files counted by hit@k.")
@click.option("--llm", default=None, help="LLM provider that answers (default: configured).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def eval_qa(
    state: CliState, data: Path, vault: str, k: int, llm: str | None, as_json: bool
) -> None:
    """Ask questions with known answers; report hit@k, answer rate, abstention and citations."""
    report = run_qa(state.settings, data, vault, k, llm, progress=lambda m: click.echo(m, err=True))
    if as_json:
        click.echo(json.dumps(asdict(report), indent=2))
        return

    def show(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    click.echo(f"questions              {report.questions}")
    click.echo(f"hit@{report.k:<19}{show(report.hit_at_k)}")
    click.echo(f"answer rate            {show(report.answer_rate)}")
    click.echo(f"abstention precision   {show(report.abstention_precision)}")
    click.echo(f"abstention recall      {show(report.abstention_recall)}")
    click.echo(f"citation hit rate      {show(report.citation_hit_rate)}")
    click.echo(f"must-contain rate      {show(report.must_contain_rate)}")
