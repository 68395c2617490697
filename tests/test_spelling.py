"""British spellings read as American ones: the word forms mapped, and the words left alone."""

from __future__ import annotations

import pytest

from notecite.retrieve.terms import stem
from notecite.spelling import american, british, spellings
from notecite.store.fulltext import query_words


@pytest.mark.parametrize(
    ("british", "us"),
    [
        ("colour", "color"),
        ("colours", "colors"),
        ("coloured", "colored"),
        ("favourite", "favorite"),
        ("behavioural", "behavioral"),
        ("organise", "organize"),
        ("organisation", "organization"),
        ("customising", "customizing"),
        ("synchronised", "synchronized"),
        ("tokeniser", "tokenizer"),
        ("analyse", "analyze"),
        ("centre", "center"),
        ("centred", "centered"),
        ("metres", "meters"),
        ("cancelled", "canceled"),
        ("labelling", "labeling"),
        ("grey", "gray"),
        ("licence", "license"),
        ("dialogue", "dialog"),
        ("judgement", "judgment"),
    ],
)
def test_a_british_form_is_read_as_the_american_one(british: str, us: str) -> None:
    assert american(british) == us
    assert spellings(british) == (british, us)
    assert stem(british) == stem(us)


@pytest.mark.parametrize(
    ("us", "uk"),
    [
        ("color", "colour"),
        ("behaviors", "behaviours"),
        ("customize", "customise"),
        ("organization", "organisation"),
        ("analyzed", "analysed"),
        ("center", "centre"),
        ("centered", "centred"),
        ("canceled", "cancelled"),
        ("gray", "grey"),
        ("license", "licence"),
    ],
)
def test_an_american_form_is_looked_up_in_the_british_one_too(us: str, uk: str) -> None:
    assert british(us) == uk
    assert spellings(us) == (us, uk)
    assert stem(us) == stem(uk)


@pytest.mark.parametrize(
    "word",
    [
        "four",
        "hour",
        "your",
        "tour",
        "advise",
        "promise",
        "exercise",
        "surprise",
        "precise",
        "genre",
        "acre",
        "installed",
        "controlled",
        "analyses",
        "Colour",
        "program",
        "size",
        "prize",
        "honest",
    ],
)
def test_a_word_that_is_spelled_one_way_is_left_alone(word: str) -> None:
    assert american(word) == word
    assert british(word) == word
    assert spellings(word) == (word,)


def test_a_full_text_query_asks_for_both_spellings() -> None:
    assert query_words(["the", "colour", "rules", "color"]) == ["colour", "color", "rules"]
    assert query_words(["customize", "it"]) == ["customize", "customise"]
