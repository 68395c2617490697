"""Properties written as ``key:: value`` lines at the top of a note (Logseq, Dataview), read
as its frontmatter (real SQLite for the search and the answers)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite import Engine
from notecite.ingest.page_properties import leading_properties
from notecite.ingest.parse import parse_file
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory

NOW = datetime(2026, 11, 30, tzinfo=UTC)
TOM = (
    "alias:: my builder, [[Tom]]\n"
    "phone:: 07700 900123\n"
    "tags:: builder, #garden\n"
    "title:: Tom Hale\n"
    "\n"
    "- Local builder, did the neighbours' extension.\n"
    "- Prefers bank transfer; invoices within a week.\n"
)


def test_the_lines_that_open_a_page_are_its_properties() -> None:
    assert leading_properties(TOM) == {
        "alias": ["my builder", "Tom"],
        "phone": "07700 900123",
        "tags": ["builder", "garden"],
        "title": "Tom Hale",
    }
    assert leading_properties("\n\nstatus:: draft\n# Plan\nowner:: me\n") == {"status": "draft"}


@pytest.mark.parametrize(
    "body",
    [
        "# Plan\nstatus:: draft\n",  # a field after the opening is not the page's
        "std::vector holds them.\n",  # C++, not a field
        "Some prose first.\n\nstatus:: draft\n",
        "",
    ],
)
def test_a_body_that_opens_otherwise_has_no_properties(body: str) -> None:
    assert leading_properties(body) == {}


def test_a_page_is_titled_tagged_and_aliased_by_its_properties() -> None:
    note = parse_file("pages/tom.md", TOM.encode(), NOW)
    assert note.title == "Tom Hale"
    assert note.keywords == ("builder", "garden")
    assert note.frontmatter["alias"] == ["my builder", "Tom"]
    yaml = "---\ntitle: From YAML\n---\ntitle:: From a property\nstatus:: draft\n\nText.\n"
    both = parse_file("plan.md", yaml.encode(), NOW)
    assert both.title == "From YAML"  # the YAML's key keeps its value
    assert both.frontmatter["status"] == "draft"


GARDEN = {
    "pages/Tom Hale.md": TOM,
    "pages/Ana Ruiz.md": "tags:: plumber\n\n- Fixed the boiler. Prefers cash.\n",
    "projects/garden-shed.md": (
        "# Garden shed\n\n> [!info] Status\n> Waiting on the council.\n\n"
        "Budget:: £1,800\nBuilder:: Tom Hale\n\n"
        "The base is ==150 mm of compacted hardcore== with a slab on top.\n"
    ),
}


@pytest.fixture
def engine(notecite_engines: EngineFactory) -> Engine:
    return notecite_engines(vaults={"home": GARDEN})


def test_a_page_is_found_by_its_tag_and_quoted_without_markup(engine: Engine) -> None:
    tagged = engine.search("who prefers what payment", filters=["tags=builder"])
    assert {r.rel_path for r in tagged} == {"pages/Tom Hale.md"}

    base = engine.ask(AskRequest(question="What is the base of the garden shed made of?"))
    assert "150 mm of compacted hardcore with a slab" in base.answer
    assert "==" not in base.answer
    budget = engine.ask(AskRequest(question="What is the budget for the garden shed?"))
    assert "£1,800" in budget.answer
    assert budget.references[0].rel_path == "projects/garden-shed.md"
