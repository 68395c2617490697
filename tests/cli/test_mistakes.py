"""Everyday mistakes on the command line: one error line, exit 2 for usage and 1 for a
failure, never a traceback."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import Result

from notecite.testing import CliRun, write_files

NOTES = {
    "projects/atlas.md": "# Atlas\n## Budget\nThe atlas budget is USD 240,000.\n",
    "journal/2025-01-02.md": "# Journal\nMet Priya about the atlas budget.\n",
}


@pytest.fixture
def run(tmp_path: Path) -> CliRun:
    return CliRun(tmp_path / "home", llm="extractive")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_files(tmp_path / "notes", dict(NOTES))


def one_error(result: Result, *parts: str) -> str:
    """The single ``error:`` line of stderr, holding every one of ``parts``."""
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("error:", "Error:"))]
    assert len(errors) == 1, result.stderr
    for part in parts:
        assert part in errors[0], errors[0]
    return errors[0]


@pytest.mark.parametrize("command", ["search", "ask"])
def test_an_empty_query_is_a_usage_error(run: CliRun, command: str) -> None:
    result = run(command, "  ", code=2)
    one_error(result, "is empty")
    assert "pydantic" not in result.output


@pytest.mark.parametrize(
    ("env", "parts"),
    [
        (
            {"NOTECITE_ASK__FINAL_THRESHOLD": "abc"},
            ["ask.final_threshold", "'abc'", "set by NOTECITE_ASK__FINAL_THRESHOLD"],
        ),
        (
            {"NOTECITE_ASK__FINAL_THRESHLD": "0.3"},
            ["unknown key ask.final_threshld", "did you mean NOTECITE_ASK__FINAL_THRESHOLD?"],
        ),
        (
            {"NOTECITE_ASKK__K_MIN": "3"},
            ["NOTECITE_ASKK__K_MIN", "did you mean NOTECITE_ASK__K_MIN?"],
        ),
        ({"NOTECITE_LMM": "openai"}, ["NOTECITE_LMM", "did you mean NOTECITE_LLM?"]),
    ],
)
def test_bad_environment_values_and_keys(
    run: CliRun, env: dict[str, str], parts: list[str]
) -> None:
    one_error(run("status", env=env, code=1), *parts)


def test_a_misspelled_toml_key_says_did_you_mean(run: CliRun, tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text("[ask]\nfinal_treshold = 0.3\n")
    line = one_error(run("--config", str(toml), "status", code=1), "unknown key ask.final_treshold")
    assert "did you mean ask.final_threshold?" in line
    assert str(toml) in line
    assert "Extra inputs" not in line


@pytest.mark.parametrize("args", [("search", "atlas"), ("ask", "What is the budget?")])
def test_nothing_to_search_is_not_nothing_found(
    run: CliRun, vault: Path, args: tuple[str, ...]
) -> None:
    one_error(run(*args, code=1), "no vaults yet", "notecite vault add")
    added = run("vault", "add", "notes", str(vault)).output
    assert "next: notecite index --vault notes" in added
    one_error(run(*args, code=1), "not indexed yet: notes", "notecite index")
    run("index", "--vault", "notes")
    one_error(run(*args, "--folder", "nope", code=1), "unknown folder 'nope'", "journal, projects")
    run(*args)
    run(*args, "--folder", "projects")


def test_chat_with_no_vault_says_so(run: CliRun) -> None:
    one_error(run("chat", input="hello\n", code=1), "no vaults yet")


def test_sessions_show_unknown_names_the_list_command(run: CliRun) -> None:
    line = one_error(run("sessions", "show", "nope", code=1), "no chat session 'nope'")
    assert "notecite sessions list" in line
    assert "GET" not in line


def test_config_show_is_compact_and_names_the_llm_and_file(run: CliRun, tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text("[search]\nk = 4\n")
    out = run("--config", str(toml), "config", "show").stdout
    assert f"config file: {toml}" in out
    assert "llm:         extractive" in out
    assert "  search.k = 4" in out
    assert len(out.splitlines()) < 15
    assert run("--config", str(toml), "config", "path").stdout == f"{toml}\n"
    bare = run("config", "path").stdout.strip()
    assert bare == str(run.home / "config.toml")
    assert "config file: none" in run("config", "show").stdout


def test_serve_on_a_busy_port_fails_before_printing_its_url(run: CliRun) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = run("serve", "--port", str(port), code=1)
    one_error(result, f"127.0.0.1:{port}", "in use", "--port")
    assert "http://" not in result.output
