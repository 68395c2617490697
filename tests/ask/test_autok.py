"""Automatic K: how many chunks reach the model, from the question's wording and scope."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.retrieve.autok import automatic_k
from notecite.schemas.ask import AskRequest

SHORT = "When is the Apollo launch?"
LONG = (
    "Could you remind me when exactly the Apollo launch is going to happen this year, and at "
    "which office, and also who approved it in the end?"
)


@pytest.mark.parametrize(
    ("question", "detail", "narrow", "expected"),
    [
        (SHORT, "normal", False, 5),
        (SHORT, "brief", False, 4),
        (SHORT, "detailed", False, 7),
        (SHORT, "normal", True, 4),
        (LONG, "normal", False, 6),
        ("When is the launch? Who approved it?", "normal", False, 6),
        ("Give me an overview of the Apollo project", "normal", False, 7),
        ("Compare the Apollo and Zephyr launches", "brief", False, 6),
        ("Summarize everything about Apollo", "detailed", False, 8),
        (LONG + " Summarize the history? Please?", "detailed", False, 8),
        (SHORT, "brief", True, 3),
    ],
)
def test_automatic_k(question: str, detail: str, narrow: bool, expected: int) -> None:
    assert automatic_k(question, detail, narrow_folders=narrow) == expected


@pytest.mark.parametrize(("legacy", "expected"), [(-4, 3), (0, 3), (3, 3), (6, 6), (8, 8), (50, 8)])
def test_a_legacy_k_wins_and_is_clamped_to_3_to_8(legacy: int, expected: int) -> None:
    assert automatic_k("Summarize everything", "detailed", legacy_k=legacy) == expected
    assert automatic_k(SHORT, "brief", narrow_folders=True, legacy_k=legacy) == expected


def test_the_bounds_come_from_the_settings() -> None:
    assert automatic_k(SHORT, k_min=2, k_default=2, k_max=4, detail="brief") == 2
    assert automatic_k("list everything", "detailed", k_min=2, k_default=2, k_max=4) == 4


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, 5),
        ({"detail": "brief"}, 4),
        ({"detail": "detailed"}, 7),
        ({"detail": "detailed", "question": "Summarize everything about the Apollo launch"}, 8),
        ({"folders": ["projects"]}, 4),
        ({"k": 1}, 3),
        ({"k": 6}, 6),
        ({"k": 100}, 8),
    ],
)
def test_debug_reports_the_k_used(
    notes_engine: Engine, fields: dict[str, object], expected: int
) -> None:
    request = AskRequest.model_validate({"question": SHORT, "debug": True, **fields})
    response = notes_engine.ask(request)
    assert response.debug is not None
    assert response.debug.k == expected


@pytest.mark.parametrize("k", [3, 5])
def test_at_most_k_chunks_are_kept(notes_engine: Engine, k: int) -> None:
    question = "When is the Apollo launch scheduled?"
    response = notes_engine.ask(AskRequest(question=question, k=k, debug=True))
    assert response.debug is not None
    candidates = response.debug.retrieved_chunks
    above = [c for c in candidates if c.score_vector >= 0.25 and c.score_gate >= 0.3]
    assert len(above) > k  # the question finds more than k, so k is what limits
    kept = [c for c in candidates if c.kept]
    assert kept == above[:k]
