"""Units a question spells out and notes abbreviate ("kilometres" over "6.2 km")."""

from __future__ import annotations

import pytest

from notecite.generate.base import ContextSource
from notecite.generate.extractive import quote_sentences
from notecite.generate.grounding import content_terms, line_terms
from notecite.retrieve.answerability import features
from notecite.retrieve.implied import implied_terms
from notecite.retrieve.units import abbreviation, abbreviations, asked_abbreviations


@pytest.mark.parametrize(
    ("word", "symbol"),
    [
        ("kilometres", "km"),
        ("Kilometers", "km"),
        ("centimetre", "cm"),
        ("millimeters", "mm"),
        ("kilos", "kg"),
        ("minutes", "min"),
        ("metres", None),  # "m" is no word a search can match
        ("kilometrage", None),
    ],
)
def test_the_symbol_a_unit_is_written_as(word: str, symbol: str | None) -> None:
    assert abbreviation(word) == symbol


def test_a_question_is_searched_with_the_symbols_of_the_units_it_spells_out() -> None:
    assert abbreviations("How many kilometres and minutes, in kilometers?") == ("km", "min")
    assert implied_terms("How many kilometres of river do I cover?") == ("km",)
    assert implied_terms("Is it 6 km or 6 kilometres?") == ()  # the symbol is said already
    # a quantity the question states is no measure it asks for
    assert implied_terms("Roasting a chicken of 1.6 kilos: how long?") == ()
    assert asked_abbreviations("A 10-kilometre run: how many minutes per kilometre?") == (
        "min",
        "km",
    )


def test_a_line_writing_the_symbol_holds_the_unit_a_claim_spells_out() -> None:
    assert "km" in content_terms("The transect is 6.2 kilometres long.")
    assert "km" in line_terms("transect:: 6.2 km, Pont Rhyd-ddu down to the wharf")


def test_the_extractive_provider_quotes_the_line_with_the_symbol() -> None:
    source = ContextSource(
        "N1",
        "v",
        "Field/Site - Afon Lledr.md",
        "",
        "site:: Afon Lledr\ntransect:: 6.2 km, Pont Rhyd-ddu down to the wharf\n",
    )
    answer = quote_sentences("How many kilometres do I cover on the Lledr?", [source])
    assert "transect:: 6.2 km" in answer


def test_the_gate_counts_a_unit_as_held_where_a_note_holds_its_symbol() -> None:
    held = {"km", "many", "cover", "lledr"}

    def mentions(terms: object) -> set[str]:
        return {t for t in terms if t in held}  # type: ignore[attr-defined]

    found = features("How many kilometres do I cover on the Lledr?", [], [], mentions, 0)
    assert found.vault_absent == 0.0
    none = features("How many kilometres do I cover on the Lledr?", [], [], lambda t: set(), 0)
    assert none.vault_absent == 1.0
