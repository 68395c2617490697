"""``notecite mcp`` as a real subprocess, driven over stdio by the SDK's own client, started
as the README's Claude Desktop and VS Code configurations start it."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from notecite.testing import CliRun
from tests.helpers import REPO_ROOT
from tests.mcp_server.checks import (
    check_ask,
    check_get_note,
    check_search,
    check_tools_listed,
    error_text,
    search_paths,
    structured,
)

pytestmark = pytest.mark.anyio


def readme_configs() -> list[dict[str, Any]]:
    """The JSON blocks of the README's section on assistants."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Assistants (MCP)", 1)[1].split("\n## ", 1)[0]
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", section, re.DOTALL)]


def readme_args() -> list[str]:
    """The arguments the README's Claude Desktop and VS Code configurations start with."""
    claude, vscode = readme_configs()
    server = claude["mcpServers"]["notecite"]
    stdio = vscode["servers"]["notecite"]
    assert server["command"] == stdio["command"] == "notecite"
    assert server["args"] == stdio["args"]
    assert vscode["servers"]["notecite-http"]["url"].endswith(":8765/mcp")
    return list(server["args"])


@asynccontextmanager
async def stdio_client(home: Path, *args: str, mode: str = "auto") -> AsyncIterator[Client]:
    """The SDK's client on ``notecite ARGS`` (the README's, by default), with the home and the
    model-free providers set in the environment as the README's ``env`` would."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), *sys.path]),
        "NOTECITE_HOME": str(home),
        "NOTECITE_EMBEDDER__NAME": "hash",
        "NOTECITE_LLM": "extractive",
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "notecite", *(args or readme_args())], env=env
    )
    async with Client(params, read_timeout_seconds=60, mode=mode) as client:
        yield client


async def test_the_tools_over_stdio(mcp_home: Path) -> None:
    async with stdio_client(mcp_home) as client:
        await check_tools_listed(client)
        await check_search(client, "How do I create a daily note?", "foam/user/tools/cli/daily.md")
        await check_ask(client)
        await check_get_note(client)
        vaults = structured(await client.call_tool("list_vaults", {}))["vaults"]
        assert [(v["name"], v["notes"]) for v in vaults] == [("foam", 86), ("small", 1)]
        assert "user/tools/cli" in vaults[0]["folders"]
        assert await search_paths(client, "oat milk", vaults=["small"]) == ["small/inbox/todo.md"]
        unknown = await client.call_tool("search", {"query": "x", "vaults": ["nope"]})
        message = error_text(unknown)

    cli = CliRun(mcp_home, llm="extractive")
    printed = cli("search", "x", "--vault", "nope", code=1).output.strip()
    assert printed == "error: unknown vault 'nope'; known vaults: foam, small"
    assert message.endswith(printed.removeprefix("error: "))


async def test_tenant_flag_serves_only_that_tenants_notes(mcp_home: Path) -> None:
    # the initialize handshake (``legacy``), as Claude Desktop and VS Code connect today
    async with stdio_client(mcp_home, "mcp", "--tenant", "beta", mode="legacy") as client:
        vaults = structured(await client.call_tool("list_vaults", {}))["vaults"]
        assert [v["name"] for v in vaults] == ["zephyr"]
        assert await search_paths(client, "How do I create a daily note?") == [
            "zephyr/projects/zephyr.md"
        ]
        answer = structured(await client.call_tool("ask", {"question": "What is the budget?"}))
        assert {ref["vault"] for ref in answer["references"]} <= {"zephyr"}
        note = {"vault": "foam", "path": "user/tools/cli/daily.md"}
        assert "unknown vault 'foam'" in error_text(await client.call_tool("get_note", note))


def test_a_bad_tenant_name_is_refused(tmp_path: Path) -> None:
    result = CliRun(tmp_path / "home")("mcp", "--tenant", "no/slash", code=2)
    assert "use letters, digits" in result.output
