"""`notecite ask` through click's runner, on a real home folder and the two test vaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notecite.schemas.ask import AskResponse
from notecite.testing import CliRun, write_files
from tests.ask.notes import HOME_VAULT, WORK_VAULT

APOLLO = "When is the Apollo launch scheduled?"


@pytest.fixture
def run(notecite_cli: CliRun, tmp_path: Path) -> CliRun:
    """``notecite --home HOME --embedder hash`` with the vaults v1 and v2 indexed."""
    notecite_cli("vault", "add", "v1", str(write_files(tmp_path / "work", WORK_VAULT)))
    notecite_cli("vault", "add", "v2", str(write_files(tmp_path / "home-notes", HOME_VAULT)))
    notecite_cli("index")
    return notecite_cli


def test_ask_json_prints_the_ask_response(run: CliRun) -> None:
    result = run("ask", APOLLO, "--json", "--llm", "extractive")
    response = AskResponse.model_validate(json.loads(result.stdout))
    assert not response.abstained
    assert "March 14" in response.answer
    assert ("v1", "projects/work/apollo.md", "# Apollo > ## Launch") in {
        (r.vault, r.rel_path, r.heading_path) for r in response.references
    }
    assert response.debug is None


def test_ask_json_with_debug_includes_the_candidates(run: CliRun) -> None:
    result = run("ask", APOLLO, "--json", "--debug", "--llm", "extractive", "-k", "3")
    response = AskResponse.model_validate(json.loads(result.stdout))
    assert response.debug is not None
    assert response.debug.k == 3
    assert response.debug.retrieved_chunks
    assert sum(c.kept for c in response.debug.retrieved_chunks) <= 3


def test_ask_prints_the_answer_and_numbered_references(run: CliRun) -> None:
    result = run("ask", APOLLO, "--llm", "extractive")
    response = AskResponse.model_validate(
        json.loads(run("ask", APOLLO, "--json", "--llm", "extractive").stdout)
    )
    assert response.answer in result.stdout
    lines = result.stdout.splitlines()
    assert "References:" in lines
    for ref in response.references:  # each under the id the answer cites it by
        where = f"{ref.vault}/{ref.rel_path}:{ref.quote_line} > {ref.heading_path}"
        assert f"[{ref.cid}] {where}" in lines
        assert f"     \u201c{ref.quote}\u201d" in lines
    assert any(line.startswith("[N1] v1/projects/work/apollo.md:") for line in lines)


def test_ask_scopes_by_vault_and_folder(run: CliRun) -> None:
    args = ["espresso machine kitchen", "--vault", "v2", "--folder", "meetings", "--json"]
    result = run("ask", *args, "--llm", "extractive")
    response = AskResponse.model_validate(json.loads(result.stdout))
    assert [(r.vault, r.rel_path) for r in response.references] == [("v2", "meetings/retro.md")]


def test_ask_with_file_section_citations(run: CliRun) -> None:
    result = run("ask", APOLLO, "--citation-style", "file_section", "--llm", "extractive")
    assert "[File: projects/work/apollo.md, Section: # Apollo > ## Launch]" in result.stdout


def test_ask_reports_an_abstention(run: CliRun) -> None:
    result = run("ask", "what is it?", "--llm", "extractive")
    assert "(abstained: ambiguous_question)" in result.stdout
    assert "References:" not in result.stdout


def test_ask_debug_prints_candidates_and_timings(run: CliRun) -> None:
    result = run("ask", APOLLO, "--debug", "--llm", "extractive")
    assert "Candidates (rank, final, vector, lexical, kept, cited):" in result.stdout
    assert "timings ms: embed" in result.stdout


def test_ask_auto_rag_always_reports_its_steps(run: CliRun) -> None:
    result = run("ask", APOLLO, "--debug", "--llm", "extractive", "--auto-rag", "always")
    assert "auto-RAG (always): hyde skipped 0 ms, rewrite skipped 0 ms, second_pass ok" in (
        result.stdout
    )
    off = run("ask", APOLLO, "--json", "--debug", "--llm", "extractive", "--auto-rag", "off")
    debug = AskResponse.model_validate_json(off.stdout).debug
    assert debug is not None
    assert (debug.auto_rag.mode, debug.auto_rag.triggered) == ("off", False)


def test_ask_an_unknown_vault_exits_with_the_known_ones(run: CliRun) -> None:
    result = run("ask", APOLLO, "--vault", "nope", code=1)
    assert "unknown vault 'nope'; known vaults: v1, v2" in result.output


def test_ask_has_help(run: CliRun) -> None:
    text = run("ask", "--help").output
    for option in ("--vault", "--folder", "--detail", "-k", "--json", "--llm", "--citation-style"):
        assert option in text
