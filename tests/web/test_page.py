"""The web page in headless Chromium against a real server: ask, cite, settings, sessions."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect

from notecite.api import create_app
from notecite.testing import hash_settings
from tests.api.test_socket import serving
from tests.web.conftest import watch

pytestmark = pytest.mark.browser

QUESTION = "What is the Apollo budget?"
SEP = "\u203a"  # the single right angle quote between a path and its headings


def open_chat(page: Page, path: str = "/") -> None:
    """Load the chat page and wait until its session is open."""
    page.goto(path)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def ask(page: Page, text: str) -> Locator:
    """Type ``text``, press Enter, wait for the final answer and for the page to have read
    back the stored turn (the composer idle again); return the answer's message."""
    done = page.locator("#messages .message.assistant:not(.streaming)")
    before = done.count()
    page.fill("#message", text)
    page.press("#message", "Enter")
    expect(done).to_have_count(before + 1)
    idle(page)
    return done.last


def idle(page: Page) -> None:
    """Wait until the page is done with the turn at hand: the answer is shown, the stored
    session read back and the session list drawn again."""
    expect(page.locator("#composer")).to_have_attribute("data-state", "idle")


def new_session(page: Page) -> str:
    """Click "+ New" and wait until the page shows an empty session; its id. On an empty
    session the page stays where it is (empty sessions do not pile up)."""
    before = session_id(page)
    had_messages = page.locator("#messages .message").count() > 0
    page.locator("#new-session").click()
    if had_messages:
        page.wait_for_url(lambda url: "session=" in url and before not in url)
    expect(page.locator("#session-title")).to_have_text("New chat")
    expect(page.locator("#messages .message")).to_have_count(0)
    return session_id(page)


def settle(page: Page) -> None:
    """Wait until every settings change has been saved."""
    expect(page.locator("#settings")).to_have_attribute("data-pending", "0")


def session_id(page: Page) -> str:
    """The id of the session the page shows (kept in the address)."""
    found = re.search(r"session=([^&]+)", page.url)
    assert found, page.url
    return found.group(1)


def test_an_answer_streams_in_with_citation_chips_and_sources(page: Page) -> None:
    open_chat(page)
    with page.expect_response("**/chat") as streamed:
        answer = ask(page, QUESTION)
    assert streamed.value.headers["content-type"].startswith("text/event-stream")
    assert int(answer.get_attribute("data-tokens") or 0) > 1  # rendered token by token
    expect(answer.locator(".bubble")).to_contain_text("40000 euros")
    chips = answer.locator(".bubble button.chip")
    expect(chips.first).to_have_text(re.compile(r"^N\d+$"))
    expect(answer.locator(".sources")).to_contain_text(
        f"projects/apollo.md {SEP} Apollo {SEP} Budget"
    )
    expect(answer.locator(".abstention")).to_have_count(0)
    expect(page.locator("#messages .message.user .bubble")).to_have_text([QUESTION])


def test_a_citation_opens_its_source_and_the_note_at_its_section(page: Page) -> None:
    open_chat(page)
    new_session(page)
    answer = ask(page, QUESTION)
    answer.locator(".sources button", has_text="apollo.md").first.click()
    panel = page.locator("#source-panel")
    expect(panel).to_be_visible()
    expect(panel.locator("#source-vault")).to_have_text("notes")
    expect(panel.locator("#source-path")).to_have_text("projects/apollo.md")
    expect(panel.locator("#source-section")).to_have_text(f"Apollo {SEP} Budget")
    expect(panel.locator("#source-date")).to_contain_text("2025")
    expect(panel.locator("#source-snippet")).to_contain_text("40000 euros")
    expect(panel.locator("#source-score")).to_have_text(re.compile(r"^\d\.\d{3}$"))

    page.locator("#source-close").click()
    expect(panel).to_be_hidden()
    answer.locator(".bubble button.chip").first.click()  # the inline chip opens it too
    expect(panel).to_be_visible()

    link = panel.locator("#source-open").get_attribute("href")
    assert link is not None
    assert link.startswith("/view/notes/projects/apollo.md?section=")
    page.goto(link)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#note-body h2.target")).to_have_text("Budget")
    expect(page.locator("#note-body")).to_contain_text("approved by Maria")


def test_settings_are_saved_and_still_there_after_a_reload(page: Page, base_url: str) -> None:
    open_chat(page)
    sid = new_session(page)

    page.locator("#set-topk").fill("3")
    expect(page.locator("#settings-saved")).to_have_text("saved")
    page.locator("#set-threshold").fill("55")
    page.locator("#set-sources").uncheck()
    page.locator("#set-model").select_option("extractive")
    page.locator("#set-rag").uncheck()
    settle(page)
    expect(page.locator("#set-rag")).not_to_be_checked()

    stored = httpx.get(f"{base_url}/sessions/{sid}/settings").json()
    assert stored["rag_top_k"] == 3
    assert stored["rag_threshold"] == pytest.approx(0.55)
    assert (stored["include_citations"], stored["model"], stored["enable_rag"]) == (
        False,
        "extractive",
        False,
    )

    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    assert session_id(page) == sid
    expect(page.locator("#set-topk")).to_have_value("3")
    expect(page.locator("#set-topk-out")).to_have_text("3")
    expect(page.locator("#set-threshold")).to_have_value("55")
    expect(page.locator("#set-threshold-out")).to_have_text("55 %")
    expect(page.locator("#set-sources")).not_to_be_checked()
    expect(page.locator("#set-rag")).not_to_be_checked()
    expect(page.locator("#set-model")).to_have_value("extractive")


def test_sessions_switch_rename_and_delete(page: Page, base_url: str) -> None:
    open_chat(page)
    first = new_session(page)
    ask(page, "When is the Apollo launch?")
    second = new_session(page)
    ask(page, "Where do the tomatoes grow?")
    expect(page.locator("#session-title")).to_have_text("Where do the tomatoes grow?")
    assert first != second

    entry = page.locator(f'#session-list li[data-id="{first}"]')
    entry.locator(".session-title").click()
    expect(page.locator("#messages .message.user .bubble")).to_have_text(
        ["When is the Apollo launch?"]
    )
    assert session_id(page) == first
    expect(entry).to_have_attribute("aria-current", "true")  # the list is drawn for it

    entry.get_by_role("button", name=re.compile("^rename")).click()
    page.locator("#session-list input.rename").fill("Launch plans")
    page.locator("#session-list input.rename").press("Enter")
    expect(page.locator(f'#session-list li[data-id="{first}"] .session-title')).to_have_text(
        "Launch plans"
    )
    expect(page.locator("#session-title")).to_have_text("Launch plans")
    assert httpx.get(f"{base_url}/sessions/{first}").json()["title"] == "Launch plans"

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f'#session-list li[data-id="{second}"]').get_by_role(
        "button", name=re.compile("^delete")
    ).click()
    expect(page.locator(f'#session-list li[data-id="{second}"]')).to_have_count(0)
    assert httpx.get(f"{base_url}/sessions/{second}").status_code == 404


SESSION_LIST = re.compile(r"/sessions(\?[^/]*)?$")


def test_a_list_redraw_during_a_rename_keeps_the_input(page: Page) -> None:
    """The cause of a flaky test: the list drawn again (after a switch or an answer) while a
    title was being edited took the input away. Here the redraw is held until the edit began."""
    open_chat(page)
    first = new_session(page)
    ask(page, "When is the Apollo launch?")
    new_session(page)
    held: list[Route] = []
    page.route(SESSION_LIST, lambda route: held.append(route))
    entry = page.locator(f'#session-list li[data-id="{first}"]')
    entry.locator(".session-title").click()
    expect(page.locator("#messages .message.user .bubble")).to_have_text(
        ["When is the Apollo launch?"]
    )
    while not held:
        page.wait_for_timeout(20)
    entry.get_by_role("button", name=re.compile("^rename")).click()
    rename = page.locator("#session-list input.rename")
    expect(rename).to_be_focused()
    with page.expect_response(SESSION_LIST):
        for route in held:
            route.continue_()
    page.unroute(SESSION_LIST)
    page.evaluate("new Promise((done) => setTimeout(done, 50))")  # the late reply is handled
    expect(rename).to_be_focused()
    rename.fill("Launch plans")
    rename.press("Enter")
    expect(entry.locator(".session-title")).to_have_text("Launch plans")


def test_a_session_opened_right_after_an_answer_stays_open(page: Page) -> None:
    """The race behind the flaky rename test: after an answer the page reads its session back
    and draws the list again; a session opened in between was replaced by the one answered,
    and the list was drawn again under the next click. Here that read-back is held until
    the other session is open."""
    open_chat(page)
    first = new_session(page)
    ask(page, "When is the Apollo launch?")
    second = new_session(page)
    held: list[Route] = []

    def hold_reads(route: Route) -> None:
        if route.request.method == "GET":
            held.append(route)
        else:
            route.continue_()

    read_back = re.compile(rf"/sessions/{second}$")
    page.route(read_back, hold_reads)
    done = page.locator("#messages .message.assistant:not(.streaming)")
    page.fill("#message", "Where do the tomatoes grow?")
    page.press("#message", "Enter")
    expect(done).to_have_count(1)
    while not held:
        page.wait_for_timeout(20)
    entry = page.locator(f'#session-list li[data-id="{first}"]')
    entry.locator(".session-title").click()
    expect(entry).to_have_attribute("aria-current", "true")
    expect(page.locator("#messages .message.user .bubble")).to_have_text(
        ["When is the Apollo launch?"]
    )
    for route in held:
        route.continue_()
    page.unroute(read_back)
    idle(page)
    expect(page.locator("#session-title")).to_have_text("When is the Apollo launch?")
    expect(entry).to_have_attribute("aria-current", "true")
    expect(page.locator(f'#session-list li[data-id="{second}"]')).not_to_have_attribute(
        "aria-current", "true"
    )
    assert session_id(page) == first


def test_the_session_list_is_updated_in_place(page: Page) -> None:
    """Drawing the list again keeps each session's entry (a click landing during a redraw
    still reaches its button); only a changed order moves them."""
    open_chat(page)
    first = new_session(page)
    ask(page, "When is the Apollo launch?")
    new_session(page)
    entry = page.locator(f'#session-list li[data-id="{first}"]')
    entry.evaluate("(li) => { li.dataset.mark = 'kept'; }")
    entry.locator(".session-title").click()
    expect(entry).to_have_attribute("aria-current", "true")
    ask(page, "And the Hermes launch?")
    expect(entry.locator(".count")).to_have_text("4")
    expect(entry).to_have_attribute("data-mark", "kept")


def test_the_chat_logs_table_shows_a_rag_badge_with_its_settings(page: Page) -> None:
    open_chat(page)
    new_session(page)
    page.locator("#set-topk").fill("4")
    settle(page)
    ask(page, QUESTION)
    sid = session_id(page)

    page.goto("/logs")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    row = page.locator(f'#logs-body tr[data-id="{sid}"]')
    expect(row.locator("td").nth(1)).to_have_text("2")
    badge = row.locator(".badge.rag")
    expect(badge).to_have_text(re.compile("^RAG"))
    badge.hover()
    tip = badge.locator(".tip")
    expect(tip).to_be_visible()
    expect(tip).to_have_text(re.compile(r"top-k 4 · threshold \d+ % · citations shown"))
    row.locator("a").click()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    assert session_id(page) == sid


def test_an_abstention_is_shown_with_its_reason(page: Page) -> None:
    open_chat(page)
    new_session(page)
    page.locator("#set-threshold").fill("100")  # no chunk can pass: nothing relevant
    settle(page)
    answer = ask(page, "What colour is the office door?")
    expect(answer).to_have_class(re.compile("abstained"))
    expect(answer.locator(".abstention")).to_contain_text("Abstained")
    expect(answer.locator(".abstention")).to_contain_text("nothing in your notes matched")
    expect(answer.locator(".sources")).to_have_count(0)

    page.reload()  # the stored answer is still shown as an abstention
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#messages .message.assistant .abstention")).to_contain_text("Abstained")


def test_the_debug_drawer_shows_candidates_folders_and_timings(page: Page) -> None:
    open_chat(page)
    new_session(page)
    answer = ask(page, QUESTION)
    drawer = answer.locator("details.debug")
    expect(drawer.locator(".debug-body")).to_be_hidden()
    drawer.locator("summary").click()
    expect(drawer.locator(".debug-body")).to_be_visible()
    rows = drawer.locator("table.candidates tbody tr")
    assert rows.count() >= 2
    first = rows.first.locator("td")
    expect(first.nth(0)).to_have_text("1")
    for column in (2, 3, 4):  # vector, lexical, final
        expect(first.nth(column)).to_have_text(re.compile(r"^-?\d\.\d{3}$"))
    expect(drawer.locator("tr.kept")).not_to_have_count(0)
    expect(drawer.locator(".folders")).to_contain_text("method: scores")
    expect(drawer.locator(".folders")).to_contain_text("available: 2")
    timings = drawer.locator(".timings dt")
    expect(timings).to_have_text(["embed", "retrieve", "rerank", "generate", "total"])


def test_a_folder_picked_in_the_scope_narrows_the_search(page: Page) -> None:
    open_chat(page)
    new_session(page)
    page.locator('#folder-picker input[value="notes/home"]').check()
    page.locator("#detail").select_option("brief")
    answer = ask(page, QUESTION)
    answer.locator("details.debug summary").click()
    expect(answer.locator(".folders")).to_contain_text("method: user; selected: notes/home")
    for cell in answer.locator("table.candidates tbody td.wrap").all_text_contents():
        assert cell.startswith("notes/home/"), cell


def test_enter_sends_and_shift_enter_starts_a_new_line(page: Page) -> None:
    open_chat(page)
    new_session(page)
    box = page.locator("#message")
    box.fill("first line")
    box.press("Shift+Enter")
    box.press_sequentially("second line")
    expect(box).to_have_value("first line\nsecond line")
    expect(page.locator("#messages .message")).to_have_count(0)
    box.press("Enter")
    expect(page.locator("#messages .message.user .bubble")).to_have_text(
        ["first line\nsecond line"]
    )
    expect(box).to_have_value("")


def test_the_index_page_lists_vaults_failures_and_reindexes_with_progress(page: Page) -> None:
    page.goto("/indexing")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    card = page.locator('.card.vault[data-vault="notes"]')
    expect(card.locator(".notes")).to_have_text("3")
    expect(card.locator(".chunks")).not_to_have_text("0")
    expect(card.locator(".failed-count")).to_have_text("1")
    expect(card.locator(".failed")).to_contain_text("broken.pdf")
    expect(card.locator(".failed")).to_contain_text("unreadable PDF")
    card.locator("button.reindex").click()
    progress = page.locator('.card.vault[data-vault="notes"] .progress')
    expect(progress).to_have_attribute("data-state", "done")
    expect(progress.locator(".progress-text")).to_contain_text("3 unchanged")


def test_phone_width_keeps_the_page_usable(page: Page) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    open_chat(page)
    expect(page.locator("#sidebar")).to_be_hidden()
    page.locator("#toggle-sidebar").click()
    new_session(page)  # opening a session closes the sidebar again
    expect(page.locator("#sidebar")).to_be_hidden()
    answer = ask(page, QUESTION)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways ({width}px)"
    answer.locator(".sources button").first.click()
    expect(page.locator("#source-panel")).to_be_visible()
    page.locator("#source-close").click()
    page.locator("#toggle-sidebar").click()
    expect(page.locator("#sidebar")).to_be_visible()
    expect(page.locator("#set-topk")).to_be_visible()


def test_with_api_keys_the_page_signs_in_with_an_http_only_cookie(
    browser: Browser, tmp_path: Path
) -> None:
    settings = hash_settings(tmp_path / "home", server={"api_keys": ["a-long-secret"]})
    with serving(create_app(settings)) as url:
        context = browser.new_context(base_url=url)
        page = context.new_page()
        errors = watch(page)
        page.goto("/")
        expect(page.locator("#api-key-bar")).to_be_visible()
        expect(page.locator("#toast")).to_contain_text("API key")
        page.fill("#api-key", "a-wrong-guess")
        page.locator("#api-key-form button").click()
        expect(page.locator("#toast")).to_contain_text("missing or wrong API key")
        expect(page.locator("#api-key-bar")).to_be_visible()

        page.evaluate("localStorage.setItem('notecite.apiKey', 'an-old-stored-key')")
        page.fill("#api-key", "a-long-secret")
        page.locator("#api-key-form button").click()
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#api-key-bar")).to_be_hidden()
        expect(page.locator("#session-title")).to_have_text("New chat")

        # the key is nowhere a script could read it: not in storage, not in document.cookie
        stored = page.evaluate("JSON.stringify(localStorage)")
        assert "notecite.apiKey" not in stored
        assert "secret" not in stored
        assert page.evaluate("document.cookie") == ""
        (cookie,) = context.cookies()
        assert (cookie["name"], cookie["httpOnly"], cookie["sameSite"]) == (
            "notecite_session",
            True,
            "Strict",
        )
        assert "a-long-secret" not in cookie["value"]
        page.reload()  # still signed in
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("#api-key-bar")).to_be_hidden()
        context.close()
        assert errors == []
