"""The tools' own checks, called in-process on an Engine (the SDK runs the same functions)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from notecite import Engine
from notecite.mcp.tools import MAX_NOTE_LINES, ask_notes, read_note, search_notes, vault_list
from tests.helpers import REPO_ROOT, MakeVault

LONG = "\n".join(f"line {n}" for n in range(1, MAX_NOTE_LINES + 11))


def test_an_empty_home_says_how_to_add_and_index(engine: Engine, make_vault: MakeVault) -> None:
    with pytest.raises(ToolError, match=r"^no vaults yet: add one with `notecite vault add"):
        search_notes(engine, "anything")
    engine.add_vault("v", make_vault({"a.md": "# A\n\nApples.\n"}))
    with pytest.raises(ToolError, match=r"^nothing indexed yet in v: run `notecite index`"):
        ask_notes(engine, "What about apples?")
    assert vault_list(engine).vaults[0].notes == 0
    engine.index()
    assert [hit.path for hit in search_notes(engine, "apples").hits] == ["a.md"]


def test_get_note_returns_line_spans(engine: Engine, make_vault: MakeVault) -> None:
    engine.add_vault("v", make_vault({"long.md": "# Long\n" + LONG}))
    engine.index()
    span = read_note(engine, "v", "long.md", 3, 4)
    assert (span.text, span.start_line, span.end_line) == ("line 2\nline 3", 3, 4)
    assert span.total_lines == MAX_NOTE_LINES + 11  # the heading and the lines
    whole = read_note(engine, "v", "long.md")
    assert (whole.start_line, whole.end_line) == (1, MAX_NOTE_LINES)  # capped a call
    assert read_note(engine, "v", "long.md", 2000, 99_999).end_line == MAX_NOTE_LINES + 11
    with pytest.raises(ToolError, match=r"start_line 9999 is past the end of long\.md"):
        read_note(engine, "v", "long.md", 9999)
    with pytest.raises(ToolError, match="end_line 2 is before start_line 5"):
        read_note(engine, "v", "long.md", 5, 2)


def test_building_the_server_configures_no_logging() -> None:
    # a fresh process: pytest's own handlers on the root logger would hide the SDK's
    script = (
        "import logging\n"
        "from notecite.mcp import build_server\n"
        "build_server(lambda ctx: None)\n"
        "print(len(logging.getLogger().handlers))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), *sys.path])}
    ran = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "0"


def test_search_and_ask_take_frontmatter_filters(engine: Engine, make_vault: MakeVault) -> None:
    notes = {
        "atlas.md": "---\ntags: [atlas]\n---\n# Atlas\n\nThe launch review is on Monday.\n",
        "zephyr.md": "---\ntags: [zephyr]\n---\n# Zephyr\n\nThe launch review is on Friday.\n",
    }
    engine.add_vault("v", make_vault(notes))
    engine.index()
    assert {hit.path for hit in search_notes(engine, "launch review").hits} == set(notes)
    only = search_notes(engine, "launch review", filters=["tags=zephyr"]).hits
    assert [hit.path for hit in only] == ["zephyr.md"]
    answer = ask_notes(engine, "When is the launch review?", filters=["tags=atlas"])
    assert {ref.path for ref in answer.references} <= {"atlas.md"}
    none = ask_notes(engine, "When is the launch review?", filters=["tags=nothing"])
    assert none.abstained
    with pytest.raises(ToolError, match="filter"):
        search_notes(engine, "launch", filters=["tags in [atlas"])
