"""The scope panel's types and tags: picked in Chromium, they filter what a message searches."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from notecite import Engine
from notecite.api import create_app
from notecite.testing import hash_settings, write_files
from tests.api.test_socket import serving
from tests.web.test_page import ask, new_session, open_chat

pytestmark = pytest.mark.browser

NOTES = {
    "meetings/kickoff.md": (
        "---\ntype: meeting\ntags: [atlas, budget]\n---\n# Kickoff\n\n"
        "The Atlas budget is 240000 dollars, approved at the kickoff.\n"
    ),
    "projects/beacon.md": (
        "---\ntype: project\ntags: [beacon, budget]\n---\n# Beacon\n\n"
        "The Beacon budget is 50000 dollars for the pilot.\n"
    ),
}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over a vault whose notes have types and tags."""
    root = tmp_path_factory.mktemp("web-facets")
    settings = hash_settings(root / "home")
    with Engine(settings) as engine:
        engine.add_vault("notes", write_files(root / "notes", NOTES))
        engine.index()
    with serving(create_app(settings)) as url:
        yield url


def test_a_type_or_tag_picked_in_the_scope_filters_the_search(page: Page) -> None:
    open_chat(page)
    new_session(page)
    picker = page.locator("#facet-picker")
    expect(picker.locator("input[name=type]")).to_have_count(2)
    expect(picker.locator('input[name=tag][value="budget"]')).to_have_count(1)
    picker.locator('input[name=tag][value="beacon"]').check()
    answer = ask(page, "What is the budget?")
    answer.locator("details.debug summary").click()
    expect(answer.locator(".filters")).to_have_text('filters: tags in ["beacon"]')
    cells = answer.locator("table.candidates tbody td.wrap").all_text_contents()
    assert cells
    assert all(cell.startswith("notes/projects/beacon.md") for cell in cells), cells

    picker.locator('input[name=tag][value="beacon"]').uncheck()
    picker.locator('input[name=type][value="meeting"]').check()
    picker.locator('input[name=tag][value="beacon"]').check()
    empty = ask(page, "What is the budget?")
    expect(empty).to_contain_text("No note matches the filters")
