"""The page with nothing to search (no vault, nothing indexed) and with the server gone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from notecite import Engine
from notecite.api import create_app
from notecite.testing import hash_settings
from tests.api.test_socket import serving
from tests.chat.notes import write_notes
from tests.web.conftest import watch
from tests.web.test_page import open_chat

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with no vault at all."""
    root = tmp_path_factory.mktemp("empty")
    with serving(create_app(hash_settings(root / "home"))) as url:
        yield url


def test_no_vault_then_not_indexed_are_said_not_answered(
    page: Page, base_url: str, tmp_path: Path
) -> None:
    open_chat(page)
    state = page.locator("#empty-state")
    expect(state.locator("h2")).to_have_text("No vaults yet")
    expect(state.locator("a")).to_have_attribute("href", "/indexing")
    page.fill("#message", "What is the Apollo budget?")
    page.press("#message", "Enter")
    expect(page.locator("#toast")).to_contain_text("No vaults yet")
    expect(page.locator("#messages .message")).to_have_count(0)  # nothing was "answered"

    notes = write_notes(tmp_path / "notes")
    assert httpx.post(f"{base_url}/vaults", json={"name": "notes", "path": str(notes)}).is_success
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(state.locator("h2")).to_have_text("Nothing indexed yet")
    page.fill("#message", "What is the Apollo budget?")
    page.press("#message", "Enter")
    expect(page.locator("#toast")).to_contain_text("Nothing is indexed yet")
    expect(page.locator("#messages .message")).to_have_count(0)


def test_a_stopped_server_shows_a_banner_not_failed_to_fetch(
    browser: Browser, tmp_path: Path
) -> None:
    settings = hash_settings(tmp_path / "home")
    with Engine(settings) as engine:
        engine.add_vault("notes", write_notes(tmp_path / "notes"))
        engine.index()
    with serving(create_app(settings)) as url:
        context = browser.new_context(base_url=url)
        context.set_default_timeout(10_000)
        page = context.new_page()
        errors = watch(page)
        open_chat(page)
        expect(page.locator("#server-down")).to_be_hidden()
    # the server is gone now
    page.fill("#message", "What is the Apollo budget?")
    page.press("#message", "Enter")
    banner = page.locator("#server-down")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("notecite serve")
    expect(page.locator("body")).not_to_contain_text("Failed to fetch")
    expect(page.locator("body")).to_have_attribute("data-server", "down")
    context.close()
    assert not errors
