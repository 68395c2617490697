"""A note the question names by an alias is said with its title in the question the model
reads (units, and an ask on real SQLite whose prompt the scripted model records)."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.retrieve.aliases import asks_who, carries_alias, named_notes, notes_named, with_named
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.store.base import StoredChunk
from notecite.testing import EngineFactory, ScriptedLLM

RUBEN = ("Ruben Castellanos", ["ruben", "my manager"])
LOAF = ("Sourdough country loaf", ["country loaf", "weekend sourdough"])


def test_an_alias_the_question_says_is_read_with_the_title() -> None:
    named = named_notes("Who is my manager?", [RUBEN])
    assert named == {"my manager": "Ruben Castellanos"}
    assert with_named("Who is my manager?", named) == "Who is my manager (Ruben Castellanos)?"


def test_the_alias_keeps_the_case_the_question_writes() -> None:
    question = "Who's the Weekend Sourdough for?"
    named = named_notes(question, [LOAF])
    assert with_named(question, named) == (
        "Who's the Weekend Sourdough (Sourdough country loaf) for?"
    )


def test_only_a_question_that_asks_who_is_read_with_the_title() -> None:
    assert named_notes("Baking the weekend sourdough: what temperature?", [LOAF]) == {}
    assert named_notes("What does my manager want each month?", [RUBEN]) == {}


@pytest.mark.parametrize(
    "question",
    [
        "Who is Ruben?",  # the title holds the alias's words
        "Who is Ruben Castellanos's manager?",  # the question names the note by its title
        "Who is my managerial contact?",  # not the alias as a whole word
    ],
)
def test_no_title_is_added(question: str) -> None:
    assert named_notes(question, [RUBEN]) == {}


def test_an_alias_two_notes_share_goes_to_the_better_ranked() -> None:
    other = ("Sandwich loaf", ["weekend sourdough"])
    assert named_notes("Who is the weekend sourdough?", [other, LOAF]) == {
        "weekend sourdough": "Sandwich loaf"
    }


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("Who is my manager?", True),
        ("Who's Tomek?", True),
        ("who was the owner of PG16", True),
        ("Who was at the PG16 kickoff?", False),  # who attended
        ("Who is in the platform team?", False),
        ("What is my manager's timezone?", False),
    ],
)
def test_asks_who(question: str, asks: bool) -> None:
    assert asks_who(question) is asks


def test_a_note_whose_own_name_holds_the_alias_carries_it() -> None:
    kickoff = "work/meetings/2026-03-12 pg16 upgrade kickoff.md"
    assert carries_alias(["PG16"], kickoff, "PG16 upgrade kickoff")
    assert not carries_alias(["my manager"], kickoff, "PG16 upgrade kickoff")
    assert not carries_alias(["Loki migration"], "work/2026-04-08 platform sync.md", "")


def test_a_short_alias_is_no_name() -> None:
    assert named_notes("Who is ok?", [("Oklahoma trip", ["ok"])]) == {}


NOTES = {
    "people/ruben.md": (
        "---\naliases: [Ruben, my manager]\ntags: [person]\n---\n# Ruben Castellanos\n\n"
        "My manager. VP Engineering. 1:1 every other Thursday.\n"
    ),
    "people/dana.md": "---\naliases: [Dana]\n---\n# Dana Whitlock\n\nSRE lead.\n",
}


def _question(llm: ScriptedLLM) -> str:
    return llm.answer_calls[-1].messages[-1].content.rsplit("Question:", 1)[-1].strip()


def test_ask_and_chat_write_the_answer_to_the_question_with_the_title(
    notecite_engines: EngineFactory,
) -> None:
    llm = ScriptedLLM("Your manager is Ruben Castellanos [N1].")
    engine: Engine = notecite_engines(
        vaults={"me": NOTES},
        llm=llm,
        ask={"auto_rag": "off", "vector_threshold": 0.0, "final_threshold": 0.0},
    )

    response = engine.ask(AskRequest(question="Who is my manager?", debug=True))

    assert _question(llm) == "Who is my manager (Ruben Castellanos)?"
    assert response.debug is not None
    assert any("'my manager' as 'Ruben Castellanos'" in n for n in response.debug.notes)
    engine.chat(ChatRequest(message="Who is my manager?"))
    assert "Who is my manager (Ruben Castellanos)?" in _question(llm)


NAMED_VAULT = {
    "recipes/loaf.md": (
        "---\naliases: [weekend sourdough]\n---\n# Country loaf\n\nBake at 250 C for 20 min.\n"
    ),
    "daily/2026-01-17.md": (
        "# Saturday\n\nThe weekend was sourdough heavy: a weekend of sourdough, again sourdough.\n"
    ),
}


def test_a_note_the_question_names_by_an_alias_is_read_first(
    notecite_engines: EngineFactory,
) -> None:
    llm = ScriptedLLM("At 250 C [N1].")
    engine: Engine = notecite_engines(
        vaults={"me": NAMED_VAULT},
        llm=llm,
        ask={"auto_rag": "off", "vector_threshold": 0.0, "final_threshold": 0.0},
    )
    question = "How hot for the weekend sourdough?"

    response = engine.ask(AskRequest(question=question, debug=True))

    assert response.debug is not None
    candidates = [c.rel_path for c in response.debug.retrieved_chunks]
    assert candidates[0] == "daily/2026-01-17.md"  # ranked first by its words
    assert response.references[0].rel_path == "recipes/loaf.md"  # read first: N1
    assert any("by its alias ('weekend sourdough')" in n for n in response.debug.notes)

    # a folder given with the request still bounds the search: the named note is not in it
    scoped = engine.ask(AskRequest(question=question, folders=["daily"], debug=True))
    assert {r.rel_path for r in scoped.references} <= {"daily/2026-01-17.md"}
    assert scoped.debug is not None
    assert not any("by its alias" in n for n in scoped.debug.notes)


PEOPLE = {
    "people/ruben.md": (
        "---\naliases: [my manager]\n---\n# Ruben Castellanos\n\n"
        "My manager. VP Engineering. 1:1 every other Thursday.\n"
    ),
    "people/tomasz.md": "# Tomasz Brenner\n\nBackend engineer. Birthday **November 3**.\n",
}


@pytest.mark.parametrize(
    ("question", "written", "answered"),
    [
        # no note says the manager's birthday: another person's line does not answer it
        ("When is my manager's birthday?", "The birthday is November 3.", False),
        ("When is my manager's birthday?", "November 3 [N2].", False),
        # what the named note says does
        ("What is my manager's role?", "The role is VP Engineering.", True),
    ],
)
def test_a_question_about_what_an_aliased_note_holds_is_answered_from_that_note(
    notecite_engines: EngineFactory, question: str, written: str, answered: bool
) -> None:
    engine: Engine = notecite_engines(
        vaults={"me": PEOPLE},
        llm=ScriptedLLM(written),
        ask={
            "auto_rag": "off",
            "vector_threshold": 0.0,
            "final_threshold": 0.0,
            "rewrite_from_quotes": False,
        },
    )

    response = engine.ask(AskRequest(question=question, debug=True))

    assert response.abstained is not answered
    assert response.debug is not None
    assert any("only that note's lines support" in n for n in response.debug.notes)
    if answered:
        assert [r.rel_path for r in response.references] == ["people/ruben.md"]


def test_a_possessive_name_that_is_no_alias_changes_nothing(
    notecite_engines: EngineFactory,
) -> None:
    engine: Engine = notecite_engines(
        vaults={"me": PEOPLE},
        llm=ScriptedLLM("Tomasz's birthday is November 3."),
        ask={"auto_rag": "off", "vector_threshold": 0.0, "final_threshold": 0.0},
    )
    response = engine.ask(AskRequest(question="When is Tomasz's birthday?", debug=True))
    assert not response.abstained
    assert [r.rel_path for r in response.references] == ["people/tomasz.md"]


def test_notes_named_by_aliases_that_add_a_name_and_those_said_as_owners() -> None:
    def chunk(rowid: int, path: str, title: str) -> StoredChunk:
        return StoredChunk(rowid, f"c{rowid}", "me", path, "", title, "", 0, "", 1, 1, None, None)

    chunks = {1: chunk(1, "ruben.md", "Ruben Castellanos"), 2: chunk(2, "aiko.md", "Aiko Matsuda")}
    aliases = {1: {"aliases": ["ruben", "my manager"]}, 2: {"aliases": ["aiko"]}}
    question = "Did my manager's note on Aiko's design land?"

    naming = notes_named(question, ["my manager", "aiko"], chunks, aliases)

    assert naming.notes == {("me", "ruben.md")}  # "aiko" only shortens Aiko's title
    assert naming.owners == {("me", "ruben.md")}
    assert naming.owning == ("my manager", "aiko")
