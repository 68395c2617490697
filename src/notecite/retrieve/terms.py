"""Query terms: lowercase word tokens without stopwords, and a light suffix stemmer."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from notecite.spelling import american

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_STOPWORD_TEXT = """
a about above after again against all am an and any are aren't as at be because been
before being below between both but by can could did do does doing down during each few
for from further had has have having he her here hers herself him himself his how i if
in into is it its itself just me more most my myself no nor not now of off on once only
or other our ours ourselves out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until
up very was we were what when where which while who whom why will with would you your
yours yourself yourselves tell know please notes note
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


# A name written as an owner: "Dana's birthday" (also with a curly apostrophe).
POSSESSIVE_NAME = re.compile(r"\b([A-Z][a-z]+)['\u2019]s\b")
# Words written before "'s" that name no one: a time ("Today's note"), a pronoun
# ("Everyone's tasks"), "Let's"; and any stopword ("What's", "That's").
_NO_ONE = frozenset(
    {"today", "tomorrow", "yesterday", "tonight", "week", "month", "year", "let", "one"}
    | {"everyone", "everybody", "anyone", "anybody", "someone", "somebody", "nobody"}
)


def names_someone(word: str) -> bool:
    """Could ``word`` (lower case), written before "'s", be someone's name?"""
    return word not in STOPWORDS and word not in _NO_ONE


def possessive_names(text: str) -> list[str]:
    """The names ``text`` writes as owners ("Dana's birthday": dana), in lower case and in
    order; not "What's", "Today's", "Everyone's"."""
    names = (name.lower() for name in POSSESSIVE_NAME.findall(text))
    return [name for name in names if names_someone(name)]


def without_written(question: str, filters: Sequence[str]) -> str:
    """``question`` with each filter as written in it ("#baking", "type:meeting") cut out."""
    for written in filters:
        question = question.replace(written, " ")
    return question


_QUESTION_END = re.compile(r"[\s?.!]+$")


def asked_part(question: str, patterns: Sequence[re.Pattern[str]]) -> str | None:
    """The part of ``question`` that the first of ``patterns`` (each matching a question's
    lower case, with a ``target`` group) to match names, as the question writes it (its
    spaces made one, a curly apostrophe straight, its closing marks dropped); None when no
    pattern matches."""
    text = _QUESTION_END.sub("", " ".join(question.replace("\u2019", "'").split()))
    for pattern in patterns:
        found = pattern.match(text.lower())
        if found:
            start, end = found.span("target")
            return text[start:end]
    return None


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens."""
    return _WORD.findall(text.lower())


def query_terms(text: str) -> list[str]:
    """Tokens that are not stopwords, in order, without repeats."""
    return list(dict.fromkeys(t for t in tokenize(text) if t not in STOPWORDS))


def fold(text: str) -> str:
    """``text`` with the accents of Latin letters removed ("Ögedei" as "Ogedei", "José" as
    "Jose", whether the accent is part of the letter or a combining mark after it), as the
    full-text index reads words: a question typed without them still meets the note that
    has them. Letters of other scripts are left as they are."""
    if text.isascii():
        return text
    kept: list[str] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char) and kept and kept[-1].isascii():
            continue  # the accent of a Latin letter
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept))


_SIBILANT_PLURAL = ("sses", "xes", "zes", "ches", "shes")


_NAME_SEPARATOR = re.compile(r"[._/-]")


def name_stems(text: str) -> set[str]:
    """The stems of the query terms of a note's path, title or heading path, a dotted,
    slashed or hyphenated name read as its words ("changelog.release.0-47", "Site - Afon
    Lledr")."""
    return {stem(t) for t in query_terms(_NAME_SEPARATOR.sub(" ", text))}


@lru_cache(maxsize=131072)
def stem(word: str) -> str:
    """Strip a few common English suffixes so that the forms of a word meet: a plural, then
    ``-ing`` or ``-ed``, then a final ``e`` ("notes" and "note", "features" and "feature",
    "launches", "launched" and "launch", "created" and "create", "queries" and "query"); a
    British spelling is read as the American one first ("colours" and "colors"), and a letter
    with an accent as the letter without it ("café" and "cafe")."""
    word = american(fold(word))
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 4 and word.endswith(_SIBILANT_PLURAL):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    return word[:-1] if len(word) > 3 and word.endswith("e") else word
