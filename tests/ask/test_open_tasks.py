"""A question that asks only for what is still to do is answered by the open tasks of the
notes (unchecked items and TODO lines), each cited at its line, with no model call (real
SQLite, the hash embedder)."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.generate.listing import tasks_text
from notecite.retrieve.tasks import TASKS_LISTED_AT_MOST, asks_for_open_tasks, open_tasks
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import EngineFactory, ScriptedLLM
from tests.ask.notes import dated_note

NOTES = {
    "daily/2026-01-22.md": dated_note(
        "daily, house",
        "2026-01-22",
        "Thursday 22 January",
        "Boiler service today.\n\n- [x] Work from home\n- [ ] Move the spare key back under "
        "the blue pot\n\nIntervals in the evening.",
    ),
    "daily/2026-03-19.md": dated_note(
        "daily, garden",
        "2026-03-19",
        "Thursday 19 March",
        "- [ ] Buy seed potatoes before Easter, see [[garden-calendar|the calendar]]\n"
        "- [x] Mow the lawn",
    ),
    "work/pg16.md": dated_note(
        "project",
        "2026-02-10",
        "Postgres 16 upgrade",
        "## Next\nTODO: rename the backup stanza\n\n## Example\n```markdown\n- [ ] not a task\n```",
    ),
    "recipes/dal.md": dated_note(
        "recipe", "2025-11-02", "Red lentil dal", "Freezes well for a month."
    ),
}


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM("The notes say so [N1].")


@pytest.fixture
def engine(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(vaults={"me": NOTES}, llm=llm, ask={"auto_rag": "off"})


def test_open_todos_are_listed_newest_notes_first_each_cited_at_its_line(
    engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(AskRequest(question="What are my open todos?", debug=True))

    assert not response.abstained
    assert response.answer.splitlines() == [
        "3 open tasks in your notes:",
        "- Buy seed potatoes before Easter, see the calendar (Thursday 19 March) [N1]",
        "- rename the backup stanza (Postgres 16 upgrade) [N2]",
        "- Move the spare key back under the blue pot (Thursday 22 January) [N3]",
    ]
    refs = {r.cid: r for r in response.references}
    assert sorted(refs) == ["N1", "N2", "N3"]
    for cid, path, written in (
        ("N1", "daily/2026-03-19.md", "- [ ] Buy seed potatoes"),
        ("N2", "work/pg16.md", "TODO: rename the backup stanza"),
        ("N3", "daily/2026-01-22.md", "- [ ] Move the spare key"),
    ):
        ref = refs[cid]
        assert ref.rel_path == path
        line = NOTES[path].split("\n")[(ref.quote_line or 0) - 1]
        assert line.startswith(written), (cid, ref.quote_line, line)
    assert llm.answer_calls == []  # listed, not written
    assert response.debug is not None
    assert response.debug.strategy == "open_tasks"


def test_open_tasks_of_a_tag_or_a_folder(engine: Engine) -> None:
    tagged = engine.ask(AskRequest(question="What's still on my to-do list #house?"))
    assert tagged.answer.splitlines() == [
        "1 open task tagged #house:",
        "- Move the spare key back under the blue pot (Thursday 22 January) [N1]",
    ]
    work = engine.ask(AskRequest(question="Which tasks are still open?", folders=["me/work"]))
    assert work.answer.splitlines()[0] == "1 open task in me/work:"


def test_chat_lists_open_tasks_with_citations(engine: Engine, llm: ScriptedLLM) -> None:
    pieces: list[str] = []
    reply = engine.chat(ChatRequest(message="List my open tasks"), on_token=pieces.append)
    assert reply.answer.startswith("3 open tasks in your notes:")
    assert "".join(pieces) == reply.answer
    assert [c.cid for c in reply.citations] == ["N1", "N2", "N3"]
    first = reply.citations[0]
    assert first.path == "daily/2026-03-19.md"
    assert first.quote_line is not None
    assert NOTES[first.path].split("\n")[first.quote_line - 1].startswith("- [ ] Buy seed")
    assert not reply.meta.abstained
    assert llm.answer_calls == []


def test_the_open_tasks_of_a_person(notecite_engines: EngineFactory, llm: ScriptedLLM) -> None:
    meeting = dated_note(
        "meeting",
        "2026-05-06",
        "Platform sync",
        "## Action items\n- [ ] @leila send the clause\n- [ ] @dana Loki for 3 services\n"
        "- [x] @dana book the room",
    )
    engine = notecite_engines(vaults={"me": {"sync.md": meeting}}, llm=llm)

    response = engine.ask(AskRequest(question="What are Dana's open action items?"))

    assert response.answer.splitlines() == [
        "1 open task for Dana:",
        "- @dana Loki for 3 services (Platform sync) [N1]",
    ]
    assert [r.quote for r in response.references] == ["- [ ] @dana Loki for 3 services"]
    nobody = engine.ask(AskRequest(question="What are Ruben's open todos?", debug=True))
    assert nobody.debug is not None
    assert nobody.debug.strategy != "open_tasks"  # none of them names Ruben: searched


def test_a_scope_with_no_open_task_is_searched(engine: Engine, llm: ScriptedLLM) -> None:
    response = engine.ask(AskRequest(question="What are my open todos?", folders=["me/recipes"]))
    assert response.debug is None or response.debug.strategy != "open_tasks"
    assert "open task" not in response.answer


def test_more_tasks_than_shown_are_counted() -> None:
    text = tasks_text([("a", "Note")] * 2, "", 7)
    assert text.splitlines()[0] == "7 open tasks in your notes; the first 2, newest notes first:"
    assert TASKS_LISTED_AT_MOST >= 10


@pytest.mark.parametrize(
    "question",
    [
        "What are my open todos?",
        "What's still on my to-do list?",
        "List my open tasks",
        "Which action items are still open?",
        "What tasks haven't I finished?",
        "What are my tasks?",
        "What TODOs do I have?",
        "todo",
        "What are Dana's open action items?",
        "Open todos for @tomasz",
    ],
)
def test_questions_that_ask_for_open_tasks(question: str) -> None:
    assert asks_for_open_tasks(question)


@pytest.mark.parametrize(
    "question",
    [
        "What is a task note?",
        "How do I complete a task?",
        "What status does the Complete Task command set?",
        "How do I add a todo to the boiler note?",
        "Which tasks are done?",
        "What are the open issues?",
        "What open todos mention the boiler?",
        "What is Dendron's task note?",
    ],
)
def test_questions_that_stay_searches(question: str) -> None:
    assert not asks_for_open_tasks(question)


def test_open_tasks_of_a_text() -> None:
    text = "\n".join(
        [
            "- [ ] one",
            "* [ ]  two ",
            "1. [ ] three",
            "- [x] done",
            "- [] not a box",
            "TODO: four",
            "a todo in a sentence",
            "```",
            "- [ ] code",
            "```",
            "  - [ ] five",
            "## TODO six",  # a heading marked TODO (org-mode's "* TODO six" reads so)
            "## DONE seven",
        ]
    )
    assert [(t.index, t.text) for t in open_tasks(text)] == [
        (0, "one"),
        (1, "two"),
        (2, "three"),
        (5, "four"),
        (10, "five"),
        (11, "six"),
    ]


def test_a_task_with_a_date_is_listed_with_it(notecite_engines: EngineFactory) -> None:
    notes = {
        "shed.md": "# Shed\n\n- [ ] Order the felt roof 📅 2026-03-20\n- [ ] Paint it\n",
        "boiler.org": (
            "#+title: Boiler\n* TODO Book the next service\n  DEADLINE: <2027-01-15 Fri>\n"
        ),
    }
    engine = notecite_engines(vaults={"me": notes})
    answer = engine.ask(AskRequest(question="What are my open tasks?")).answer
    assert "- Order the felt roof (due Fri 20 Mar 2026; Shed) [N" in answer
    assert "- Paint it (Shed) [N" in answer
    assert "- Book the next service (due Fri 15 Jan 2027; Boiler) [N" in answer
