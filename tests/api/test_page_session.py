"""The web page signs in with a key once and then holds only an HttpOnly cookie: the cookie
stands for the key's tenant, expires, and stops working when the key is removed."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from notecite import Settings
from notecite.api.page_session import COOKIE, MAX_AGE_S, issue, tenant_of
from notecite.testing import hash_settings
from tests.api.helpers import running

pytestmark = pytest.mark.anyio

KEYS = {"api_keys": ["alpha-key"], "tenant_keys": {"beta": ["beta-key", "beta-key-2"]}}


def settings_with_keys(home: Path) -> Settings:
    return hash_settings(home, server=KEYS)


async def sign_in(client: httpx.AsyncClient, key: str) -> httpx.Response:
    return await client.post("/auth/session", json={"key": key})


async def test_signing_in_sets_an_http_only_strict_cookie_for_the_keys_tenant(
    tmp_path: Path,
) -> None:
    async with running(settings_with_keys(tmp_path / "home")) as client:
        assert (await client.get("/sessions")).status_code == 401
        wrong = await sign_in(client, "not-a-key")
        assert wrong.status_code == 401
        assert COOKIE not in wrong.headers.get("set-cookie", "")

        signed = await sign_in(client, " beta-key-2 ")
        assert signed.status_code == 204
        cookie = signed.headers["set-cookie"]
        assert cookie.startswith(f"{COOKIE}=")
        for attribute in ("HttpOnly", "SameSite=strict", "Path=/", f"Max-Age={MAX_AGE_S}"):
            assert attribute.lower() in cookie.lower()
        assert "beta-key" not in cookie  # the key itself never goes into the cookie

        created = await client.post("/sessions", json={"title": "beta's"})
        assert created.status_code == 201  # the cookie stands for tenant beta
        assert [s["title"] for s in (await client.get("/sessions")).json()["sessions"]] == [
            "beta's"
        ]
        alpha = await client.get("/sessions", headers={"Authorization": "Bearer alpha-key"})
        assert alpha.json()["sessions"] == []  # a bearer key wins over the cookie

        out = await client.delete("/auth/session")
        assert out.status_code == 204
        assert (await client.get("/sessions")).status_code == 401


async def test_a_forged_tampered_or_expired_cookie_is_refused(tmp_path: Path) -> None:
    now = time.time()
    forged = [
        issue("beta", SecretStr("guessed-key")),  # signed by a key the server does not have
        issue("default", SecretStr("beta-key")),  # beta's key claiming the default tenant
        issue("beta", SecretStr("beta-key"), now=now - MAX_AGE_S - 10),  # expired
        issue("beta", SecretStr("beta-key"), now=now + 3600),  # from the future
        issue("beta", SecretStr("beta-key")) + "x",
        "v1:beta:12:abc",
        "garbage",
        "v1:b\u00e9ta:1:x",
    ]
    async with running(settings_with_keys(tmp_path / "home")) as client:
        for value in forged:
            header = [(b"cookie", f"{COOKIE}={value}".encode())]
            assert (await client.get("/sessions", headers=header)).status_code == 401, value
        header = [(b"cookie", f"{COOKIE}={issue('beta', SecretStr('beta-key'))}".encode())]
        assert (await client.get("/sessions", headers=header)).status_code == 200


async def test_removing_the_key_revokes_its_cookies(tmp_path: Path) -> None:
    cookie = issue("beta", SecretStr("beta-key"))
    keys = [("default", SecretStr("alpha-key")), ("beta", SecretStr("beta-key"))]
    assert tenant_of(cookie, keys) == "beta"
    assert tenant_of(cookie, keys[:1]) is None
    assert tenant_of(cookie, [("beta", SecretStr("beta-key-2"))]) is None


async def test_a_keyless_server_needs_no_sign_in_and_sets_no_cookie(tmp_path: Path) -> None:
    async with running(hash_settings(tmp_path / "home")) as client:
        signed = await sign_in(client, "anything")
        assert signed.status_code == 204
        assert "set-cookie" not in signed.headers
        assert (await client.get("/sessions")).status_code == 200
