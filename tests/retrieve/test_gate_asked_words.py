"""The answerability gate reads the asker's words, not those the search adds: a weekday's
short form searched beside "Wednesday" ("(wed)", which no note writes) made the gate refuse
a question its notes answer (the bundled MiniLM, real SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from notecite import Engine, load_settings
from notecite.retrieve import stage
from notecite.retrieve.answerability import Features, features
from notecite.schemas.ask import AskRequest
from notecite.testing import write_files

NOTES = {
    "Conference/ERBC 2026 Ghent.md": (
        "# ERBC 2026 Ghent\n\n## My contributions\n\n### Talk\n"
        "- Slot: **Wednesday 10 June, 11:40**, 12 minutes plus 3 for questions.\n"
        "- Session: Freshwater birds, room B.\n\n### Poster\n- A0 portrait, board 41.\n"
    ),
    "Field/Ringing protocol.md": "# Ringing protocol\n\nWeigh chicks on the 300 g Pesola.\n",
    "Life/Flat.md": "# Flat\n\nBins go out on Wednesday night. Rent is due on the 1st.\n",
    "Recipes/Dal.md": "# Dal\n\nRed lentils, 20 min, then the tarka.\n",
}


@pytest.mark.slow
def test_a_weekday_searched_with_its_short_form_is_not_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []

    def reading(question: str, *args: Any) -> Features:
        read.append(question)
        return features(question, *args)

    monkeypatch.setattr(stage, "features", reading)
    settings = load_settings(home=tmp_path / "home", llm="extractive", ask={"auto_rag": "off"})
    with Engine(settings) as engine:
        engine.add_vault("me", write_files(tmp_path / "me", NOTES))
        engine.index()
        response = engine.ask(
            AskRequest(
                question="What time on the Wednesday am I giving my talk at ERBC?", debug=True
            )
        )
    assert response.debug is not None
    assert any("searched with it" in note for note in response.debug.notes)
    assert not response.abstained, response.debug.answerability
    assert "11:40" in response.answer
    assert read == ["What time on the Wednesday am I giving my talk at ERBC?"]  # no "(wed)"
