"""`notecite eval beir`."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from notecite.cli.state import CliState, pass_state
from notecite.evaluate.beir import PIPELINES, run_beir


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
    help="Pipeline(s) to score (repeatable; default: all).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def eval_beir(
    state: CliState, folder: Path, split: str, pipelines: tuple[str, ...], as_json: bool
) -> None:
    """Index a BEIR corpus as notes (once) and report nDCG@10, Recall@100, MRR@10, latency."""
    chosen = list(pipelines) or list(PIPELINES)
    results = run_beir(
        state.settings,
        folder,
        split,
        chosen,
        progress=lambda message: click.echo(message, err=True),
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
