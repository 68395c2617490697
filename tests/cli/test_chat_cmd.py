"""`notecite chat` and `notecite sessions` through click's runner, with input fed to it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from notecite.cli.main import cli
from notecite.testing import CliRun
from tests.chat.notes import write_notes


@pytest.fixture
def run(tmp_path: Path) -> CliRun:
    """``notecite --home HOME`` (hash, extractive) where the test vault is indexed as
    ``notes``."""
    invoke = CliRun(tmp_path / "home", llm="extractive")
    invoke("index", str(write_notes(tmp_path / "notes")), "--vault", "notes")
    return invoke


def session_id_of(output: str) -> str:
    found = re.search(r"notecite chat --session (\S+)", output)
    assert found, output
    return found.group(1)


def test_chat_keeps_one_session_until_exit_and_resumes(run: CliRun) -> None:
    first = run(
        "chat", input="What is the Apollo budget?\n\nWhen is the Apollo launch?\n/exit\nignored\n"
    )
    out = first.output
    assert "40000" in out
    assert "March 14" in out
    assert out.count("References:") == 2
    assert "[N1] notes/projects/apollo.md" in out
    sid = session_id_of(out)

    listed = run("sessions", "list").output.strip().splitlines()
    assert len(listed) == 1
    assert listed[0].startswith(sid)
    assert re.search(r"\s4\s+What is the Apollo budget\?$", listed[0])

    resumed = run("chat", "--session", sid, input="Who approved it?\n")  # ends at end of input
    assert "Resuming 'What is the Apollo budget?' (4 messages)." in resumed.output
    assert session_id_of(resumed.output) == sid

    shown = run("sessions", "show", sid).output
    assert shown.count("[user]") == 3
    assert shown.count("[assistant]") == 3
    assert "**Sources:**" in shown
    assert "rag_top_k=5" in shown
    detail = json.loads(run("sessions", "show", sid, "--json").stdout)
    assert [m["role"] for m in detail["messages"]] == ["user", "assistant"] * 3
    assert detail["messages"][1]["citations"][0]["noteId"] == "notes/projects/apollo.md"

    assert f"Deleted session {sid}." in run("sessions", "delete", sid).output
    assert "No chat sessions yet" in run("sessions", "list").output


def test_unknown_sessions_exit_1(run: CliRun) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for args in (("chat", "--session", unknown), ("sessions", "show", unknown)):
        result = run(*args, input="", code=1)
        assert "no chat session" in result.stderr
        assert "Traceback" not in result.output
    assert "no chat session" in run("sessions", "delete", unknown, code=1).stderr


def test_an_empty_chat_starts_no_session(run: CliRun) -> None:
    out = run("chat", input="\n/quit\n").output
    assert "notecite chat --session" not in out
    assert "No chat sessions yet" in run("sessions", "list").output


@pytest.mark.parametrize(
    "args",
    [("chat",), ("sessions",), ("sessions", "list"), ("sessions", "show"), ("sessions", "delete")],
)
def test_every_chat_command_has_help(args: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output
    text = result.output.split("Options:")[0]
    assert len(text.split("\n\n", 1)[-1].strip()) > 20


def test_tenant_option_keeps_vaults_and_sessions_apart(run: CliRun, tmp_path: Path) -> None:
    other = tmp_path / "acme-notes"
    other.mkdir()
    (other / "zephyr.md").write_text("# Zephyr\n\nThe Zephyr budget is 12000 dollars.\n")
    run("--tenant", "acme", "index", str(other), "--vault", "notes")  # same vault name
    acme_vaults = run("--tenant", "acme", "vault", "list").output
    assert str(other.resolve()) in acme_vaults
    assert str(other.resolve()) not in run("vault", "list").output

    answer = run("--tenant", "acme", "chat", input="What is the Apollo budget?\n").output
    assert "40000" not in answer
    zephyr = run("--tenant", "acme", "chat", input="What is the Zephyr budget?\n").output
    assert "[N1] notes/zephyr.md" in zephyr
    assert len(run("--tenant", "acme", "sessions", "list").output.strip().splitlines()) == 2
    assert "No chat sessions yet" in run("sessions", "list").output
    sid = session_id_of(zephyr)
    assert "no chat session" in run("sessions", "show", sid, code=1).stderr

    bad = run("--tenant", "../x", "vault", "list", code=2)
    assert "--tenant" in bad.output


def test_chat_banner_help_and_sections_in_references(run: CliRun) -> None:
    out = run(
        "chat", input="/help\n/frobnicate\nWhat is the Apollo budget?\n/exit\nignored\n"
    ).output
    first = out.splitlines()[0]
    assert first.startswith("notecite chat over notes; LLM: extractive.")
    assert "/help for commands, /exit to end." in first
    assert "/exit          end the chat" in out
    assert "/filter EXPR" in out
    assert "unknown command /frobnicate; /help lists them" in out
    assert out.count("References:") == 1  # /help and /frobnicate were not sent as questions
    refs = out.split("References:")[1].strip().splitlines()
    assert re.match(r"\[N1\] notes/projects/apollo\.md:\d+ > .+", refs[0]), refs
    cids = [int(m) for m in re.findall(r"^\[N(\d+)\]", "\n".join(refs), flags=re.MULTILINE)]
    assert cids == sorted(cids)


def test_sessions_commands_do_not_load_the_model(tmp_path: Path) -> None:
    """Listing, showing or deleting sessions answers nothing: no model is loaded for it."""
    run = CliRun(tmp_path / "home", llm="local")
    env = {"NOTECITE_GENERATION__MODEL": "smollm2"}
    listed = run("sessions", "list", env=env)
    assert listed.output.strip() == "No chat sessions yet; start one with: notecite chat"
    shown = run("sessions", "show", "nope", env=env, code=1)
    deleted = run("sessions", "delete", "nope", env=env, code=1)
    for result in (listed, shown, deleted):
        assert "model" not in result.output, result.output
