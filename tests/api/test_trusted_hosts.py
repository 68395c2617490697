"""The ``Host`` names a server answers (DNS rebinding): loopback names always; others only
from ``server.allowed_hosts``, or any name on a server with API keys and no list."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from notecite.api import create_app
from notecite.api.hosts import host_allowed, host_name
from notecite.errors import ConfigError
from notecite.testing import hash_settings
from tests.api.helpers import running
from tests.api.test_socket import serving

pytestmark = pytest.mark.anyio

LOOPBACK = ["localhost", "LOCALHOST:8765", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:8765",
            "localhost."]  # fmt: skip
REBINDING = ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil",
             "notes.example.org.evil", "[::2]", "0.0.0.0", "a:b:c", "localhost:x"]  # fmt: skip


async def status_for(client: httpx.AsyncClient, host: str) -> int:
    response = await client.get("/vaults", headers={"Host": host})
    if response.status_code != 200:
        assert response.json()["error"]["type"] == "HostNotAllowedError"
    return response.status_code


async def test_a_keyless_server_answers_loopback_names_only(tmp_path: Path) -> None:
    async with running(hash_settings(tmp_path / "home")) as client:
        assert [await status_for(client, host) for host in LOOPBACK] == [200] * len(LOOPBACK)
        assert [await status_for(client, host) for host in REBINDING] == [400] * len(REBINDING)
        refused = await client.get("/", headers={"Host": "evil.example"})  # the page too
        assert refused.status_code == 400
        assert "server.allowed_hosts" in refused.json()["error"]["message"]


async def test_allowed_hosts_add_names_and_subdomains(tmp_path: Path) -> None:
    settings = hash_settings(
        tmp_path / "home", server={"allowed_hosts": ["Notes.Example.org", "*.home.lan"]}
    )
    async with running(settings) as client:
        for host in ["notes.example.org", "notes.example.org:443", "pi.home.lan", "a.b.home.lan"]:
            assert await status_for(client, host) == 200, host
        for host in ["example.org", "home.lan", "evil.example", "xhome.lan"]:
            assert await status_for(client, host) == 400, host
        assert await status_for(client, "localhost:1") == 200


async def test_a_server_with_keys_answers_any_name_unless_given_a_list(tmp_path: Path) -> None:
    keyed = hash_settings(tmp_path / "a", server={"api_keys": ["k-one"]})
    async with running(keyed) as client:
        client.headers["Authorization"] = "Bearer k-one"
        assert await status_for(client, "notes.example.org") == 200
    listed = hash_settings(
        tmp_path / "b", server={"api_keys": ["k-two"], "allowed_hosts": ["notes.example.org"]}
    )
    async with running(listed) as client:
        client.headers["Authorization"] = "Bearer k-two"
        assert await status_for(client, "notes.example.org") == 200
        assert await status_for(client, "evil.example") == 400
    anyone = hash_settings(tmp_path / "c", server={"allowed_hosts": ["*"]})
    async with running(anyone) as client:
        assert await status_for(client, "evil.example") == 200


def test_over_a_real_socket_a_rebinding_name_is_refused(tmp_path: Path) -> None:
    with serving(create_app(hash_settings(tmp_path / "home"))) as url:
        assert httpx.get(f"{url}/health").status_code == 200
        port = url.rsplit(":", 1)[1]
        refused = httpx.get(f"{url}/health", headers={"Host": f"evil.example:{port}"})
        assert refused.status_code == 400
        assert refused.json()["error"]["type"] == "HostNotAllowedError"
        assert httpx.get(f"{url}/health", headers={"Host": f"localhost:{port}"}).status_code == 200


def test_host_names_are_parsed_strictly() -> None:
    assert host_name("Example.ORG:80") == "example.org"
    assert host_name("[::1]:80") == "[::1]"
    assert host_name("[::1") is None
    assert host_name("a:b:c") is None
    assert host_name(":80") is None
    assert host_allowed("x.example.org", ["*.example.org"], any_host=False)
    assert not host_allowed("example.org", ["*.example.org"], any_host=False)


@pytest.mark.parametrize("entry", ["http://x.example", "x.example:80", "x/y", "", "*.*"])
def test_a_malformed_allowed_host_is_a_config_error(tmp_path: Path, entry: str) -> None:
    with pytest.raises(ConfigError, match="allowed_hosts"):
        hash_settings(tmp_path / "home", server={"allowed_hosts": [entry]})
