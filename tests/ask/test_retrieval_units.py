"""Units of the ask retrieval: query terms, lexical rerank, folder parsing and resolution."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.retrieve.folders import parse_folder_array, position_weight, resolve_user_folder
from notecite.retrieve.rerank import final_score, lexical_score, rerank_scores
from notecite.retrieve.terms import fold, query_terms, stem
from notecite.types import Vault

V1 = Vault(id=1, name="work", path=Path("/notes/work"))
V2 = Vault(id=2, name="home", path=Path("/notes/home"))


def test_query_terms_drop_stopwords_and_repeats() -> None:
    assert query_terms("What is the Apollo launch? The APOLLO launch!") == ["apollo", "launch"]
    assert query_terms("what is it?") == []
    assert query_terms("Tell me about my notes, please") == []


@pytest.mark.parametrize(
    "forms",
    [
        ("launch", "launches", "launched", "launching"),
        ("meeting", "meetings", "meet"),
        ("note", "notes", "noted"),
        ("feature", "features"),
        ("create", "created", "creating", "creates"),
        ("query", "queries"),
        ("class", "classes"),
        ("process", "processes", "processed"),
        ("move", "moved", "moves"),
        ("café", "cafe", "cafés"),
        ("ögedei", "ogedei"),
    ],
)
def test_the_forms_of_a_word_meet(forms: tuple[str, ...]) -> None:
    assert len({stem(word) for word in forms}) == 1, [stem(word) for word in forms]


def test_accents_of_latin_letters_only_are_folded() -> None:
    assert fold("Töregene, Ögedei, Piñera, Besançon") == "Toregene, Ogedei, Pinera, Besancon"
    assert fold("Пётр, 日本") == "Пётр, 日本"  # other scripts keep their letters
    assert fold("Jose\u0301 Zoe\u0308") == "Jose Zoe"  # an accent written as a mark after it


def test_short_words_and_words_ending_in_s_stay_whole() -> None:
    assert [stem(w) for w in ("is", "status", "bus", "analysis", "use")] == [
        "is",
        "status",
        "bus",
        "analysis",
        "use",
    ]


def words(count: int, filler: str = "zz") -> str:
    return " ".join([filler] * count)


def test_lexical_score_is_term_matches_per_ten_tokens() -> None:
    # 40 tokens, one match: 1 / (40 / 10) = 0.25
    assert lexical_score("apollo", "apollo " + words(39), "") == pytest.approx(0.25)
    # 20 tokens, one match: 1 / 2
    assert lexical_score("apollo", "apollo " + words(19), "") == pytest.approx(0.4)  # capped
    # 50 tokens, one match: 0.2; short texts count as ten tokens
    assert lexical_score("apollo", "apollo " + words(49), "") == pytest.approx(0.2)
    assert lexical_score("apollo budget", "apollo", "") == pytest.approx(0.4)


def test_lexical_score_counts_stemmed_repeats_and_is_capped() -> None:
    text = "launches launch launched " + words(97)  # 100 tokens, 3 matches after stemming
    assert lexical_score("launch", text, "") == pytest.approx(0.3)
    assert lexical_score("launch", "launch " * 30, "") == pytest.approx(0.4)


def test_a_matching_heading_adds_the_bonus() -> None:
    text = "apollo " + words(39)
    assert lexical_score("apollo", text, "# Apollo > ## Launch") == pytest.approx(0.35)
    assert lexical_score("apollo", text, "# Hermes") == pytest.approx(0.25)
    assert lexical_score("budget", words(40), "## Budgets") == pytest.approx(0.1)


def test_a_question_without_terms_scores_zero() -> None:
    assert lexical_score("what is it?", "apollo launch", "# Apollo") == 0.0


def test_final_score_is_seven_tenths_vector_three_tenths_lexical() -> None:
    assert final_score(0.8, 0.4) == pytest.approx(0.68)
    assert final_score(0.0, 0.5) == pytest.approx(0.15)
    assert rerank_scores("apollo", [(0.5, "apollo " + words(39), "")]) == [
        pytest.approx((0.25, 0.425))
    ]


@pytest.mark.parametrize(
    ("reply", "folders"),
    [
        ('["v1/meetings", "v2/projects/"]', ["v1/meetings", "v2/projects"]),
        ('```json\n["v1/meetings"]\n```', ["v1/meetings"]),
        ('Sure! The folders are ["v1/meetings"] as asked.', ["v1/meetings"]),
        ("[]", []),
    ],
)
def test_folder_replies_are_parsed(reply: str, folders: list[str]) -> None:
    assert parse_folder_array(reply) == folders


@pytest.mark.parametrize("reply", ["meetings, probably", '{"folders": "meetings"}', "[v1/meet"])
def test_garbage_folder_replies_raise(reply: str) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - json and our own parse errors alike
        parse_folder_array(reply)


def test_resolve_user_folder_forms() -> None:
    vaults = [V1, V2]
    assert resolve_user_folder("projects", vaults) == [(V1, "projects"), (V2, "projects")]
    assert resolve_user_folder("/projects/work/", vaults) == [
        (V1, "projects/work"),
        (V2, "projects/work"),
    ]
    assert resolve_user_folder("home/meetings", vaults) == [(V2, "meetings")]
    assert resolve_user_folder("1/projects/work", vaults) == [(V1, "projects/work")]
    assert resolve_user_folder("work", vaults) == [(V1, "")]


def test_position_weights_fall_by_a_tenth_down_to_a_floor() -> None:
    assert [position_weight(i) for i in range(4)] == [1.0, 0.9, 0.8, 0.7]
    assert position_weight(9) == 0.1
    assert position_weight(30) == 0.1
