"""Adding a vault from the Index page and indexing it with live progress, only under the
server's vault roots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from notecite.api import create_app
from notecite.testing import hash_settings, write_files
from tests.api.test_socket import serving

pytestmark = pytest.mark.browser

NOTES = {
    f"topic{i:02d}/note{i:02d}.md": f"# Note {i}\n\nLine about topic {i}.\n" for i in range(40)
}

SEEN = """() => {
  window.seen = [];
  new MutationObserver(() => {
    for (const p of document.querySelectorAll(".progress-text")) window.seen.push(p.textContent);
    for (const b of document.querySelectorAll(".badge.indexing")) {
      if (!b.hidden) window.seen.push("badge");
    }
  }).observe(document.getElementById("vault-cards"),
             { subtree: true, childList: true, characterData: true, attributes: true });
}"""


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("roots")
    write_files(root / "allowed" / "notes", dict(NOTES))
    write_files(root / "elsewhere", {"secret.md": "# Secret\n"})
    return root


@pytest.fixture(scope="module")
def base_url(roots: Path) -> Iterator[str]:
    settings = hash_settings(roots / "home", server={"vault_roots": [str(roots / "allowed")]})
    with serving(create_app(settings)) as url:
        yield url


def test_add_a_vault_and_index_it_from_the_page(page: Page, roots: Path) -> None:
    page.goto("/indexing")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#vault-cards")).to_contain_text("No vault yet")

    page.fill("#vault-name", "secret")
    page.fill("#vault-path", str(roots / "elsewhere"))
    page.locator("#add-vault-button").click()
    error = page.locator("#add-vault-error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("is outside the folders")
    expect(page.locator(".card.vault")).to_have_count(0)

    page.evaluate(SEEN)
    page.fill("#vault-name", "notes")
    page.fill("#vault-path", str(roots / "allowed" / "notes"))
    page.locator("#add-vault-button").click()
    card = page.locator('.card.vault[data-vault="notes"]')
    expect(card.locator(".progress")).to_have_attribute("data-state", "done", timeout=30_000)
    expect(card.locator(".progress-text")).to_contain_text("40 added")
    expect(card.locator("dd.notes")).to_have_text("40")
    expect(card.locator(".badge.indexing")).to_be_hidden()
    expect(error).to_be_hidden()
    seen = page.evaluate("window.seen")
    assert any(text.startswith("indexing") for text in seen), seen  # progress while it ran
    assert "badge" in seen

    page.goto("/")  # the chat page has notes to search now
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#empty-state")).to_have_count(0)
