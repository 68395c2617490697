"""A vault indexed by ``notecite index`` in a terminal (another process) while the Index page
is open: the page shows the "indexing" badge and who runs it, its counts follow the run, it
starts no run of its own meanwhile, and it shows when the vault was last indexed."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from notecite import Engine, load_settings
from notecite.api import create_app
from notecite.embed.base import Vectors
from notecite.embed.hashing import HashEmbedder
from notecite.testing import DelegatingEmbedder, ProviderServer, write_files
from tests.api.test_socket import serving

pytestmark = pytest.mark.browser

NOTES = {
    f"topic{i:02d}/note{i:02d}.md": f"# Note {i}\n\nLine about topic {i}.\n" for i in range(12)
}
SLOW_S = 15_000  # ms: the page looks for runs of other processes every few seconds


class GatedEmbedder(DelegatingEmbedder):
    """Embeds passages only while ``gate`` is open: with it closed, an index run of the vault
    waits in its vector phase, every note already written (keyword phase), for as long as
    the test needs to look at the page."""

    def __init__(self) -> None:
        super().__init__(HashEmbedder(64))
        self.gate = threading.Event()
        self.gate.set()
        self.reached = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.reached.set()
        assert self.gate.wait(60), "the test never opened the gate"
        return super().embed_documents(texts)


@dataclass
class Setup:
    url: str
    home: Path
    embedder: GatedEmbedder


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    """``notecite serve`` and a terminal on one home, whose config embeds through a provider
    server on loopback; the vault ``notes`` is added but not indexed."""
    root = tmp_path_factory.mktemp("elsewhere")
    notes = write_files(root / "notes", dict(NOTES))
    embedder = GatedEmbedder()
    with ProviderServer(embedder=embedder) as provider:
        home = root / "home"
        home.mkdir()
        (home / "config.toml").write_text(
            'llm = "extractive"\n\n[embedder]\nname = "openai"\n'
            f'base_url = "{provider.url}/v1"\nmodel = "e"\n'
        )
        settings = load_settings(home=home)
        with Engine(settings) as engine:
            engine.add_vault("notes", notes)
        with serving(create_app(settings)) as url:
            yield Setup(url, home, embedder)


@pytest.fixture(scope="module")
def base_url(setup: Setup) -> str:
    return setup.url


def test_a_run_of_the_terminal_shows_on_the_index_page(page: Page, setup: Setup) -> None:
    page.goto("/indexing")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    card = page.locator('.card.vault[data-vault="notes"]')
    badge = card.locator(".badge.indexing")
    expect(card.locator("dd.indexed-at")).to_have_text("not yet")
    expect(badge).to_be_hidden()

    setup.embedder.gate.clear()
    run = subprocess.Popen(
        [sys.executable, "-m", "notecite", "--home", str(setup.home), "index", "--vault", "notes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert setup.embedder.reached.wait(60), "the run never reached its vector phase"
        expect(badge).to_be_visible(timeout=SLOW_S)
        expect(card.locator(".elsewhere")).to_contain_text(f"another process (pid {run.pid})")
        expect(card.locator("dd.notes")).to_have_text(str(len(NOTES)))  # written by keyword
        expect(card.locator("button.reindex")).to_be_disabled()
        listed = httpx.get(f"{setup.url}/vaults").json()["vaults"][0]
        assert listed["indexing"] == f"pid {run.pid}"
        assert listed["indexed_at"] is None
    finally:
        setup.embedder.gate.set()
        out, err = run.communicate(timeout=120)
    assert run.returncode == 0, err
    assert f"added {len(NOTES)}" in out

    expect(badge).to_be_hidden(timeout=SLOW_S)
    expect(card.locator(".elsewhere")).to_be_hidden()
    expect(card.locator("dd.indexed-at")).to_have_text("just now")
    expect(card.locator("button.reindex")).to_be_enabled()
    listed = httpx.get(f"{setup.url}/vaults").json()["vaults"][0]
    assert listed["indexing"] is None
    assert listed["indexed_at"] is not None

    page.reload()  # a fresh page says when, too
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(card.locator("dd.indexed-at")).not_to_have_text("not yet")
    expect(badge).to_be_hidden()
