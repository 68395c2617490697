"""The notes a question names by an alias, looked up in a real SQLite store."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.generate.base import Owners
from notecite.retrieve.alias_lookup import AliasLookup
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.scope_notes import ScopeNotes
from notecite.schemas.ask import DebugInfo
from notecite.testing import EngineFactory

PEOPLE = {
    "people/ruben.md": (
        "---\naliases: [my manager]\n---\n# Ruben Castellanos\n\n"
        "My manager. VP Engineering. 1:1 every other Thursday.\n"
    ),
    "people/tomasz.md": "# Tomasz Brenner\n\nBackend engineer. Birthday **November 3**.\n",
    "projects/pg16.md": "---\naliases: [PG16]\n---\n# Postgres 16 upgrade\n\nMove to 16.\n",
    "meetings/pg16 kickoff.md": "# PG16 kickoff\n\nAttendees: me, Dana\n",
}
RUBEN = ("me", "people/ruben.md")


@pytest.fixture
def engine(notecite_engines: EngineFactory) -> Engine:
    return notecite_engines(vaults={"me": PEOPLE})


def first_chunks(engine: Engine) -> dict[str, Candidate]:
    """Each note's path -> its first chunk, as a candidate no search scored."""
    notes = ScopeNotes(engine.store, engine.vaults(), ())
    return {c.chunk.rel_path: c for c in notes.recent(notes.scopes(()), 10)}


def test_a_note_said_as_an_owner_is_read_first_and_owns_the_answer(engine: Engine) -> None:
    vaults = engine.vaults()
    notes = ScopeNotes(engine.store, vaults, ())
    tomasz = first_chunks(engine)["people/tomasz.md"]
    debug = DebugInfo()

    named = AliasLookup(engine.store, vaults, notes).named_first(
        "When is my manager's birthday?", notes.scopes(()), [], [tomasz], 3, debug
    )

    assert [c.chunk.rel_path for c in named.kept] == ["people/ruben.md", "people/tomasz.md"]
    assert named.notes == {RUBEN}
    assert named.owners == Owners(frozenset({RUBEN}))
    assert any("only that note's lines support" in n for n in debug.notes)
    assert any("by its alias ('my manager')" in n for n in debug.notes)


def test_a_question_that_says_no_alias_keeps_what_was_kept(engine: Engine) -> None:
    vaults = engine.vaults()
    notes = ScopeNotes(engine.store, vaults, ())
    kept = [first_chunks(engine)["people/tomasz.md"]]

    named = AliasLookup(engine.store, vaults, notes).named_first(
        "When is Tomasz's birthday?", notes.scopes(()), [], kept, 3, DebugInfo()
    )

    assert (named.kept, named.notes, named.owners) == (kept, frozenset(), None)


def test_a_question_that_asks_who_reads_the_alias_with_the_note_title(engine: Engine) -> None:
    vaults = engine.vaults()
    lookup = AliasLookup(engine.store, vaults, ScopeNotes(engine.store, vaults, ()))
    kept = [first_chunks(engine)["people/ruben.md"]]

    asked = lookup.named_notes("Who is my manager?", kept, DebugInfo())
    told = lookup.named_notes("What does my manager run?", kept, DebugInfo())

    assert asked == {"my manager": "Ruben Castellanos"}
    assert told == {}


def test_a_best_ranked_note_whose_own_name_holds_the_alias_stays_first(engine: Engine) -> None:
    vaults = engine.vaults()
    notes = ScopeNotes(engine.store, vaults, ())
    lookup = AliasLookup(engine.store, vaults, notes)
    chunks = first_chunks(engine)

    kickoff = lookup.named_first(
        "Who was at the PG16 kickoff?",
        notes.scopes(()),
        [],
        [chunks["meetings/pg16 kickoff.md"]],
        3,
        DebugInfo(),
    )
    owner = lookup.named_first(
        "Who owns PG16?", notes.scopes(()), [], [chunks["people/tomasz.md"]], 3, DebugInfo()
    )

    assert [c.chunk.rel_path for c in kickoff.kept] == ["meetings/pg16 kickoff.md"]
    assert owner.kept[0].chunk.rel_path == "projects/pg16.md"
