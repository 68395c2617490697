"""The kind of value a question asks for, and the lines that hold one."""

from __future__ import annotations

import pytest

from notecite.generate.answer_kinds import asked_kinds, held_kinds


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What oven temperature for the loaf?", {"temperature"}),
        ("How long does the dough rise?", {"duration"}),
        ("How many minutes in the oven?", {"duration"}),
        ("How many tickets are left?", {"count"}),
        ("What day did I book the flights?", {"day"}),
        ("When did I last bleed the radiators?", {"day"}),
        ("What time does the train leave?", {"clock"}),
        ("How much did the hotel cost?", {"money"}),
        ("Which kitchen contractor was cheapest?", {"money"}),
        ("Is Brightwork more expensive than Hollis?", {"money"}),
        ("Since which version can I tune lookup?", {"version"}),
        ("What keys open the preview on a Mac?", {"keys"}),
        # "when" as a condition asks for no day
        ("When I export to markdown, where do links point?", set()),
        ("How do I publish my notes?", set()),
    ],
)
def test_a_question_names_the_kind_of_value_it_asks_for(question: str, kinds: set[str]) -> None:
    assert asked_kinds(question) == kinds


@pytest.mark.parametrize(
    ("line", "kind", "holds"),
    [
        ("**220°C for 20 min**, then 190°C", "temperature", True),
        ("Bake until golden.", "temperature", False),
        ("First rise about 1 h until doubled.", "duration", True),
        ("Restore took 1h 41m.", "duration", True),
        ("Booked 3 Feb, easyJet.", "day", True),
        ("Ran on 2026-03-02 again.", "day", True),
        ("Back on Tue 21 Apr.", "day", True),
        ("Booked with easyJet.", "day", False),
        ("Departs 07:10, arrives 9:55", "clock", True),
        ("Total €710, pay at the hotel.", "money", True),
        ("Flights £297.20", "money", True),
        ("Added in 0.72 of the extension.", "version", True),
        ("Press Ctrl+Shift+P to open it.", "keys", True),
        ("Press the button.", "keys", False),
    ],
)
def test_a_line_holds_a_value_of_a_kind(line: str, kind: str, holds: bool) -> None:
    assert (kind in held_kinds(line, frozenset({kind}))) is holds
