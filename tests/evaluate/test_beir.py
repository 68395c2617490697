"""`eval beir` on a tiny BEIR-format fixture whose metrics are computed by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from notecite import Settings
from notecite.cli.main import cli
from notecite.evaluate.beir import run_beir
from notecite.evaluate.metrics import evaluate_run

DOCS = {
    "d1": ("Apples", "apple banana fruit salad"),
    "d2": ("Engines", "car engine maintenance schedule"),
    "d3": ("Baking", "banana bread recipe with walnuts"),
}
QUERIES = {"q1": "apple", "q2": "engine oil", "q3": "banana bread recipe"}
QRELS = {"q1": {"d1": 1}, "q2": {"d3": 1}, "q3": {"d1": 1}}


def write_fixture(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w") as handle:
        for doc_id, (title, text) in DOCS.items():
            handle.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w") as handle:
        for qid, text in QUERIES.items():
            handle.write(json.dumps({"_id": qid, "text": text}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"]
    lines += [f"{q}\t{d}\t{s}" for q, docs in QRELS.items() for d, s in docs.items()]
    (folder / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    return folder


def test_metrics_by_hand() -> None:
    run = {
        "q1": {"d1": 3.0, "d3": 1.0},  # relevant at rank 1
        "q2": {"d2": 2.0},  # relevant not retrieved
        "q3": {"d3": 2.0, "d1": 1.0},  # relevant at rank 2
    }
    scores = evaluate_run(QRELS, run)
    assert scores["ndcg@10"] == pytest.approx((1 + 0 + 1 / 1.5849625007) / 3, abs=1e-6)
    assert scores["recall@100"] == pytest.approx(2 / 3)
    assert scores["mrr@10"] == pytest.approx((1 + 0 + 0.5) / 3)


def test_bm25_pipeline_on_fixture(tmp_path: Path, settings: Settings) -> None:
    folder = write_fixture(tmp_path / "tiny")
    (result,) = run_beir(settings, folder, "test", ["bm25"])
    # q1 -> d1 first; q2 matches only d2 (d3 is judged relevant); q3 -> d3 first, d1 second.
    assert result.queries == 3
    assert result.ndcg_10 == pytest.approx((1 + 0 + 1 / 1.5849625007) / 3, abs=1e-6)
    assert result.recall_100 == pytest.approx(2 / 3)
    assert result.mrr_10 == pytest.approx(0.5)


def test_second_run_embeds_nothing_new(tmp_path: Path, settings: Settings) -> None:
    folder = write_fixture(tmp_path / "tiny")
    messages: list[str] = []
    run_beir(settings, folder, "test", ["dense"], progress=messages.append)
    assert any("added 3" in m for m in messages)
    messages.clear()
    run_beir(settings, folder, "test", ["dense"], progress=messages.append)
    assert any("unchanged 3" in m for m in messages)


def test_cli_json(tmp_path: Path) -> None:
    folder = write_fixture(tmp_path / "tiny")
    home = tmp_path / "home"
    result = CliRunner().invoke(
        cli,
        [
            *("--home", str(home), "--embedder", "hash", "eval", "beir", "--data", str(folder)),
            *("--pipeline", "bm25", "--pipeline", "hybrid", "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout[result.stdout.index("{") :])
    assert [r["pipeline"] for r in payload["results"]] == ["bm25", "hybrid"]
    assert set(payload["results"][0]) >= {"ndcg_10", "recall_100", "mrr_10", "latency_p50_ms"}


def test_not_a_beir_folder(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["--home", str(tmp_path), "eval", "beir", "--data", str(tmp_path)]
    )
    assert result.exit_code == 1
    assert "not a BEIR folder" in result.output
