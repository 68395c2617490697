"""Org-mode notes read line for line as the markdown they mean (real SQLite for the ask)."""

from __future__ import annotations

from datetime import UTC, datetime

from notecite.ingest.org import org_as_markdown
from notecite.ingest.parse import note_lines_as_read, parse_file
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory
from notecite.types import DocType

NOW = datetime(2026, 11, 30, tzinfo=UTC)
BOILER = """:PROPERTIES:
:ID:       6f1c2a3b-1111
:END:
#+title: Boiler
#+filetags: :house:maintenance:
#+roam_aliases: "the boiler" Worcester
#+date: <2026-01-22 Thu>

* Service history                                                    :service:
** Annual service
The engineer from [[https://example.com][Norfolk Heat]] replaced the ~PCB~ fuse.
# private: she charged cash
Pressure set to =1.5 bar= after topping up.
#+begin_src shell
# not a heading
echo done
#+end_src
#+begin_quote
Always bleed the radiators first.
#+end_quote
* Notes
See [[id:6f1c2a3b-aaaa][the manual]] and [[file:garden.org]].
"""


def test_an_org_note_is_markdown_line_for_line() -> None:
    meta, body = org_as_markdown(BOILER)
    lines = body.split("\n")
    assert len(lines) == len(BOILER.split("\n"))
    assert meta == {
        "id": "6f1c2a3b-1111",
        "title": "Boiler",
        "tags": ["house", "maintenance"],
        "aliases": ["the boiler", "Worcester"],
        "date": "2026-01-22",
    }
    assert lines[:8] == [""] * 8  # the drawer and the keywords
    assert lines[8:10] == ["# Service history", "## Annual service"]
    assert lines[10] == "The engineer from Norfolk Heat replaced the `PCB` fuse."
    assert lines[11] == ""  # a comment
    assert lines[12] == "Pressure set to `1.5 bar` after topping up."
    assert lines[13:17] == ["```shell", "# not a heading", "echo done", "```"]
    assert lines[17:20] == ["", "> Always bleed the radiators first.", ""]
    assert lines[21] == "See the manual and garden.org."


def test_an_org_table_rule_is_a_markdown_one() -> None:
    _, body = org_as_markdown("* Nests\n| nest | eggs |\n|------+------|\n| D04  | 5    |\n")
    assert body.split("\n")[2] == "|------|------|"


def test_an_org_note_has_its_sections_title_tags_and_date() -> None:
    note = parse_file("boiler.org", BOILER.encode(), NOW)
    assert note.doc_type == DocType.ORG
    assert (note.title, note.keywords) == ("Boiler", ("house", "maintenance"))
    assert note.created == datetime(2026, 1, 22, tzinfo=UTC)
    annual = note.sections[0]
    assert annual.heading_path == ("# Service history", "## Annual service")
    assert (annual.line_start, annual.line_end) == (10, 19)
    assert "# not a heading" in annual.text  # code stays code, not a heading
    assert note_lines_as_read("boiler.org", BOILER)[12] == (
        "Pressure set to `1.5 bar` after topping up."
    )


def test_an_org_note_is_indexed_and_cited_at_its_line(notecite_engines: EngineFactory) -> None:
    engine = notecite_engines(vaults={"me": {"boiler.org": BOILER, "other.md": "# Other\nx\n"}})
    response = engine.ask(
        AskRequest(question="What pressure was the boiler set to after the annual service?")
    )
    assert "1.5 bar" in response.answer
    [reference] = response.references
    assert (reference.rel_path, reference.quote_line) == ("boiler.org", 13)
    tagged = engine.search("fuse the engineer replaced", filters=["tags=maintenance"])
    assert {r.rel_path for r in tagged} == {"boiler.org"}
