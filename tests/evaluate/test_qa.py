"""`eval qa` end to end: real runs with the extractive LLM over tiny vaults, through the
Python API and the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from notecite import Settings
from notecite.cli.main import cli
from notecite.errors import ConfigError, VaultError
from notecite.evaluate.beir import run_beir
from notecite.evaluate.qa import parse_vault_options, run_qa
from notecite.testing import write_files
from tests.evaluate.test_beir import write_fixture

WORK = {
    "projects/apollo.md": (
        "# Apollo\n\n## Launch\n\nThe Apollo launch is scheduled for March 14 in Lisbon.\n\n"
        "## Budget\n\nThe Apollo budget is 40000 euros.\n"
    ),
    "recipes/bread.md": "# Bread\n\n## Hydration\n\nMy sourdough uses 75 percent hydration.\n",
}
HOME = {"garden.md": "# Garden\n\n## Tomatoes\n\nI plant tomatoes in the greenhouse in May.\n"}


def line(id: str, kind: str, vault: str, question: str, **more: Any) -> dict[str, Any]:
    answerable = kind not in {"near-miss", "off-topic"}
    return {"id": id, "question": question, "kind": kind, "vault": vault, **more} | {
        "answerable": answerable
    }


QUESTIONS = [
    line(
        "w1",
        "fact",
        "work",
        "When is the Apollo launch?",
        gold_files=["projects/apollo.md"],
        gold_headings=["Apollo > Launch"],
        must_contain=["March 14"],
        split="dev",
    ),
    line(
        "w2",
        "folder-scoped",
        "work",
        "What hydration does my sourdough use?",
        folders=["recipes"],
        gold_files=["recipes/bread.md"],
        gold_headings=["Bread > Hydration"],
        must_contain=[["75 percent", "75%"]],
        split="test",
    ),
    line(
        "h1",
        "how-to",
        "home",
        "When do I plant tomatoes in the greenhouse?",
        gold_files=["garden.md"],
        gold_headings=["Garden > Tomatoes"],
        must_contain=["May"],
        split="dev",
    ),
    line("o1", "off-topic", "home", "Who won the 2018 FIFA World Cup?", split="test"),
]


def write_set(tmp_path: Path) -> Path:
    """The vaults, the questions and a vaults.json naming the vaults' folders."""
    write_files(tmp_path / "vaults" / "work", WORK)
    write_files(tmp_path / "vaults" / "home", HOME)
    data = tmp_path / "qa" / "set.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    manifest = {"work": "../vaults/work", "home": "../vaults/home"}
    (data.parent / "vaults.json").write_text(json.dumps(manifest))
    return data


def test_a_real_run_over_two_vaults(tmp_path: Path, settings: Settings) -> None:
    data = write_set(tmp_path)
    messages: list[str] = []
    run = run_qa(settings, data, progress=messages.append)
    assert [r.id for r in run.records] == ["w1", "w2", "h1", "o1"]
    answerable = run.report.group("answerable")
    # the extractive answer quotes the best sentences of the cited gold note
    assert answerable.questions == 3
    assert answerable.gold_cited == 1.0
    assert answerable.must_contain == 1.0
    assert answerable.wrongly_abstained == 0.0
    assert [g.group for g in run.report.groups] == [
        "fact",
        "how-to",
        "folder-scoped",
        "off-topic",
        "answerable",
        "all",
    ]
    scoped = run.records[1]
    assert scoped.references
    assert all(r["rel_path"].startswith("recipes/") for r in scoped.references)
    assert all(r.wall_ms > 0 for r in run.records)
    assert run.records[0].timings_ms["total"] >= 0
    assert run.llms == ["extractive"]
    # each vault in its own store under <home>/eval/, embedded once
    assert (settings.home / "eval" / "qa-work.db").is_file()
    assert (settings.home / "eval" / "qa-home.db").is_file()
    assert "work: added 2, updated 0, unchanged 0, removed 0, failed 0" in messages
    again: list[str] = []
    run_qa(settings, data, split="dev", progress=again.append)
    assert "work: added 0, updated 0, unchanged 2, removed 0, failed 0" in again
    assert "home: added 0, updated 0, unchanged 1, removed 0, failed 0" in again
    assert sum(" answered " in m or " abstained " in m for m in again) == 2  # the dev split


def test_a_vault_option_overrides_the_manifest(tmp_path: Path, settings: Settings) -> None:
    data = write_set(tmp_path)
    run_qa(settings, data, split="dev")  # the home vault from vaults.json, indexed
    moved = {"garden.md": HOME["garden.md"].replace("May", "May, after the frost")}
    elsewhere = write_files(tmp_path / "elsewhere", moved)
    messages: list[str] = []
    run = run_qa(settings, data, [f"home={elsewhere}"], split="dev", progress=messages.append)
    assert any("home: the folder moved" in m for m in messages)
    assert "after the frost" in run.records[-1].answer
    (data.parent / "vaults.json").unlink()
    with pytest.raises(VaultError, match="--vault work=FOLDER"):
        run_qa(settings, data, [f"home={elsewhere}"])


def test_vault_options_are_named_or_one_bare() -> None:
    assert parse_vault_options(["a=/x", "b=/y", "notes"]) == ({"a": "/x", "b": "/y"}, "notes")
    with pytest.raises(ConfigError, match="NAME=FOLDER"):
        parse_vault_options(["=/x"])
    with pytest.raises(ConfigError, match="once"):
        parse_vault_options(["a", "b"])


OLD_FORMAT = [
    {
        "question": "When is the Apollo launch?",
        "answerable": True,
        "gold_files": ["projects/apollo.md"],
        "must_contain": ["March 14"],
    },
    {
        "question": "What hydration does my sourdough use?",
        "answerable": True,
        "gold_files": ["recipes/bread.md"],
        "must_contain": ["75 percent"],
    },
]


def test_the_older_format_runs_against_one_folder(tmp_path: Path, settings: Settings) -> None:
    vault = write_files(tmp_path / "notes", WORK)
    data = tmp_path / "qa.jsonl"
    data.write_text("".join(json.dumps(q) + "\n" for q in OLD_FORMAT))
    report = run_qa(settings, data, [str(vault)], k=1).report
    assert [g.group for g in report.groups] == ["answerable", "all"]
    assert report.group("answerable").gold_retrieved == 1.0
    assert report.group("answerable").gold_cited == 1.0
    assert report.group("answerable").must_contain == 1.0
    assert (settings.home / "eval" / "qa-notes.db").is_file()  # its own store
    with pytest.raises(ConfigError, match="name no vault"):
        run_qa(settings, data)


def test_cli_json_and_the_per_question_dump(tmp_path: Path) -> None:
    data = write_set(tmp_path)
    out = tmp_path / "out" / "answers.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            *("--home", str(tmp_path / "home"), "--embedder", "hash", "--llm", "extractive"),
            *("eval", "qa", "--data", str(data), "--split", "test", "--limit", "1"),
            *("--out", str(out), "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert (payload["split"], payload["questions"], payload["llms"]) == ("test", 1, ["extractive"])
    assert [g["group"] for g in payload["groups"]] == ["folder-scoped", "answerable", "all"]
    (record,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert record["id"] == "w2"
    assert "75 percent" in record["answer"]
    assert record["references"][0]["rel_path"] == "recipes/bread.md"
    assert (record["gold_cited"], record["must_contain"], record["abstain_reason"]) == (
        True,
        True,
        None,
    )
    assert record["wall_ms"] > 0
    assert set(record["timings_ms"]) >= {"retrieve", "generate", "total"}
    assert "answerability" in record  # the gate's P, None where it did not run
    assert record["reading"] is None  # the extractive provider has no reading check


def test_cli_table(tmp_path: Path) -> None:
    data = write_set(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            *("--home", str(tmp_path / "home"), "--embedder", "hash", "--llm", "extractive"),
            *("eval", "qa", "--data", str(data), "--split", "dev"),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = {row.split()[0]: row.split()[1:] for row in result.stdout.splitlines()[2:]}
    assert set(rows) == {"fact", "how-to", "answerable", "all"}
    assert rows["answerable"][:4] == ["2", "1.00", "1.00", "1.00"]  # n, cited, hit@5, must


def test_beir_full_pipeline_runs_the_ask_retrieval(tmp_path: Path, settings: Settings) -> None:
    folder = write_fixture(tmp_path / "tiny")
    ask = settings.ask.model_copy(update={"auto_rag": "always"})
    settings = settings.model_copy(update={"llm": "extractive", "ask": ask})
    full, bm25 = run_beir(settings, folder, "test", ["full", "bm25"])
    assert (full.pipeline, full.queries) == ("full", 3)
    assert full.auto_rag_runs == 3  # always: once per query
    assert 0 <= full.auto_rag_wins <= 3
    assert bm25.auto_rag_runs == 0
    assert 0.0 <= full.ndcg_10 <= 1.0
    assert full.recall_100 >= bm25.recall_100  # dense + BM25 candidates cover BM25's
