"""A question that asks only for the open tasks due in a window ("What's due this week?",
"What's overdue?") is answered by the open tasks dated then, by date, each cited at its
line, with no search and no model call; with none, it says so (real SQLite, the hash
embedder, a clock fixed on Wednesday 2 December 2026)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite import Engine
from notecite.generate.listing import tasks_text
from notecite.retrieve.due_window import asked_due_window
from notecite.schemas.ask import AskRequest, AskResponse
from notecite.schemas.chat import ChatRequest
from notecite.testing import EngineFactory, ScriptedLLM
from tests.ask.notes import dated_note

NOW = datetime(2026, 12, 2, 15, 30, tzinfo=UTC)  # a Wednesday

NOTES = {
    "garden/shed.md": dated_note(
        "garden",
        "2026-11-20",
        "Garden shed",
        "Felt and timber from the yard.\n\n"
        "- [ ] Order the felt roof \U0001f4c5 2026-12-04\n"
        "- [ ] Paint the door [due:: 2026-12-02]\n"
        "- [ ] Oil the hinges (due:: 2026-11-30) \u23f3 2026-11-28\n"
        "- [ ] Buy screws due: 2026-12-10\n"
        "- [x] Clear the path \U0001f4c5 2026-12-01\n"
        "- [ ] Sweep it out",
    ),
    "house/boiler.md": dated_note(
        "house",
        "2026-11-28",
        "Boiler",
        "- [ ] Bleed the radiators \U0001f4c5 2026-12-04\n"
        "- [ ] Ring the plumber \U0001f4c5 2026-11-10",
    ),
    # a Logseq journal: its dates on the lines after its tasks
    "journals/2026_11_25.md": (
        "- TODO Ring the council\n  DEADLINE: <2026-12-03 Thu>\n"
        "- TODO Book the MOT\n  SCHEDULED: <2026-11-20 Fri>\n"
    ),
    "recipes/dal.md": dated_note(
        "recipe", "2025-11-02", "Red lentil dal", "Freezes well for a month. Due care with chilli."
    ),
}


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM("The notes say so [N1].")


@pytest.fixture
def engine(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(
        vaults={"me": NOTES}, llm=llm, clock=lambda: NOW, ask={"auto_rag": "off"}
    )


def cited_lines(response: AskResponse) -> list[tuple[str, str]]:
    """(path, the line of the note each reference is cited at), in citation order."""
    return [
        (ref.rel_path, NOTES[ref.rel_path].split("\n")[(ref.quote_line or 0) - 1])
        for ref in sorted(response.references, key=lambda r: int((r.cid or "N0")[1:]))
    ]


def test_the_tasks_due_this_week_by_date_each_cited_at_its_line(
    engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(AskRequest(question="What's due this week?", debug=True))

    assert not response.abstained
    assert response.answer.splitlines() == [
        "5 open tasks due this week (30 Nov - 6 Dec 2026):",
        "- Oil the hinges (due Mon 30 Nov 2026; Garden shed) [N1]",
        "- Paint the door (due Wed 2 Dec 2026; Garden shed) [N2]",
        "- Ring the council (due Thu 3 Dec 2026; 2026_11_25) [N3]",
        # due the same day: the newest note first
        "- Bleed the radiators (due Fri 4 Dec 2026; Boiler) [N4]",
        "- Order the felt roof (due Fri 4 Dec 2026; Garden shed) [N5]",
    ]
    assert cited_lines(response) == [
        ("garden/shed.md", "- [ ] Oil the hinges (due:: 2026-11-30) \u23f3 2026-11-28"),
        ("garden/shed.md", "- [ ] Paint the door [due:: 2026-12-02]"),
        ("journals/2026_11_25.md", "- TODO Ring the council"),
        ("house/boiler.md", "- [ ] Bleed the radiators \U0001f4c5 2026-12-04"),
        ("garden/shed.md", "- [ ] Order the felt roof \U0001f4c5 2026-12-04"),
    ]
    assert [r.quote for r in response.references][:1] == [
        "- [ ] Oil the hinges (due:: 2026-11-30) \u23f3 2026-11-28"
    ]
    assert llm.answer_calls == []  # listed, not written
    assert response.debug is not None
    assert response.debug.strategy == "due_tasks"


def test_overdue_tasks_leave_out_the_ones_only_scheduled(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What's overdue?"))

    assert response.answer.splitlines() == [
        "2 overdue open tasks:",
        "- Ring the plumber (due Tue 10 Nov 2026; Boiler) [N1]",
        "- Oil the hinges (due Mon 30 Nov 2026; Garden shed) [N2]",
    ]
    assert cited_lines(response)[0] == (
        "house/boiler.md",
        "- [ ] Ring the plumber \U0001f4c5 2026-11-10",
    )


def test_every_dated_task_of_a_tag(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What are my deadlines #house?"))
    assert response.answer.splitlines() == [
        "2 open tasks tagged #house with a date:",
        "- Ring the plumber (due Tue 10 Nov 2026; Boiler) [N1]",
        "- Bleed the radiators (due Fri 4 Dec 2026; Boiler) [N2]",
    ]


def test_none_due_in_the_window_names_the_nearest(engine: Engine, llm: ScriptedLLM) -> None:
    saturday = engine.ask(AskRequest(question="What do I have due on Saturday?", debug=True))
    assert saturday.answer.splitlines() == [
        "No open task is due on Sat 5 Dec 2026. The next one:",
        "- Buy screws (due Thu 10 Dec 2026; Garden shed) [N1]",
    ]
    assert cited_lines(saturday) == [("garden/shed.md", "- [ ] Buy screws due: 2026-12-10")]
    assert not saturday.abstained
    assert saturday.debug is not None
    assert saturday.debug.strategy == "due_tasks"  # not searched: no other note answers it

    january = engine.ask(AskRequest(question="Which tasks are due in January?"))
    assert january.answer.splitlines() == [
        "No open task is due in January 2027. The last one before then:",
        "- Buy screws (due Thu 10 Dec 2026; Garden shed) [N1]",
    ]
    assert llm.answer_calls == []


def test_a_scope_with_no_dated_task_says_so(
    notecite_engines: EngineFactory, engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(
        AskRequest(question="What's due this week?", folders=["me/recipes"], debug=True)
    )
    assert response.answer == "No open task in me/recipes has a due date."
    assert response.references == []
    assert not response.abstained
    assert response.debug is not None
    assert response.debug.strategy == "due_tasks"

    undated = notecite_engines(
        vaults={"me": {"todo.md": "# Todo\n\n- [ ] Sweep the shed\n"}}, llm=llm, clock=lambda: NOW
    )
    reply = undated.chat(ChatRequest(message="What are my deadlines?"))
    assert reply.answer == "No open task in your notes has a due date."
    assert reply.citations == []
    assert not reply.meta.abstained
    assert llm.answer_calls == []


def test_chat_lists_the_tasks_due_with_citations(engine: Engine, llm: ScriptedLLM) -> None:
    pieces: list[str] = []
    reply = engine.chat(
        ChatRequest(message="Which tasks are due tomorrow?"), on_token=pieces.append
    )

    assert reply.answer.splitlines() == [
        "1 open task due tomorrow (Thu 3 Dec 2026):",
        "- Ring the council (due Thu 3 Dec 2026; 2026_11_25) [N1]",
    ]
    assert "".join(pieces) == reply.answer
    (citation,) = reply.citations
    assert citation.path == "journals/2026_11_25.md"
    assert citation.quote_line is not None
    assert NOTES[citation.path].split("\n")[citation.quote_line - 1] == "- TODO Ring the council"
    assert not reply.meta.abstained
    assert llm.answer_calls == []


def test_the_dated_tasks_of_a_person(notecite_engines: EngineFactory, llm: ScriptedLLM) -> None:
    meeting = dated_note(
        "meeting",
        "2026-11-26",
        "Platform sync",
        "- [ ] @leila send the clause \U0001f4c5 2026-12-03\n"
        "- [ ] @dana Loki for 3 services \U0001f4c5 2026-12-04\n- [ ] @dana book the room",
    )
    engine = notecite_engines(vaults={"me": {"sync.md": meeting}}, llm=llm, clock=lambda: NOW)

    response = engine.ask(AskRequest(question="What's Dana's due this week?"))
    assert response.answer.splitlines() == [
        "1 open task for Dana due this week (30 Nov - 6 Dec 2026):",
        "- @dana Loki for 3 services (due Fri 4 Dec 2026; Platform sync) [N1]",
    ]
    # no task of Ruben's has a date: "Ruben" may be a project, and the question is searched
    nobody = engine.ask(AskRequest(question="What are Ruben's deadlines?", debug=True))
    assert nobody.debug is not None
    assert nobody.debug.strategy != "due_tasks"


def test_a_question_with_another_word_is_searched(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What's due for the garden shed?", debug=True))
    assert response.debug is not None
    assert response.debug.strategy != "due_tasks"
    todos = engine.ask(AskRequest(question="What are my open todos?", debug=True))
    assert todos.debug is not None
    assert todos.debug.strategy == "open_tasks"
    assert todos.answer.startswith("9 open tasks in your notes:")


def test_more_dated_tasks_than_shown_are_counted() -> None:
    window = asked_due_window("What's due this week?", now=NOW)
    assert window is not None
    text = tasks_text([("a", "due Fri 4 Dec 2026; Note")] * 2, "", 7, window)
    assert text.splitlines() == [
        "7 open tasks due this week (30 Nov - 6 Dec 2026); the first 2, soonest first:",
        "- a (due Fri 4 Dec 2026; Note) [N1]",
        "- a (due Fri 4 Dec 2026; Note) [N2]",
    ]
