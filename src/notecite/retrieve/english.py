"""English words: the ones a dictionary knows, and the ones a letter away from a word.

The dictionary is the word-frequency list that ``pyspellchecker`` bundles (about 160,000
words, loaded once on first use, about 0.2 s; nothing is downloaded). It answers two
questions of a question's words: is this a misspelling (:mod:`notecite.retrieve.typos`), and,
in a question written without capitals, is this a name (:mod:`notecite.retrieve.salient`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Protocol


class _Speller(Protocol):
    def known(self, words: Sequence[str]) -> set[str]: ...

    def edit_distance_1(self, word: str) -> set[str]: ...

    def __getitem__(self, word: str) -> int: ...


@lru_cache(maxsize=1)
def _speller() -> _Speller:
    from spellchecker import SpellChecker

    speller: _Speller = SpellChecker(language="en", distance=1)
    return speller


def known(words: Iterable[str]) -> set[str]:
    """The lowercase ``words`` that English knows."""
    return _speller().known(sorted(set(words)))


def one_edit_away(word: str) -> list[str]:
    """English words one edit from ``word`` (a letter added, dropped or changed, or two
    neighbours swapped) that start with the letter it starts with, most common first."""
    speller = _speller()
    near = (w for w in speller.edit_distance_1(word) if w[:1] == word[:1])
    return sorted(speller.known(sorted(near)), key=lambda w: (-speller[w], w))
