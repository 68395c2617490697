"""Binding and API keys: `notecite serve` refuses an open host without a key; keys are checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from notecite import load_settings
from notecite.api.security import is_loopback_host
from notecite.cli.main import cli
from tests.api.helpers import assert_error, running


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("notes.example.org", False),
    ],
)
def test_loopback_hosts_are_recognised(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_serve_refuses_a_non_loopback_host_without_an_api_key(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "not loopback, without an API key" in result.output
    assert "server.api_keys" in result.output


def test_serve_has_help_text() -> None:
    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    assert "--host" in result.output
    assert "--port" in result.output


@pytest.mark.anyio
async def test_with_api_keys_every_route_but_health_needs_a_bearer_key(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        server={"api_keys": ["first-key", "second-key"]},
    )
    async with running(settings) as client:
        assert (await client.get("/health")).status_code == 200
        missing = await client.get("/sessions")
        assert_error(missing, 401, "UnauthorizedError")
        assert missing.headers["www-authenticate"] == "Bearer"
        wrong = await client.get("/sessions", headers={"Authorization": "Bearer nope"})
        assert_error(wrong, 401, "UnauthorizedError")
        basic = await client.get("/vaults", headers={"Authorization": "Basic second-key"})
        assert_error(basic, 401, "UnauthorizedError")
        for key in ("first-key", "second-key"):
            ok = await client.get("/vaults", headers={"Authorization": f"Bearer {key}"})
            assert ok.status_code == 200
        chat = await client.post("/chat", json={"message": "hello"})
        assert_error(chat, 401, "UnauthorizedError")


def test_api_keys_are_masked_when_settings_are_shown(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path, server={"api_keys": ["top-secret"]})
    assert "top-secret" not in repr(settings)
    assert "top-secret" not in settings.model_dump_json()
