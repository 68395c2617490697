"""What a person uses every day: copy and regenerate, a note's pictures and relative links,
the source panel as markdown, the phone sidebar, no pile of empty chats, the model menu."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from notecite import Engine
from notecite.api import create_app
from notecite.testing import hash_settings, write_files
from tests.api.test_socket import serving
from tests.chat.notes import NOTES
from tests.web.conftest import watch
from tests.web.test_page import ask, idle, new_session, open_chat, session_id

pytestmark = pytest.mark.browser

PNG = base64.b64decode(  # a 1x1 picture
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
DIAGRAM = (
    "# Diagram\n\n## Picture\n\n"
    "The launch diagram shows the **Lisbon pad** layout.\n\n"
    "![launch diagram](img/launch.png)\n\n"
    "See [the Hermes note](hermes.md), [outside](../../etc/passwd) and ![[img/launch.png]].\n"
)


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test vault plus ``projects/diagram.md`` with a picture and relative links."""
    root = tmp_path_factory.mktemp("daily")
    notes = write_files(root / "notes", {**NOTES, "projects/diagram.md": DIAGRAM})
    (notes / "projects" / "img").mkdir()
    (notes / "projects" / "img" / "launch.png").write_bytes(PNG)
    settings = hash_settings(root / "home")
    with Engine(settings) as engine:
        engine.add_vault("notes", notes)
        engine.index()
    with serving(create_app(settings)) as url:
        yield url


def test_copy_and_regenerate(page: Page, base_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_chat(page)
    answer = ask(page, "What is the Apollo budget?")
    copy = answer.locator(".actions button.copy")
    copy.click()
    expect(copy).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "40000 euros" in copied
    assert copied.startswith("Extractive answer")

    ask(page, "When is the Apollo launch?")
    done = page.locator("#messages .message.assistant:not(.streaming)")
    # only the last answer offers Regenerate
    expect(done.first.locator("button.regenerate")).to_be_hidden()
    done.last.locator(".actions button.regenerate").click()
    idle(page)
    expect(done).to_have_count(2)  # the answer is replaced, not a third one added
    expect(page.locator("#messages .message.user .bubble")).to_have_text(
        ["What is the Apollo budget?", "When is the Apollo launch?"]
    )
    expect(done.last.locator(".bubble")).to_contain_text("March 14")
    expect(done.last.locator("button.regenerate")).to_be_visible()
    assert_stored(
        base_url,
        page,
        [
            ("user", "What is the Apollo budget?"),
            ("assistant", "40000 euros"),
            ("user", "When is the Apollo launch?"),
            ("assistant", "March 14"),
        ],
    )


def test_edit_and_send_replaces_the_turn_and_what_followed(page: Page, base_url: str) -> None:
    open_chat(page)
    new_session(page)
    ask(page, "What is the Apollo budget?")
    ask(page, "When is the Apollo launch?")
    ask(page, "Where do the tomatoes grow?")
    questions = page.locator("#messages .message.user")
    questions.nth(1).locator(".actions button.edit").click()
    box = questions.nth(1).locator("textarea.edit-box")
    expect(box).to_be_focused()
    expect(box).to_have_value("When is the Apollo launch?")
    box.press("Escape")  # cancel: nothing changes
    expect(questions.nth(1).locator(".bubble")).to_have_text("When is the Apollo launch?")
    expect(questions).to_have_count(3)

    questions.nth(1).locator(".actions button.edit").click()
    box.fill("What blocks the Hermes migration?")
    questions.nth(1).locator("button.edit-send").click()
    idle(page)
    expect(questions.locator(".bubble")).to_have_text(
        ["What is the Apollo budget?", "What blocks the Hermes migration?"]
    )
    answers = page.locator("#messages .message.assistant")
    expect(answers).to_have_count(2)
    expect(answers.last.locator(".bubble")).to_contain_text("vendor contract")
    assert_stored(
        base_url,
        page,
        [
            ("user", "What is the Apollo budget?"),
            ("assistant", "40000 euros"),
            ("user", "What blocks the Hermes migration?"),
            ("assistant", "vendor contract"),
        ],
    )
    page.reload()  # what is stored is what the page showed
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(questions.locator(".bubble")).to_have_text(
        ["What is the Apollo budget?", "What blocks the Hermes migration?"]
    )
    expect(answers).to_have_count(2)


def assert_stored(base_url: str, page: Page, expected: list[tuple[str, str]]) -> None:
    """The page's session as stored: these roles in order, each question as written and
    each answer holding the expected text."""
    messages = httpx.get(f"{base_url}/sessions/{session_id(page)}").json()["messages"]
    assert [m["role"] for m in messages] == [role for role, _ in expected], messages
    for message, (role, text) in zip(messages, expected, strict=True):
        if role == "user":
            assert message["content"] == text
        else:
            assert text in message["content"], message["content"]


def test_a_note_shows_its_picture_and_links_to_its_neighbours(page: Page, base_url: str) -> None:
    page.goto("/view/notes/projects/diagram.md")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    body = page.locator("#note-body")
    pictures = body.locator("img")
    expect(pictures).to_have_count(2)  # ![](img/launch.png) and Obsidian's ![[img/launch.png]]
    for i in range(2):
        expect(pictures.nth(i)).to_have_attribute("src", "/notes/notes/projects/img/launch.png")
        page.wait_for_function(
            "(img) => img.complete && img.naturalWidth === 1",
            arg=pictures.nth(i).element_handle(),
        )
    expect(pictures.first).to_have_attribute("alt", "launch diagram")
    link = body.locator("a", has_text="the Hermes note")
    expect(link).to_have_attribute("href", "/view/notes/projects/hermes.md")
    expect(body.locator("a", has_text="outside")).to_have_count(0)  # it would leave the vault
    expect(body).to_contain_text("outside")
    picture = httpx.get(f"{base_url}/notes/notes/projects/img/launch.png")
    assert picture.headers["content-type"] == "image/png"
    assert picture.content == PNG
    with page.context.expect_page() as opened:  # links open in a new tab
        link.click()
    expect(opened.value.locator("#note-body h1")).to_have_text("Hermes")


def test_the_source_panel_renders_markdown_and_explains_the_score(page: Page) -> None:
    open_chat(page)
    answer = ask(page, "What does the launch diagram show?")
    answer.locator(".sources button", has_text="diagram.md").first.click()
    panel = page.locator("#source-panel")
    expect(panel.locator("#source-snippet strong")).to_have_text("Lisbon pad")
    expect(panel.locator("#source-snippet")).not_to_contain_text("**")
    expect(panel.locator("dt", has_text="Note date")).to_have_count(1)
    expect(panel.locator("#source-score-help")).to_contain_text("how well this passage matched")


def test_the_phone_sidebar_opens_and_closes(browser: Browser, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, viewport={"width": 390, "height": 800})
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors = watch(page)
    open_chat(page)
    sidebar = page.locator("#sidebar")
    expect(sidebar).to_be_hidden()
    page.locator("#toggle-sidebar").click()
    expect(sidebar).to_be_visible()
    close = page.locator("#close-sidebar")
    expect(close).to_be_visible()
    close.click()
    expect(sidebar).to_be_hidden()
    page.locator("#toggle-sidebar").click()
    expect(sidebar).to_be_visible()
    page.keyboard.press("Escape")
    expect(sidebar).to_be_hidden()
    context.close()
    assert not errors


def test_new_on_an_empty_chat_does_not_pile_up_sessions(page: Page, base_url: str) -> None:
    open_chat(page)
    ask(page, "When is the Apollo launch?")
    page.locator("#new-session").click()
    expect(page.locator("#session-title")).to_have_text("New chat")
    empty = page.url
    before = len(httpx.get(f"{base_url}/sessions").json()["sessions"])
    for _ in range(3):
        page.locator("#new-session").click()
    page.wait_for_timeout(300)
    assert page.url == empty
    assert len(httpx.get(f"{base_url}/sessions").json()["sessions"]) == before


def test_a_long_first_question_makes_a_title_cut_at_a_word(page: Page) -> None:
    open_chat(page)
    page.locator("#new-session").click()
    question = (
        "What did we decide about the Apollo budget and the launch date in the Lisbon meeting?"
    )
    ask(page, question)
    expect(page.locator("#session-title")).to_have_text(re.compile("\u2026$"))
    title = page.locator("#session-title").inner_text()
    assert title.endswith("\u2026")
    assert question.startswith(title[:-1])
    assert question[len(title) - 1] == " "  # cut between words
    assert len(title) <= 60


def test_the_model_menu_lists_only_configured_providers(page: Page) -> None:
    open_chat(page)
    options = page.locator("#set-model option").evaluate_all("(os) => os.map((o) => o.value)")
    assert options[0] == ""
    assert "extractive" in options
    assert "openai" not in options
    assert "ollama" not in options
    assert re.fullmatch(
        r"default \(extractive\)", page.locator("#set-model option").first.inner_text()
    )
