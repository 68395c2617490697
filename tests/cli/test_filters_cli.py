"""``--filter`` on search, ask and chat, and ``/filter`` inside a chat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notecite.testing import CliRun, write_files

NOTES = {
    "meetings/kickoff.md": (
        "---\ntype: meeting\ntags: [atlas]\nstatus: final\n---\n"
        "# Kickoff\n\nThe atlas budget is 240000 dollars.\n"
    ),
    "projects/atlas.md": (
        "---\ntype: project\ntags: [projects/atlas]\nstatus: draft\n---\n"
        "# Atlas\n\nThe atlas budget draft is 200000 dollars.\n"
    ),
}


@pytest.fixture
def run(tmp_path: Path) -> CliRun:
    invoke = CliRun(tmp_path / "home", llm="extractive")
    invoke("index", str(write_files(tmp_path / "notes", NOTES)), "--vault", "notes")
    return invoke


def found(run: CliRun, *args: str) -> set[str]:
    out = json.loads(run("search", "atlas budget", "--json", *args).stdout)
    return {r["rel_path"] for r in out["results"]}


def test_search_filters(run: CliRun) -> None:
    assert found(run) == set(NOTES)
    assert found(run, "--filter", "type=meeting") == {"meetings/kickoff.md"}
    assert found(run, "--filter", "tags^=projects", "--filter", "has:status") == {
        "projects/atlas.md"
    }
    assert found(run, "--filter", "status!=draft and type=project") == set()


def test_a_bad_filter_is_one_line_and_exit_1(run: CliRun) -> None:
    for command in ("search", "ask"):
        result = run(command, "atlas budget", "--filter", "created>=soon", code=1)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1, result.output
        assert "expected a date like 2024-01-31 or a number after '>='" in lines[0]
        assert "Traceback" not in result.output


def test_ask_abstains_when_the_filters_leave_nothing(run: CliRun) -> None:
    result = run("ask", "What is the atlas budget?", "--filter", "type=journal")
    assert "No note matches the filters type=journal" in result.output
    assert "(abstained: no_matching_notes)" in result.output
    shown = run("ask", "What is the atlas budget?", "--filter", "type=meeting", "--debug")
    assert "filters: type=meeting" in shown.output
    assert "meetings/kickoff.md" in shown.output


def test_chat_filter_option_and_command(run: CliRun) -> None:
    result = run(
        "chat",
        "--filter",
        "type=journal",
        input="What is the atlas budget?\n/filter\n/filter tags in [\n"
        "/filter type=meeting\nWhat is the atlas budget?\n/exit\n",
    )
    out = result.output
    assert "No note matches the filters type=journal" in out
    assert "(filters cleared)" in out
    assert "expected a value" in result.stderr
    assert "(filters: type=meeting)" in out
    assert "240000" in out
    assert "[N1] notes/meetings/kickoff.md" in out
