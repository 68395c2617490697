"""A request to summarize reads the best-ranked note whole, as its outline (real SQLite,
the hash embedder, a scripted model)."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import EngineFactory, ScriptedLLM
from tests.ask.notes import dated_note

APOLLO = (
    "---\ntags: [project]\nstatus: done\n---\n# Apollo project\n\n"
    "The Apollo project moves the billing cluster to the new region.\n\n"
    "## Status\nDone. Shipped on 3 May, two weeks late.\n\n"
    "## Lessons\n- Rehearse the cutover twice.\n"
)
NOTES = {
    "projects/apollo.md": APOLLO,
    "projects/zeus.md": "# Zeus\n\nZeus is the logging revamp; nothing to do with billing.\n",
}


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM("The Apollo project moves the billing cluster to the new region [N1].")


@pytest.fixture
def engine(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(
        vaults={"me": NOTES},
        llm=llm,
        ask={"auto_rag": "off", "k_min": 1, "k_default": 1, "k_max": 1},
    )


def _prompt(llm: ScriptedLLM) -> str:
    return "\n".join(m.content for m in llm.answer_calls[-1].messages)


def test_a_request_to_summarize_reads_the_whole_note(engine: Engine, llm: ScriptedLLM) -> None:
    asked = engine.ask(AskRequest(question="What does the Apollo project move?"))
    assert "Shipped on 3 May" not in _prompt(llm)  # one chunk, its own lines

    summary = engine.ask(AskRequest(question="Summarize the Apollo project"))
    prompt = _prompt(llm)
    assert "Shipped on 3 May" in prompt
    assert "Rehearse the cutover twice" in prompt
    assert not summary.abstained
    [reference] = summary.references
    assert reference.rel_path == "projects/apollo.md"
    lines = APOLLO.split("\n")
    assert (reference.line_start, reference.line_end) == (5, len(lines))
    assert reference.quote_line is not None
    assert lines[reference.quote_line - 1].startswith("The Apollo project moves")
    assert asked.references[0].line_end != len(lines)


def test_chat_reads_the_whole_note_for_a_summary(engine: Engine, llm: ScriptedLLM) -> None:
    reply = engine.chat(ChatRequest(message="Give me an overview of the Apollo project"))
    assert "Shipped on 3 May" in _prompt(llm)
    assert [c.path for c in reply.citations] == ["projects/apollo.md"]
    assert reply.citations[0].line_end == len(APOLLO.split("\n"))


def _sync(day: str, decision: str) -> str:
    return (
        f"---\ndate: 2026-{day}\n---\n# Platform sync 2026-{day}\n\n## Updates\n"
        f"- Loki shipping for 60% of services.\n\n## Decisions\n- {decision}\n\n"
        "## Action items\n- [ ] @dana PagerDuty schedule\n"
    )


SYNCS = {
    "meetings/2026-04-08 platform sync.md": _sync("04-08", "Cutover moves to 24 May."),
    "meetings/2026-05-06 platform sync.md": _sync("05-06", "Keep raw events 90 days."),
}


@pytest.fixture
def syncs(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(
        vaults={"me": SYNCS}, llm=llm, ask={"auto_rag": "off", "k_min": 1, "k_max": 1}
    )


def test_a_question_about_the_latest_of_a_series_as_a_whole_reads_it_whole(
    syncs: Engine, llm: ScriptedLLM
) -> None:
    response = syncs.ask(AskRequest(question="What did we decide at the last platform sync?"))
    prompt = _prompt(llm)
    assert "Keep raw events 90 days." in prompt
    assert "Loki shipping" in prompt
    assert "PagerDuty" in prompt
    assert "Cutover moves" not in prompt
    assert response.references[0].rel_path == "meetings/2026-05-06 platform sync.md"

    syncs.ask(AskRequest(question="What action items came out of the last platform sync?"))
    assert "Loki shipping" not in _prompt(llm)  # its own lines: the action items


DAYS = {
    "daily/2026-01-21.md": dated_note(
        "daily", "2026-01-21", "Wednesday 21 January", "Dentist at 9."
    ),
    "daily/2026-01-22.md": dated_note(
        "daily",
        "2026-01-22",
        "Thursday 22 January",
        "Boiler service today.\n\n## Evening\nIntervals: 6 x 800 m.",
    ),
    "daily/2026-01-23.md": dated_note("daily", "2026-01-23", "Friday 23 January", "Rest day."),
}


@pytest.fixture
def days(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(vaults={"me": DAYS}, llm=llm, ask={"auto_rag": "off"})


def test_what_happened_on_a_day_reads_that_days_note_whole(days: Engine, llm: ScriptedLLM) -> None:
    response = days.ask(AskRequest(question="What did I do on 22 January 2026?", debug=True))
    prompt = _prompt(llm)
    assert "Boiler service today." in prompt
    assert "Intervals: 6 x 800 m." in prompt
    assert "Dentist" not in prompt
    assert "Rest day" not in prompt
    assert [r.rel_path for r in response.references] == ["daily/2026-01-22.md"]
    assert response.debug is not None
    assert response.debug.strategy == "notes_of_a_time"


def test_a_day_no_note_is_dated_is_searched(days: Engine) -> None:
    response = days.ask(AskRequest(question="What did I do on 3 March 2026?", debug=True))
    assert response.debug is not None
    assert response.debug.strategy != "notes_of_a_time"


def test_a_page_whose_file_is_not_its_text_keeps_its_chunks(
    notecite_engines: EngineFactory, llm: ScriptedLLM
) -> None:
    page = (
        "<html><head><title>Apollo project</title></head><body><h1>Apollo project</h1>"
        "<p>The Apollo project moves the billing cluster.</p></body></html>"
    )
    engine = notecite_engines(vaults={"me": {"apollo.html": page}}, llm=llm)
    engine.ask(AskRequest(question="Summarize the Apollo project"))
    prompt = _prompt(llm)
    assert "The Apollo project moves the billing cluster." in prompt
    assert "<html>" not in prompt
    assert "<p>" not in prompt
