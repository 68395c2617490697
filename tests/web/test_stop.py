"""Stop in the page, against a model that writes slowly: the stream ends at once, the model
stops within a second, and the turn is stored as cancelled."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from notecite import Engine
from notecite.api import create_app
from notecite.testing import ProviderServer, hash_settings
from tests.api.test_cancel import SlowModel
from tests.api.test_socket import serving
from tests.chat.notes import write_notes
from tests.web.test_page import open_chat, session_id

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def model() -> SlowModel:
    return SlowModel()


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory, model: SlowModel) -> Iterator[str]:
    """The test vault served with the openai provider pointed at a slow model on loopback."""
    root = tmp_path_factory.mktemp("stop")
    with ProviderServer(model) as provider:
        settings = hash_settings(
            root / "home",
            llm="openai",
            generation={"base_url": provider.url + "/v1", "retries": 0, "timeout_s": 30},
        )
        with Engine(settings) as engine:
            engine.add_vault("notes", write_notes(root / "notes"))
            engine.index()
        with serving(create_app(settings)) as url:
            yield url


def test_stop_ends_a_slow_answer_and_the_turn_is_stored_as_cancelled(
    page: Page, base_url: str, model: SlowModel
) -> None:
    open_chat(page)
    expect(page.locator("#stop")).to_be_hidden()
    page.fill("#message", "What is the Apollo budget?")
    page.press("#message", "Enter")
    page.wait_for_function(
        "() => Number(document.querySelector('#messages .message.assistant.streaming')"
        "?.dataset.tokens || 0) >= 6"
    )
    expect(page.locator("#send")).to_be_hidden()
    page.locator("#stop").click()
    pressed = time.monotonic()

    stopped = page.locator("#messages .message.assistant.cancelled")
    expect(stopped.locator(".stopped")).to_have_text("Stopped.")
    expect(stopped.locator(".bubble")).to_contain_text("The Apollo")
    expect(page.locator("#send")).to_be_visible()
    expect(page.locator("#stop")).to_be_hidden()
    assert model.closed.wait(5), "the model was never stopped"
    assert model.closed_at - pressed < 1.0, f"the model wrote on {model.closed_at - pressed:.2f} s"

    sid = session_id(page)
    deadline = time.monotonic() + 5
    while len(messages := httpx.get(f"{base_url}/sessions/{sid}").json()["messages"]) < 2:
        assert time.monotonic() < deadline, "the cancelled turn was not stored"
        time.sleep(0.05)
    assert messages[1]["meta"]["cancelled"] is True
    page.reload()  # the stored turn shows as stopped too
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#messages .message.assistant.cancelled .stopped")).to_have_text("Stopped.")


def test_regenerate_after_stop_replaces_the_stopped_turn(page: Page, base_url: str) -> None:
    """The page waits for the stopped turn to be stored before it sends anything else, so
    Regenerate replaces it in the stored session as on the page."""
    open_chat(page)
    page.locator("#new-session").click()
    expect(page.locator("#messages .message")).to_have_count(0)
    streaming = (
        "() => Number(document.querySelector('#messages .message.assistant.streaming')"
        "?.dataset.tokens || 0) >= 3"
    )
    page.fill("#message", "When is the Apollo launch?")
    page.press("#message", "Enter")
    page.wait_for_function(streaming)
    page.locator("#stop").click()
    expect(page.locator("#composer")).to_have_attribute("data-state", "idle", timeout=15_000)
    sid = session_id(page)
    first = httpx.get(f"{base_url}/sessions/{sid}").json()["messages"]
    assert [m["role"] for m in first] == ["user", "assistant"]  # stored before the page went on
    assert first[1]["meta"]["cancelled"] is True

    page.locator("#messages .message.assistant button.regenerate").click()
    page.wait_for_function(streaming)
    page.locator("#stop").click()
    expect(page.locator("#composer")).to_have_attribute("data-state", "idle", timeout=15_000)
    expect(page.locator("#messages .message.user")).to_have_count(1)
    expect(page.locator("#messages .message.assistant.cancelled")).to_have_count(1)
    stored = httpx.get(f"{base_url}/sessions/{sid}").json()["messages"]
    assert stored[0]["role"] == "user"
    assert stored[0]["content"] == "When is the Apollo launch?"
    assert len(stored) == 2, stored  # the first stopped turn is gone, not kept before it
    assert stored[1]["meta"]["cancelled"] is True
