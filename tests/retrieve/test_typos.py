"""Misspelt question words, read as the word the notes hold."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from notecite.retrieve import typos
from notecite.retrieve.typos import (
    MAX_READINGS,
    readings,
    respell,
    typed_for,
    unknown_words,
    with_readings,
)

NOTES = {
    "template",
    "templates",
    "shortcut",
    "backlinks",
    "wikilinks",
    "foam",
    "counting",
    "sync",
    "clone",
    "note",
    "synching",
}


class Held:
    """The words the notes hold, of those asked; counts the look-ups."""

    def __init__(self, words: set[str]) -> None:
        self.words = words
        self.asked: list[list[str]] = []

    def __call__(self, asked: Sequence[str]) -> set[str]:
        self.asked.append(list(asked))
        return {w for w in asked if w in self.words}


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("How do I create a note from a tempalte?", {"tempalte": "template"}),
        ("What's the shorcut for the daily note?", {"shorcut": "shortcut"}),
        # a word of the notes' own, in no English dictionary: two letters swapped
        ("how do i see backlniks", {"backlniks": "backlinks"}),
        # an English word is no misspelling, whatever the notes hold ("roam" is not "foam")
        ("Can foam import from roam?", {}),
        # a word the notes hold is theirs
        ("Do wikilinks update?", {}),
        # a name is never read as another word
        ("Does Tempalte exist?", {}),
        # nor what the asker writes as it is
        ('Is `tempalte` a command? Or "tempalte"? See https://x.example/tempalte', {}),
        # nothing one edit away in the notes
        ("Does Foam sync with logseq?", {}),
        # a tool's name is a word with a letter in front: the first letter is never edited
        ("Can I back up my vault with rsync or rclone?", {}),
        ("how do i make a dnote", {}),
        # nor read as a note's word through an edit no typist makes
        ("Can I keep my notes in step with syncthing?", {}),
    ],
)
def test_a_misspelt_word_is_read_as_the_word_the_notes_hold(
    question: str, read: dict[str, str]
) -> None:
    assert respell(question, [], Held(NOTES)) == read


def test_a_word_with_two_readings_in_the_notes_is_left_as_written() -> None:
    """ "linkd": the notes hold "linked" and "links"; either reading could answer another
    question."""
    assert respell("Where is my linkd note?", [], Held(NOTES | {"linked", "links"})) == {}
    assert respell("Where is my linkd note?", [], Held({"linked"})) == {"linkd": "linked"}


def test_an_english_reading_comes_before_a_form_only_the_index_holds() -> None:
    """ "theems": the notes hold "themes", and a stemming index says they hold "thems" too
    (it reads it as "them"); the English word is the one meant."""
    assert respell("Which built-in theems are there?", [], Held({"themes", "thems"})) == {
        "theems": "themes"
    }


@pytest.mark.parametrize(
    ("typed", "word", "typo"),
    [
        ("tempalte", "template", True),  # two letters swapped
        ("shorcut", "shortcut", True),  # a letter missed
        ("tenplate", "template", True),  # n and m touch
        ("templatte", "template", True),  # a key struck twice
        ("templste", "template", True),  # s and a touch
        ("jupyter", "jupiter", False),  # y and i do not touch: a name, not a typo
        ("syncthing", "synching", False),  # t touches neither c nor h
        ("rsync", "sync", False),  # the first letter is as typed
        ("template", "template", False),
    ],
)
def test_a_typo_is_an_edit_a_typist_makes(typed: str, word: str, typo: bool) -> None:
    assert typed_for(typed, word) is typo


def test_a_salient_term_is_never_respelt() -> None:
    assert unknown_words("Does foam sync with tempalte?", ["tempalte"]) == []


def test_the_notes_are_asked_once_when_nothing_is_misspelt() -> None:
    held = Held(NOTES)
    assert respell("Do wikilinks and backlinks update?", [], held) == {}
    assert held.asked == [["wikilinks", "backlinks"]]
    held = Held(NOTES)
    assert respell("How do I write a note?", [], held) == {}
    assert held.asked == []  # every word is English: the notes are not asked


def test_readings_put_english_words_first() -> None:
    found = readings("tempalte")
    assert found[0] == "template"
    assert "backlinks" in readings("backlinkss")  # the notes' own words are asked too
    assert all(w.startswith("t") for w in found)
    assert "sync" not in readings("rsync")  # it would edit the first letter


def test_with_readings_replaces_whole_words_only() -> None:
    assert with_readings("tempalte or tempaltes-x?", {"tempalte": "template"}) == (
        "template or tempaltes-x?"
    )


def test_a_question_is_read_for_a_few_misspelt_words_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each misspelt word asks the store for a few dozen readings: noise is not read whole."""
    read: list[str] = []

    def readings_of(word: str) -> list[str]:
        read.append(word)
        return readings(word)

    monkeypatch.setattr(typos, "readings", readings_of)
    noise = " ".join(["tempalte"] + [f"zqxw{letter}vk" for letter in "abcdefghijkl"])
    assert respell(noise, [], Held(NOTES)) == {"tempalte": "template"}
    assert read == ["tempalte"] + [f"zqxw{letter}vk" for letter in "abcdefg"]
    assert len(read) == MAX_READINGS
