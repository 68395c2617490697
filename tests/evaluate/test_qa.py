"""`eval qa`: metrics computed by hand on fixed outcomes, then a real run on a tiny vault."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from notecite import Settings
from notecite.cli.main import cli
from notecite.errors import ConfigError
from notecite.evaluate.beir import run_beir
from notecite.evaluate.qa import QaItem, QaOutcome, load_qa, run_qa, score_qa
from tests.evaluate.test_beir import write_fixture
from tests.helpers import write_files

ITEMS = [
    QaItem("When is the launch?", True, ("projects/apollo.md",), ("March 14",)),
    QaItem("What is the budget?", True, ("apollo.md",), ("40000",)),
    QaItem("Who is the vendor?", True, ("vendors.md",)),
    QaItem("What is my passport number?", False),
    QaItem("What is my blood type?", False),
]
OUTCOMES = [
    # gold file at rank 2, answered, cites it, contains "March 14"
    QaOutcome(("notes/x.md", "projects/apollo.md"), ("projects/apollo.md",), "On March 14.", False),
    # gold (suffix match) at rank 1, answered, cites another file, lacks "40000"
    QaOutcome(("projects/apollo.md",), ("projects/other.md",), "It is large.", False),
    # gold never retrieved, abstained (wrongly)
    QaOutcome(("a.md", "b.md", "c.md"), (), "The notes don't say.", True),
    # unanswerable, abstained (rightly)
    QaOutcome(("a.md",), (), "The notes don't say.", True),
    # unanswerable, answered (wrongly)
    QaOutcome(("a.md",), ("a.md",), "A positive.", False),
]


def test_metrics_by_hand() -> None:
    report = score_qa(ITEMS, OUTCOMES, k=2)
    assert report.questions == 5
    assert report.hit_at_k == pytest.approx(2 / 3)  # items 1 and 2 of the 3 with gold files
    assert report.answer_rate == pytest.approx(3 / 5)  # items 1, 2 and 5
    assert report.abstention_precision == pytest.approx(1 / 2)  # of items 3 and 4, item 4
    assert report.abstention_recall == pytest.approx(1 / 2)  # of items 4 and 5, item 4
    assert report.citation_hit_rate == pytest.approx(1 / 2)  # answered with gold: 1 yes, 2 no
    assert report.must_contain_rate == pytest.approx(1 / 2)  # item 1 yes, item 2 no
    assert report.counts == {
        "answerable_with_gold": 3,
        "answered": 3,
        "abstained": 2,
        "unanswerable": 2,
    }


def test_hit_at_1_only_looks_at_the_first_file() -> None:
    assert score_qa(ITEMS, OUTCOMES, k=1).hit_at_k == pytest.approx(1 / 3)


def test_no_qualifying_question_is_none_not_zero() -> None:
    report = score_qa(ITEMS[:1], OUTCOMES[:1], k=5)
    assert (report.abstention_precision, report.abstention_recall) == (None, None)


def test_a_bad_line_names_its_number(tmp_path: Path) -> None:
    data = tmp_path / "qa.jsonl"
    data.write_text('{"question": "q", "answerable": true}\n\n{"answerable": false}\n')
    with pytest.raises(ConfigError, match=r"qa.jsonl:3"):
        load_qa(data)


VAULT = {
    "projects/apollo.md": (
        "# Apollo\n\n## Launch\n\nThe Apollo launch is scheduled for March 14 in Lisbon.\n\n"
        "## Budget\n\nThe Apollo budget is 40000 euros.\n"
    ),
    "recipes/bread.md": "# Bread\n\n## Hydration\n\nMy sourdough uses 75 percent hydration.\n",
}
QUESTIONS = [
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


def test_a_real_run_on_a_tiny_vault(tmp_path: Path, settings: Settings) -> None:
    vault = write_files(tmp_path / "notes", VAULT)
    data = tmp_path / "qa.jsonl"
    data.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n")
    report = run_qa(settings.model_copy(update={"llm": "extractive"}), data, str(vault), k=1)
    # the extractive answer quotes the best sentences of the cited gold note
    assert report.hit_at_k == 1.0
    assert report.answer_rate == 1.0
    assert report.citation_hit_rate == 1.0
    assert report.must_contain_rate == 1.0
    assert report.abstention_recall is None  # no unanswerable question
    assert (settings.home / "eval" / "qa-notes.db").is_file()  # its own store


def test_cli_json(tmp_path: Path) -> None:
    vault = write_files(tmp_path / "notes", VAULT)
    data = tmp_path / "qa.jsonl"
    data.write_text(json.dumps(QUESTIONS[0]) + "\n")
    result = CliRunner().invoke(
        cli,
        [
            *("--home", str(tmp_path / "home"), "--embedder", "hash"),
            *("eval", "qa", "--data", str(data), "--vault", str(vault), "--llm", "extractive"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["questions"] == 1
    assert payload["hit_at_k"] == 1.0


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
