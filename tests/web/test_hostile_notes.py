"""A note written to attack the page runs no script: not in the note view, not in a chat
answer that quotes it, streamed or final (headless Chromium against a real server).

The first line is the stored XSS of issue 17: with the old hand-written renderer it put
``autofocus``, ``contenteditable`` and an ``onfocus`` handler on an element, and the handler
ran as soon as the note was shown. The page fixture fails a test on any JavaScript error or
Content-Security-Policy refusal, so the sanitiser alone must stop each attack; the policy is
the second line, checked by the header tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Locator, Page, expect

from notecite import Engine
from notecite.api import create_app
from notecite.testing import hash_settings
from tests.api.test_socket import serving
from tests.chat.notes import write_notes
from tests.web.allow_list import DESCRIBE, problems
from tests.web.test_page import ask, open_chat

pytestmark = pytest.mark.browser

PWN = "document.body.dataset.pwned=1"
NESTED_LINK = f"[x[[](/a)[c](/autofocus/contenteditable/onfocus=location='javascript:{PWN}'//)]]"
HOSTILE_NOTE = (
    "# Zebra\n\n"
    f"The zebra payload line is {NESTED_LINK}\n\n"
    "## More\n\n"
    f"A control-character link [click](\x01javascript:{PWN}) and [two](\x01 javascript:{PWN}).\n\n"
    f'An image <img src=x onerror="{PWN}"> and <svg onload="{PWN}"></svg> inline.\n\n'
    f"<script>{PWN}</script>\n\n"
    f'[[x" onmouseover="{PWN}|label]] and [[<b onclick="{PWN}">bold</b>]]\n\n'
    f'![pic" onerror="{PWN}](javascript:{PWN}) and [data](data:text/html,<script>{PWN}</script>)\n'
)


def check_rendered(page: Page, root: Locator) -> None:
    """No script ran, and the rendered markdown under ``root`` keeps to the allow-list."""
    page.wait_for_timeout(300)  # autofocus and load handlers would have fired by now
    expect(page.locator("body")).not_to_have_attribute("data-pwned", "1")
    elements = root.evaluate(DESCRIBE)
    assert elements, "nothing was rendered"
    assert problems(elements) == []


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The test vault plus ``projects/zebra.md``, the hostile note, indexed and served."""
    root = tmp_path_factory.mktemp("hostile")
    settings = hash_settings(root / "home")
    notes = write_notes(root / "notes")
    (notes / "projects" / "zebra.md").write_text(HOSTILE_NOTE, encoding="utf-8")
    with Engine(settings) as engine:
        engine.add_vault("notes", notes)
        engine.index()
    with serving(create_app(settings)) as url:
        yield url


def test_the_note_view_of_a_hostile_note_runs_no_script(page: Page) -> None:
    page.goto("/view/notes/projects/zebra.md?section=Zebra%20%3E%20More")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    body = page.locator("#note-body")
    expect(body).to_contain_text("The zebra payload line is")
    expect(body).to_contain_text("<script>")  # raw HTML is shown as text
    expect(body.locator("h2.target")).to_have_text("More")  # the section is still found
    expect(body.locator("span.wikilink").first).to_have_attribute("title", 'x" onmouseover="' + PWN)
    check_rendered(page, body)
    # the nested link is only a link to a note of the same vault now (a root-relative target
    # starts at the vault's root)
    expect(body.locator('a[href^="/view/notes/autofocus/"]')).to_have_count(1)


def test_a_chat_answer_quoting_a_hostile_line_runs_no_script(page: Page) -> None:
    open_chat(page)
    answer = ask(page, "What is the zebra payload line?")
    bubble = answer.locator(".bubble")
    expect(bubble).to_contain_text("The zebra payload line is")
    assert int(answer.get_attribute("data-tokens") or 0) > 1  # it was rendered while streaming
    check_rendered(page, bubble)
    # an answer has no note to resolve a relative target against: it is text, not a link
    expect(bubble.locator("a")).to_have_count(0)
    expect(bubble).to_contain_text("The zebra payload line is [x[c]]")
    expect(bubble.locator("button.chip").first).to_be_visible()  # citations still work
    page.reload()  # and once more from the stored session
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    stored = page.locator("#messages .message.assistant .bubble").last
    expect(stored).to_contain_text("The zebra payload line is")
    check_rendered(page, stored)


def test_the_streamed_render_of_each_prefix_of_the_hostile_note_keeps_to_the_allow_list(
    page: Page,
) -> None:
    # what a streamed answer shows token by token: every prefix of the text
    page.goto("/logs")
    elements = page.evaluate(
        """([text]) => {
          const describe = DESCRIBE;
          const box = document.createElement("div");
          document.body.append(box);
          const seen = [];
          for (let end = 1; end <= text.length; end += 3) {
            markdown.fill(box, text.slice(0, end), { citations: true });
            seen.push(...describe(box));
          }
          box.remove();
          return seen;
        }""".replace("DESCRIBE", DESCRIBE),
        [HOSTILE_NOTE],
    )
    assert problems(elements) == []
    expect(page.locator("body")).not_to_have_attribute("data-pwned", "1")
