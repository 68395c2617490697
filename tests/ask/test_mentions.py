"""A question that asks which notes mention something is answered from the notes whose text
holds it: newest first, each cited at its first line that does, with no model call (real
SQLite, the hash embedder); one that asks only for the notes lists the vaults whole."""

from __future__ import annotations

import glob
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from notecite import Engine
from notecite.generate.listing import mentions_text
from notecite.retrieve.due_window import asked_due_window
from notecite.retrieve.listing import asks_for_every_note
from notecite.retrieve.mentioning import around_mention, asked_mention, first_mention
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import CliRun, EngineFactory, ScriptedLLM, write_files
from tests.ask.notes import dated_note

NOTES = {
    "daily/2026-03-19.md": dated_note(
        "daily",
        "2026-03-19",
        "Thursday 19 March",
        "Ran the rollback drill.\n\nLunch with kasia; she is back from Kraków.",
    ),
    "daily/2026-01-22.md": dated_note(
        "daily", "2026-01-22", "Thursday 22 January", "The BOILER service is booked."
    ),
    "meetings/offsite.md": dated_note(
        "meeting",
        "2026-02-01",
        "Team offsite",
        "| who | role |\n| --- | --- |\n| Kasia | facilitator |\n\nGopherCon talk ideas.",
    ),
    "travel/lisbon.md": dated_note(
        "travel", "2026-04-01", "Lisbon trip", "Stayed near the Café Kasiak in Alfama."
    ),
    "home/heating.md": dated_note(
        "home", "2025-11-02", "Heating", "Both boilers were serviced by José in November."
    ),
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


def test_the_notes_mentioning_a_name_are_listed_each_cited_at_its_line(
    engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(AskRequest(question="Which notes mention Kasia?", debug=True))

    assert not response.abstained
    assert response.answer.splitlines() == [
        '2 notes mention "Kasia":',
        "- Thursday 19 March: Lunch with kasia; she is back from Kraków. [N1]",
        "- Team offsite: | Kasia | facilitator | [N2]",
    ]
    refs = {r.cid or "": r for r in response.references}
    assert sorted(refs) == ["N1", "N2"]
    for cid, path, written in (
        ("N1", "daily/2026-03-19.md", "Lunch with kasia"),
        ("N2", "meetings/offsite.md", "| Kasia |"),
    ):
        assert refs[cid].rel_path == path
        assert line_of(path, refs[cid].quote_line).startswith(written), cid
    assert llm.answer_calls == []  # listed, not written
    assert response.debug is not None
    assert response.debug.strategy == "mentions"


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Where do I mention GopherCon?", '1 note mentions "GopherCon":'),
        ("Where did I write about the boiler?", '2 notes mention "boiler":'),
        ("Which notes talk about the boiler?", '2 notes mention "boiler":'),
        ("Find notes mentioning jose", '1 note mentions "jose":'),
        ("Show me notes that mention 'kraków'", '1 note mentions "kraków":'),
    ],
)
def test_each_way_of_asking(engine: Engine, question: str, first: str) -> None:
    response = engine.ask(AskRequest(question=question))
    assert response.answer.splitlines()[0] == first


def test_the_notes_of_a_folder_or_a_tag(engine: Engine) -> None:
    folder = AskRequest(question="Which notes mention the boiler?", folders=["me/home"])
    assert engine.ask(folder).answer.splitlines() == [
        '1 note in me/home mentions "boiler":',
        "- Heating: Both boilers were serviced by José in November. [N1]",
    ]
    tagged = engine.ask(AskRequest(question="Which notes tagged #daily mention the boiler?"))
    assert tagged.answer.splitlines()[0] == '1 note tagged #daily mentions "boiler":'


def test_a_thing_no_note_mentions_is_searched(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="Which notes mention Kasiako?", debug=True))
    assert response.debug is not None
    assert response.debug.strategy != "mentions"
    assert response.answer.endswith('don\'t mention "Kasiako".')  # the search says so


def test_chat_lists_the_mentioning_notes_with_citations(engine: Engine, llm: ScriptedLLM) -> None:
    pieces: list[str] = []
    reply = engine.chat(ChatRequest(message="Which notes mention Kasia?"), on_token=pieces.append)
    assert reply.answer.startswith('2 notes mention "Kasia":')
    assert "".join(pieces) == reply.answer
    assert [c.cid for c in reply.citations] == ["N1", "N2"]
    first = reply.citations[0]
    assert line_of(first.path, first.quote_line).startswith("Lunch with kasia")
    assert llm.answer_calls == []


def test_the_cli_cites_each_note_at_its_line(notecite_cli: CliRun, tmp_path: Path) -> None:
    notecite_cli("vault", "add", "me", str(write_files(tmp_path / "me", NOTES)))
    notecite_cli("index")
    result = notecite_cli("ask", "Where do I mention GopherCon?", "--llm", "extractive")
    lines = result.stdout.splitlines()
    assert '1 note mentions "GopherCon":' in lines
    assert any(line.startswith("[N1] me/meetings/offsite.md:11 ") for line in lines), lines


def test_every_note_is_listed_when_asked_for_with_no_scope(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="How many notes do I have?", debug=True))
    lines = response.answer.splitlines()
    assert lines[0] == "5 notes in me:"
    assert lines[1].startswith("- Lisbon trip: ")
    assert len(response.references) == 5
    assert response.debug is not None
    assert response.debug.strategy == "listing"


def test_chat_lists_every_note_when_asked_for_them(engine: Engine, llm: ScriptedLLM) -> None:
    reply = engine.chat(ChatRequest(message="What notes do I have?"))
    assert reply.answer.splitlines()[0] == "5 notes in me:"
    assert len(reply.citations) == 5
    assert llm.answer_calls == []


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("Which notes mention Kasia?", "Kasia"),
        ("What notes mention the boiler?", "boiler"),
        ("Where do I mention GopherCon?", "GopherCon"),
        ("Where did I write about the boiler?", "boiler"),
        ("Which notes talk about the boiler?", "boiler"),
        ("Find notes mentioning Lisbon", "Lisbon"),
        ("Show me notes that mention 'pg16-main'", "pg16-main"),
        ("In which notes do I mention the Q3 budget review?", "Q3 budget review"),
        ("Which notes are about Lisbon in my notes?", "Lisbon"),
        ("What notes discuss “Atlas”?", "Atlas"),
    ],
)
def test_questions_that_ask_which_notes_mention(question: str, thing: str) -> None:
    assert asked_mention(question) == thing


@pytest.mark.parametrize(
    "question",
    [
        "What did Kasia say about the hotel?",
        "How do I mention someone in a note?",
        "What is a mention?",
        "Which note says when the boiler was serviced?",
        "Which notes mention when the boiler was serviced?",
        "Where did I write the boiler's serial number?",
        "Which notes link to Kasia?",
        "What notes should I take in a meeting?",
    ],
)
def test_questions_that_stay_searches(question: str) -> None:
    assert asked_mention(question) is None


def test_a_thing_is_held_as_whole_words_in_any_case_and_accents() -> None:
    assert first_mention("intro\nthe Café Kasiak\nmet KASIA's mum", "Kasia") == 2
    assert first_mention("José and Łódź", "jose") == 0
    assert first_mention("two boilers", "boiler") == 0
    assert first_mention("on pg16_main now", "pg16-main") == 0
    assert first_mention("Kasiak", "Kasia") is None
    # a line of text before a heading, a heading before a property shown above the chunk
    assert first_mention("aliases: boiler\n# Boiler\nThe boiler is old", "boiler", 1) == 2
    assert first_mention("aliases: boiler\n# Boiler", "boiler", 1) == 1
    assert first_mention("aliases: boiler\nnothing", "boiler", 1) == 0


def test_a_long_line_is_shown_from_a_few_words_before_its_mention() -> None:
    line = "This is the running log of the house, " * 3 + "heating in boiler-service."
    shown = around_mention(line, "boiler", 100)
    assert shown.startswith("\u2026 ")
    assert shown.endswith("heating in boiler-service.")
    assert line.endswith(shown.removeprefix("\u2026 "))
    assert around_mention("The boiler is old", "boiler", 100) == "The boiler is old"


@pytest.mark.parametrize(
    ("question", "every"),
    [
        ("How many notes do I have?", True),
        ("What notes do I have?", True),
        ("List all my notes", True),
        ("Show me everything in my notes", True),
        ("How many notes are in my vault?", True),
        ("What notes should I take in a meeting?", False),
        ("How many notes does Dendron support?", False),
        ("Summarize my notes", False),
        ("What do I have?", False),
        ("Tell me about my notes, please.", False),
    ],
)
def test_questions_that_ask_for_every_note(question: str, every: bool) -> None:
    assert asks_for_every_note(question) is every


def test_no_dev_question_takes_a_listing_path() -> None:
    root = Path(__file__).resolve().parents[2] / "bench" / "qa"
    questions = [
        json.loads(line)["question"]
        for path in sorted(glob.glob(str(root / "*.jsonl")))
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    assert len(questions) > 800
    assert [q for q in questions if asked_mention(q) is not None] == []
    assert [q for q in questions if asks_for_every_note(q)] == []
    now = datetime(2026, 12, 2, tzinfo=UTC)
    assert [q for q in questions if asked_due_window(q, now=now) is not None] == []


def test_more_notes_than_shown_are_counted() -> None:
    text = mentions_text([("Note", "- [ ] ring **Kasia**")] * 2, "Kasia", "", 7)
    assert text.splitlines() == [
        '7 notes mention "Kasia"; the 2 newest:',
        "- Note: ring Kasia [N1]",
        "- Note: ring Kasia [N2]",
    ]
