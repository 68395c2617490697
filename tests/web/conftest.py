"""Fixtures of the browser tests: a real server on 127.0.0.1 over a test vault, and Chromium.

The browser is Debian's ``chromium`` (``/usr/bin/chromium``), driven by Playwright; it is
never downloaded. ``make test`` installs it when it is missing (scripts/ensure-chromium.sh).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from notecite import Engine
from notecite.api import create_app
from notecite.testing import hash_settings
from tests.api.test_socket import serving
from tests.chat.notes import write_notes

CHROMIUM = Path("/usr/bin/chromium")
BROKEN_PDF = b"%PDF-1.4 this file ends too early"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``notecite serve`` on a free loopback port: the test vault indexed as ``notes``
    (with one unreadable PDF), the ``hash`` embedder and the ``extractive`` LLM."""
    root = tmp_path_factory.mktemp("web")
    settings = hash_settings(root / "home")
    notes = write_notes(root / "notes")
    (notes / "broken.pdf").write_bytes(BROKEN_PDF)
    with Engine(settings) as engine:
        engine.add_vault("notes", notes)
        engine.index()
    with serving(create_app(settings)) as url:
        yield url


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    """Playwright's driver (the sync API). Per module: its event loop must be gone before any
    anyio test of another module runs in this thread."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Headless Chromium from the system package."""
    assert CHROMIUM.exists(), "no /usr/bin/chromium: run scripts/ensure-chromium.sh (make test)"
    chromium = playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
    )
    yield chromium
    chromium.close()


def watch(tab: Page) -> list[str]:
    """Collect the page's JavaScript errors and Content-Security-Policy refusals: a page that
    needs the policy to stop something has let something through (or broken its own rule)."""
    errors: list[str] = []

    def add(text: str) -> None:
        if text[:300] not in errors:
            errors.append(text[:300])

    tab.on("pageerror", lambda exc: add(str(exc)))
    tab.on(
        "console",
        lambda message: add(message.text) if "Content Security Policy" in message.text else None,
    )
    return errors


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    """A fresh browser context (its own local storage) on a desktop-size screen."""
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 860})
    context.set_default_timeout(10_000)
    tab = context.new_page()
    errors = watch(tab)
    yield tab
    context.close()
    assert not errors, f"JavaScript errors or CSP refusals on the page: {errors}"
