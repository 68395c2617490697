"""``notecite mcp`` as a real subprocess, driven over stdio by the SDK's own client."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

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


@asynccontextmanager
async def stdio_client(home: Path, *args: str) -> AsyncIterator[Client]:
    """The SDK's client on ``python -m notecite --home HOME ... mcp ARGS``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), *sys.path])}
    command = ["-m", "notecite", "--home", str(home), "--embedder", "hash", "--llm", "extractive"]
    params = StdioServerParameters(command=sys.executable, args=[*command, "mcp", *args], env=env)
    async with Client(params, read_timeout_seconds=60) as client:
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
    async with stdio_client(mcp_home, "--tenant", "beta") as client:
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
