"""Misspelt words of a question, read as the word the notes hold.

"How do I create a note from a tempalte?" finds nothing by its key word: no note holds
"tempalte", so BM25 cannot match it, the embedding drifts, and the answerability gate counts
a question word in no note (a strong sign of a question from elsewhere) and refuses. A person
reads it as "template" without thinking; so does notecite, under four conditions that keep a
real name from being "corrected" into a word of the notes:

- the word is a plain lowercase word of at least :data:`MIN_LETTERS` letters, outside code
  spans, quotes and links, and no salient term (a name such as "Logseq" is never read as
  another word: whether the notes mention it is what a near miss asks);
- English does not know it (:mod:`notecite.retrieve.english`: "roam",
  "notion" and "obsidian" are words, so they are never read as "foam", "motion" or anything
  else), and no note of the searched vaults holds it;
- exactly one word one edit away is held by the notes: an English word (a letter added,
  dropped, changed, or two swapped), or the word with one letter dropped or two neighbouring
  letters swapped (the notes' own words, "backlinks" for "backlniks", are in no English
  dictionary; these two edits keep the look-up short). Where the notes hold two ("linkd":
  "linked" and "links"), the question is left as it is: a wrong reading would answer another
  question (an English word held comes before a form only the index holds: :func:`respell`);
- the edit is one a typist makes (:func:`typed_for`): two letters swapped, a letter
  missed, or a letter struck for, or beside, a neighbouring key of a QWERTY keyboard; and
  it leaves the first letter as written, which a typist seldom misses. A name is often a word
  with a letter in front or inside: "rsync" is no misspelling of "sync", "rclone" of
  "clone", "syncthing" of "synching" ("t" is nowhere near "c" or "h"), nor "jupyter" of
  "jupiter" ("y" for "i"), and a question about any of them is a near miss when the notes
  only hold the other word.

The stage looks the words up in the store (:meth:`notecite.store.base.Store.mentions`), so
the same words are read the same way on SQLite and PostgreSQL, and only words of the
searched vaults are ever suggested.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence

from notecite.retrieve.english import known, one_edit_away
from notecite.retrieve.terms import STOPWORDS

MIN_LETTERS = 5
# A question is read for at most this many misspelt words (each asks the store for a few
# dozen readings): a real question has one or two; more is noise, and reading it costs time.
MAX_READINGS = 8
_KEY_ROWS = (("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75))
_KEY_AT = {
    key: (row, col + shift)
    for row, (keys, shift) in enumerate(_KEY_ROWS)
    for col, key in enumerate(keys)
}
_WORD = re.compile(rf"(?<![\w./#@`'-])[a-z]{{{MIN_LETTERS},}}(?![\w/`'-]|\.\w)")
# what the asker writes as it is, never respelt: code spans, quoted phrases, links and URLs
_WRITTEN_AS_IS = re.compile(
    r"`[^`\n]*`|[\"\u201c][^\"\u201d\n]*[\"\u201d]|\[\[[^\]\n]*\]\]|\]\([^)\s]*\)|\S+://\S+"
)


def unknown_words(question: str, salient: Collection[str]) -> list[str]:
    """The plain lowercase words of ``question`` (outside code spans, quotes and links) that
    English does not know and that are no ``salient`` term: the ones that may be misspelt."""
    text = _WRITTEN_AS_IS.sub(" ", question)
    named = {term.lower() for term in salient}
    words = [w for w in dict.fromkeys(_WORD.findall(text)) if w not in STOPWORDS and w not in named]
    if not words:
        return []
    english = known(words)
    return [w for w in words if w not in english]


def neighbours(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` the same key or touching keys of a QWERTY keyboard?"""
    if a == b:
        return True
    if a not in _KEY_AT or b not in _KEY_AT:
        return False
    (row_a, x_a), (row_b, x_b) = _KEY_AT[a], _KEY_AT[b]
    return abs(row_a - row_b) <= 1 and abs(x_a - x_b) <= 1


def typed_for(typed: str, word: str) -> bool:
    """Could a typist aiming at ``word`` have typed ``typed`` (one edit from it)? Two
    neighbouring letters swapped or a letter missed, anywhere; a letter struck instead of
    the right one only where the two keys touch; an extra letter only where its key touches
    (or repeats) the letter before or after it. The first letter is always as typed."""
    if typed[:1] != word[:1] or typed == word:
        return False
    if len(typed) == len(word) - 1:  # a letter missed
        return any(word[:i] + word[i + 1 :] == typed for i in range(1, len(word)))
    if len(typed) == len(word) + 1:  # a letter too many
        return any(
            typed[:i] + typed[i + 1 :] == word
            and (
                neighbours(typed[i], typed[i - 1])
                or (i + 1 < len(typed) and neighbours(typed[i], typed[i + 1]))
            )
            for i in range(1, len(typed))
        )
    if len(typed) != len(word):
        return False
    differ = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
    if len(differ) == 1:  # a letter struck for another
        return neighbours(typed[differ[0]], word[differ[0]])
    first, *rest = differ
    return (
        rest == [first + 1] and typed[first] == word[first + 1] and typed[first + 1] == word[first]
    )


def english_readings(word: str) -> list[str]:
    """The English words ``word`` may be a misspelling of (:func:`typed_for`), most common
    first."""
    return [w for w in one_edit_away(word) if typed_for(word, w)]


def readings(word: str) -> list[str]:
    """What ``word`` may be a misspelling of (:func:`typed_for`): English words one edit
    away, most common first, then ``word`` with one letter dropped or two neighbours swapped
    (a word of the notes' own, such as "backlinks" for "backlniks", which no English
    dictionary holds)."""
    english = english_readings(word)
    dropped = (word[:i] + word[i + 1 :] for i in range(1, len(word)))
    swapped = (word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(1, len(word) - 1))
    own = [
        w for w in dict.fromkeys([*dropped, *swapped]) if w not in english and typed_for(word, w)
    ]
    return [*english, *own]


def respell(
    question: str,
    salient: Collection[str],
    held: Callable[[Sequence[str]], set[str]],
) -> dict[str, str]:
    """Each misspelt word of ``question`` and the word it is read as: English does not know
    it, ``held`` (the words some note holds, of those asked) does not hold it, and holds
    exactly one of its English :func:`readings`, or, when it holds none of those, exactly
    one of the others (an English word is the likelier one meant: "theems" is "themes",
    whatever a full-text index that stems "thems" to "them" says). Empty when nothing is
    misspelt, which is most questions: then ``held`` is asked at most once."""
    unknown = unknown_words(question, salient)
    if not unknown:
        return {}
    in_notes = held(unknown)
    absent = [w for w in unknown if w not in in_notes][:MAX_READINGS]
    near = {w: readings(w) for w in absent}
    asked = sorted({r for each in near.values() for r in each})
    found = held(asked) if asked else set()
    read: dict[str, str] = {}
    for word, each in near.items():
        english = known(each)  # its English readings: the others are in no dictionary
        held_english = [r for r in each if r in found and r in english]
        held_near = held_english or [r for r in each if r in found]
        if len(held_near) == 1:
            read[word] = held_near[0]
    return read


def with_readings(question: str, readings_of: dict[str, str]) -> str:
    """``question`` with each misspelt word replaced by its reading."""
    for word, reading in readings_of.items():
        question = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", reading, question)
    return question
