"""A question that asks which notes link to a note is answered from the links recorded at
index time: the linking notes, newest first, each cited at the line of its link, with no
model call (real SQLite, the hash embedder)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from notecite import Engine
from notecite.generate.listing import backlinks_text
from notecite.retrieve.backlinks import asked_target, target_names
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import CliRun, EngineFactory, ScriptedLLM, write_files
from tests.ask.notes import dated_note

NOTES = {
    "work/pg16-upgrade.md": dated_note(
        "project", "2026-02-10", "PG16 upgrade", "Cut over on Saturday; [[pg16-upgrade]] itself."
    ),
    "daily/2026-03-19.md": dated_note(
        "daily",
        "2026-03-19",
        "Thursday 19 March",
        "Rollback drill for [[pg16-upgrade|the upgrade]] went fine.\n\n"
        "Booked flights for [[Lisbon Trip]].",
    ),
    "daily/2026-01-22.md": (
        '---\ntags: [daily]\ndate: 2026-01-22\nrelated: "[[pg16-upgrade]]"\n---\n'
        "# Thursday 22 January\n\nBoiler service today.\n"
    ),
    "meetings/kickoff.md": dated_note(
        "meeting",
        "2026-02-01",
        "Upgrade kickoff",
        "Agenda first.\n\nSee [the plan](../work/pg16-upgrade.md) before Friday.\n\n"
        "```markdown\n[[pg16-upgrade]] is how to link it\n```",
    ),
    "travel/lisbon-trip.md": dated_note("travel", "2026-04-01", "Lisbon trip", "Alfama."),
    "recipes/dal.md": dated_note("recipe", "2025-11-02", "Red lentil dal", "Freezes well."),
}


def line_of(path: str, number: int | None) -> str:
    """Line ``number`` (1-based) of the test note at ``path``."""
    assert number is not None
    return NOTES[path].split("\n")[number - 1]


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM("The notes say so [N1].")


@pytest.fixture
def engine(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(vaults={"me": NOTES}, llm=llm, ask={"auto_rag": "off"})


def test_the_notes_linking_to_a_note_are_listed_each_cited_at_its_link(
    engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(AskRequest(question="Which notes link to the PG16 upgrade?", debug=True))

    assert not response.abstained
    assert response.answer.splitlines() == [
        "3 notes link to PG16 upgrade:",
        "- Thursday 19 March: Rollback drill for the upgrade went fine. [N1]",
        "- Upgrade kickoff: See the plan before Friday. [N2]",
        '- Thursday 22 January: related: "pg16-upgrade" [N3]',
    ]
    refs = {r.cid or "": r for r in response.references}
    assert sorted(refs) == ["N1", "N2", "N3"]
    for cid, path, written in (
        ("N1", "daily/2026-03-19.md", "Rollback drill for [[pg16-upgrade|the upgrade]]"),
        ("N2", "meetings/kickoff.md", "See [the plan](../work/pg16-upgrade.md)"),
        ("N3", "daily/2026-01-22.md", 'related: "[[pg16-upgrade]]"'),
    ):
        assert refs[cid].rel_path == path
        assert line_of(path, refs[cid].quote_line).startswith(written), cid
    assert llm.answer_calls == []  # listed, not written
    assert response.debug is not None
    assert response.debug.strategy == "backlinks"


@pytest.mark.parametrize(
    "question",
    [
        "What links to [[pg16-upgrade]]?",
        "backlinks of pg16-upgrade",
        "Which notes point to work/pg16-upgrade.md?",
        "Which notes reference my PG16 upgrade note?",
    ],
)
def test_the_note_is_named_by_wikilink_file_name_path_or_title(
    engine: Engine, question: str
) -> None:
    response = engine.ask(AskRequest(question=question))
    assert response.answer.splitlines()[0] == "3 notes link to PG16 upgrade:"


def test_a_link_by_the_notes_title_counts(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="Which notes point to my Lisbon trip note?"))
    assert response.answer.splitlines() == [
        "1 note links to Lisbon trip:",
        "- Thursday 19 March: Booked flights for Lisbon Trip. [N1]",
    ]
    (ref,) = response.references
    assert line_of(ref.rel_path, ref.quote_line) == "Booked flights for [[Lisbon Trip]]."


def test_a_note_nothing_links_to_is_said_so_with_the_note_as_reference(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="Which notes link to Red lentil dal?"))
    assert response.answer == "No note links to Red lentil dal [N1]."
    assert [r.rel_path for r in response.references] == ["recipes/dal.md"]
    assert not response.abstained


def test_the_linking_notes_of_a_folder(engine: Engine) -> None:
    response = engine.ask(
        AskRequest(question="Which notes link to the PG16 upgrade?", folders=["me/daily"])
    )
    assert response.answer.splitlines()[0] == "2 notes in me/daily link to PG16 upgrade:"


def test_a_note_no_note_is_named_so_is_searched(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="Which notes link to the Mars base?", debug=True))
    assert response.debug is not None
    assert response.debug.strategy != "backlinks"
    assert "link to" not in response.answer


def test_chat_lists_the_linking_notes_with_citations(engine: Engine, llm: ScriptedLLM) -> None:
    pieces: list[str] = []
    reply = engine.chat(
        ChatRequest(message="What links to [[pg16-upgrade]]?"), on_token=pieces.append
    )
    assert reply.answer.startswith("3 notes link to PG16 upgrade:")
    assert "".join(pieces) == reply.answer
    assert [c.cid for c in reply.citations] == ["N1", "N2", "N3"]
    first = reply.citations[0]
    assert first.path == "daily/2026-03-19.md"
    assert line_of(first.path, first.quote_line).startswith("Rollback drill")
    assert llm.answer_calls == []


def test_a_reindex_replaces_the_links_and_a_deleted_note_takes_them_along(
    engine: Engine,
) -> None:
    root = engine.vault("me").path
    (root / "daily/2026-03-19.md").write_text(NOTES["daily/2026-03-19.md"].replace("[[", ""))
    (root / "meetings/kickoff.md").unlink()
    engine.index()
    response = engine.ask(AskRequest(question="Which notes link to the PG16 upgrade?"))
    assert response.answer.splitlines() == [
        "1 note links to PG16 upgrade:",
        '- Thursday 22 January: related: "pg16-upgrade" [N1]',
    ]


def test_notes_indexed_before_links_were_recorded_are_read_again(engine: Engine) -> None:
    # an index of an older notecite: its notes' hashes carry PARSE_VERSION 4, no links
    with sqlite3.connect(engine.settings.db_path) as conn:
        conn.execute("UPDATE notes SET content_hash = 'p4:' || substr(content_hash, 4)")
        conn.execute("DELETE FROM note_links")
    before = engine.ask(AskRequest(question="Which notes link to the PG16 upgrade?"))
    assert before.answer.splitlines() == [
        "No note links to PG16 upgrade [N1].",
        "(6 notes were indexed before notecite recorded links; their links are known after "
        "the next `notecite index`.)",
    ]
    (report,) = engine.index()
    assert report.reparsed == 6
    after = engine.ask(AskRequest(question="Which notes link to the PG16 upgrade?"))
    assert after.answer.splitlines()[0] == "3 notes link to PG16 upgrade:"


@pytest.mark.parametrize(
    ("question", "target"),
    [
        ("Which notes link to the PG16 upgrade?", "the PG16 upgrade"),
        ("What links to [[pg16-upgrade]]?", "[[pg16-upgrade]]"),
        ("backlinks of pg16-upgrade", "pg16-upgrade"),
        ("Show me the backlinks to Weekly review", "Weekly review"),
        ("Which notes point to my Lisbon trip note?", "my Lisbon trip note"),
        ("What notes reference the budget?", "the budget"),
        ("Which pages are linking to Atlas?", "Atlas"),
        ("Which notes have links to the PG16 upgrade in my notes?", "the PG16 upgrade"),
        ("List the notes that link to Atlas.", "Atlas"),
        ("What refers to the kickoff?", "the kickoff"),
    ],
)
def test_questions_that_ask_for_backlinks(question: str, target: str) -> None:
    assert asked_target(question) == target


@pytest.mark.parametrize(
    "question",
    [
        "How do I link to a heading?",
        "What is a backlink?",
        "How do I see backlinks in VS Code?",
        "What are backlinks?",
        "Why are my links broken?",
        "What did I write about the PG16 upgrade?",
        "Which notes mention the PG16 upgrade?",
        "How do I reference a block in Obsidian?",
        "What is the link to the Zoom call?",
        "Which link did Dana send?",
    ],
)
def test_questions_that_stay_searches(question: str) -> None:
    assert asked_target(question) is None


def test_the_names_a_question_may_mean_a_note_by() -> None:
    assert target_names("[[Projects/PG16-Upgrade.md#Rollback|the upgrade]]") == (
        "projects/pg16-upgrade",
    )
    assert target_names("my Lisbon trip note") == (
        "my lisbon trip note",
        "lisbon trip",
        "lisbon trip note",
        "my-lisbon-trip-note",
        "my_lisbon_trip_note",
        "lisbon-trip",
        "lisbon_trip",
        "lisbon-trip-note",
        "lisbon_trip_note",
    )


def test_more_linking_notes_than_shown_are_counted() -> None:
    text = backlinks_text([("Note", "See [[x]]", 2)] * 2, "X", "", 7, 0)
    assert text.splitlines() == [
        "7 notes link to X; the 2 newest:",
        "- Note (2 links): See x [N1]",
        "- Note (2 links): See x [N2]",
    ]


def test_the_cli_cites_each_linking_note_at_its_line(notecite_cli: CliRun, tmp_path: Path) -> None:
    notecite_cli("vault", "add", "me", str(write_files(tmp_path / "me", NOTES)))
    notecite_cli("index")
    result = notecite_cli("ask", "backlinks of pg16-upgrade", "--llm", "extractive")
    lines = result.stdout.splitlines()
    assert "3 notes link to PG16 upgrade:" in lines
    assert any(line.startswith("[N1] me/daily/2026-03-19.md:7 ") for line in lines), lines
