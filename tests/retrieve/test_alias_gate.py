"""A question that names a note by an alias is left to the model's reading check, over that
note alone, when the answerability gate doubts it (the bundled MiniLM, real SQLite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import Engine, load_settings
from notecite.schemas.ask import AskRequest
from notecite.testing import ScriptedLLM, write_files

NOTES = {
    "people/ruben.md": (
        "---\naliases: [Ruben, my manager]\ntimezone: America/New_York\n---\n"
        "# Ruben Castellanos\n\nMy manager. VP Engineering.\n"
    ),
    "people/tomasz.md": (
        "---\ntimezone: Europe/Warsaw\n---\n# Tomasz Brenner\n\nBackend engineer in Krakow.\n"
    ),
    "meetings/sync.md": "# Platform sync\n\nWe moved the on-call handover to Tuesdays.\n",
}
DOUBTING = {
    "auto_rag": "off",
    "answerability_threshold": 1.0,  # every context is doubted
    "answerability_read_threshold": 1.0,  # and none is left to the model on the gate's own
}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("alias-gate")
    with Engine(load_settings(home=root / "home", llm="extractive", ask=DOUBTING)) as engine:
        engine.add_vault("me", write_files(root / "me", NOTES))
        engine.index()
    return root / "home"


@pytest.mark.slow
def test_a_doubted_question_naming_a_note_by_alias_is_read_over_that_note(home: Path) -> None:
    llm = ScriptedLLM("America/New_York [N1].", yes=0.9)
    settings = load_settings(home=home, llm="extractive", ask=DOUBTING)
    with Engine(settings, llm=llm) as engine:
        named = engine.ask(AskRequest(question="What timezone is my manager in?", debug=True))
        unnamed = engine.ask(AskRequest(question="What timezone is the VP in?", debug=True))

    assert not named.abstained  # kept although under the thresholds: the question names it
    assert {r.rel_path for r in named.references} == {"people/ruben.md"}
    assert named.debug is not None
    assert {c.rel_path for c in named.debug.retrieved_chunks if c.kept} == {"people/ruben.md"}
    assert any("names a note by its alias" in n for n in named.debug.notes)
    # the same doubt with no alias said: refused before the model is asked anything
    assert (unnamed.abstained, unnamed.abstain_reason) == (True, "no_relevant_context")
    assert len(llm.yes_calls) == 1
