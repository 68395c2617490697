"""``/mcp`` of a real ``notecite serve`` process on 127.0.0.1, through the SDK's own client,
with the bearer keys of three tenants."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client

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

KEYS = {"alpha-key": "default", "beta-key": "beta", "gamma-key": "gamma"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server_url(mcp_home: Path) -> Iterator[str]:
    """``notecite serve`` on the test home, with a key for tenants default, beta and gamma."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("NOTECITE_")},
        "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), *sys.path]),
        "NOTECITE_SERVER__API_KEYS": json.dumps(["alpha-key"]),
        "NOTECITE_SERVER__TENANT_KEYS": json.dumps({"beta": ["beta-key"], "gamma": ["gamma-key"]}),
    }
    args = ["--home", str(mcp_home), "--embedder", "hash", "--llm", "extractive"]
    process = subprocess.Popen(
        [sys.executable, "-m", "notecite", *args, "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "notecite serve did not start"
            try:
                if httpx.get(url + "/health", timeout=1).is_success:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(30)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    """How the client connects: ``auto`` (the newest protocol, one request per call) and
    ``legacy`` (the initialize handshake and a session, as today's assistants connect)."""
    return str(request.param)


@asynccontextmanager
async def http_client(url: str, key: str, mode: str) -> AsyncIterator[Client]:
    """The SDK's client on ``url/mcp``, sending ``Authorization: Bearer key``."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http), mode=mode) as client,
    ):
        yield client


async def test_the_tools_over_http(server_url: str, mode: str) -> None:
    async with http_client(server_url, "alpha-key", mode) as client:
        await check_tools_listed(client)
        await check_search(
            client,
            "How do I rename a note and update the links to it?",
            "foam/user/tools/cli/rename.md",
        )
        await check_ask(client)
        await check_get_note(client)
        vaults = structured(await client.call_tool("list_vaults", {}))["vaults"]
        assert [v["name"] for v in vaults] == ["foam", "small"]


async def test_a_second_tenants_key_sees_none_of_the_first_tenants_notes(
    server_url: str, mode: str
) -> None:
    async with http_client(server_url, "beta-key", mode) as client:
        vaults = structured(await client.call_tool("list_vaults", {}))["vaults"]
        assert [(v["name"], v["notes"]) for v in vaults] == [("zephyr", 1)]
        for query in ("How do I create a daily note?", "oat milk", "safe code"):
            assert await search_paths(client, query) == ["zephyr/projects/zephyr.md"]
        answer = structured(
            await client.call_tool("ask", {"question": "How do I open today's daily note?"})
        )
        assert {ref["vault"] for ref in answer["references"]} <= {"zephyr"}
        assert "Alt+D" not in answer["answer"]
        for vault, path in (("foam", "user/tools/cli/daily.md"), ("small", "inbox/todo.md")):
            note = {"vault": vault, "path": path}
            refused = error_text(await client.call_tool("get_note", note))
            assert f"unknown vault {vault!r}; known vaults: zephyr" in refused
        with pytest.raises(MCPError, match=r"unknown vault 'foam'"):
            await client.read_resource("notecite://foam/user/tools/cli/daily.md")

    async with http_client(server_url, "gamma-key", mode) as client:
        empty = await client.call_tool("search", {"query": "daily note"})
        assert "no vaults yet" in error_text(empty)


def test_mcp_needs_a_key(server_url: str) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for headers in ({}, {"Authorization": "Bearer wrong-key"}):
        response = httpx.post(server_url + "/mcp", json=hello, headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "UnauthorizedError"
