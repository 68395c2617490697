"""`notecite eval beir`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from notecite.cli.state import CliState, pass_state
from notecite.evaluate.beir import DEFAULT_PIPELINES, PIPELINES, run_beir
from notecite.evaluate.qa import run_qa, write_records


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
    help="JSONL questions (bench/qa/README.md describes the format).",
)
@click.option(
    "--vault",
    "vaults",
    multiple=True,
    help="NAME=FOLDER for a vault the questions name (default: vaults.json beside the data "
    "file, else the registered vault); or one FOLDER_OR_NAME for lines that name no vault. "
    "Folders are indexed into <home>/eval/qa-<name>.db.",
)
@click.option(
    "--split",
    type=click.Choice(["dev", "test", "all"]),
    default="all",
    show_default=True,
    help="Which questions to ask (tune on dev only).",
)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Ask only the first N.")
@click.option("-k", "k", default=5, show_default=True, help="Files counted by gold retrieved.")
@click.option("--llm", default=None, help="LLM provider that answers (default: configured).")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write one JSON line per question (answer, references, abstention, timings).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def eval_qa(
    state: CliState,
    data: Path,
    vaults: tuple[str, ...],
    split: str,
    limit: int | None,
    k: int,
    llm: str | None,
    out: Path | None,
    as_json: bool,
) -> None:
    """Ask questions with known answers and score the answers per kind of question.

    Reports gold note cited, gold retrieved, must-contain, wrongly abstained, abstained and
    wall time, per kind and overall.
    """
    run = run_qa(
        state.settings,
        data,
        vaults,
        k=k,
        llm=llm,
        split=split,
        limit=limit,
        progress=lambda m: click.echo(m, err=True),
    )
    if out is not None:
        write_records(run.records, out)
    report = run.report
    if as_json:
        payload = {"split": split, "llms": run.llms, **asdict(report)}
        click.echo(json.dumps(payload, indent=2))
        return

    def show(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    def seconds(value: float | None) -> str:
        return "n/a" if value is None else f"{value / 1000:.2f}"

    click.echo(f"{report.questions} questions, split {split}, answered by {', '.join(run.llms)}")
    click.echo(
        f"{'group':<15}{'n':>4}{'cited':>7}{f'hit@{report.k}':>7}{'must':>7}"
        f"{'wrong-abst':>11}{'abstained':>10}{'p50 s':>7}{'p95 s':>7}"
    )
    for g in report.groups:
        click.echo(
            f"{g.group:<15}{g.questions:>4}{show(g.gold_cited):>7}{show(g.gold_retrieved):>7}"
            f"{show(g.must_contain):>7}{show(g.wrongly_abstained):>11}{show(g.abstained):>10}"
            f"{seconds(g.p50_ms):>7}{seconds(g.p95_ms):>7}"
        )
