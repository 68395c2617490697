"""A note the question names by one of its aliases, said with the note's title.

People ask about a note by the name they give it: "Who is my manager?" of the note "Ruben
Castellanos" with ``aliases: [Ruben, my manager]``, "the weekend sourdough" of "Sourdough
country loaf". The search finds the note by its alias, but the model reads the note under
its title and does not join the two: it answered "My manager is VP Engineering" from
"My manager. VP Engineering." The question as the model reads it says the title after the
alias ("Who is my manager (Ruben Castellanos)?"), as it says a misspelt word as the notes
spell it (:func:`notecite.retrieve.typos.with_readings`).

The note a question names by an alias is also read first, and a question that names one is
left to the model's reading check when the answerability gate doubts it
(:meth:`notecite.retrieve.stage.RetrievalStage.retrieve`): "What timezone is my manager in?"
scores low against "My manager. VP Engineering." on every signal the gate reads, and the
answer is in the note's properties. A question that says such an alias as an owner ("When
is my manager's birthday?") asks what that note holds: a claim is supported only by a line
of it (:class:`~notecite.generate.base.Owners`), not by a colleague's "Birthday November 3".
An alias names a note only where it calls it something its title does not
(:func:`adds_a_name`).

Only a question that asks who someone is ("Who is my manager?", "Who's Tomek?") is read
so: its answer is the name the note goes by. Said in every question that names a note by an
alias, the title confused the bundled model more than it helped (6 dev questions, among
them "the tin loaf (Weekday sandwich loaf)": 3 answers lost their key fact, none gained
one). Only the aliases of the notes the context holds count, the best-ranked note first;
not an alias whose words the title holds already ("Ruben" of "Ruben Castellanos"), nor any
alias of a note the question names by its title.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from notecite.retrieve.retriever import Candidate
from notecite.store.base import StoredChunk

ALIAS_KEYS = ("aliases", "alias")
"""Frontmatter keys whose values are the names a note goes by."""

MIN_ALIAS_CHARS = 3
"""An alias shorter than this is too likely a word of any question."""

_WORD = re.compile(r"\w+")
# "Who is my manager?", "Who's Tomek?"; not "Who was at the kickoff?" (who attended)
_WHO_IS = re.compile(
    r"^\W*who(?:'s|\s+(?:is|are|was|were)\b)(?!\s+(?:at|in|on|there|present|invited)\b)",
    re.IGNORECASE,
)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _phrase(alias: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(alias)}(?![\w-])", re.IGNORECASE)


def _claimed(question: str, alias: str, spans: list[tuple[int, int]]) -> re.Match[str] | None:
    """Where ``question`` says ``alias`` as whole words, outside the ``spans`` other aliases
    took (the span is added to them); None when it does not, or the alias is too short."""
    if len(alias) < MIN_ALIAS_CHARS:
        return None
    found = _phrase(alias).search(question)
    if found is None or any(found.start() < e and s < found.end() for s, e in spans):
        return None
    spans.append(found.span())
    return found


def carries_alias(said: Sequence[str], rel_path: str, title: str) -> bool:
    """Does a note's own name (its path or title) hold one of the aliases ``said``, word for
    word ("PG16" in "2026-03-12 pg16 upgrade kickoff")? Then the question may well be about
    that note, which only shares the name ("Who was at the PG16 kickoff?")."""
    named = _words(f"{rel_path} {title}")
    return any(_words(alias) and _words(alias) <= named for alias in said)


def asks_who(question: str) -> bool:
    """Does ``question`` ask who someone is ("Who is my manager?", "Who's Tomek?")?"""
    return _WHO_IS.match(question) is not None


def named_notes(question: str, notes: Sequence[tuple[str, Sequence[str]]]) -> dict[str, str]:
    """Each alias of ``notes`` ((title, aliases), best first) that ``question`` says, as the
    question writes it -> the title of its note; none unless the question asks who someone
    is."""
    said: dict[str, str] = {}
    if not asks_who(question):
        return said
    spans: list[tuple[int, int]] = []
    asked = _words(question)
    for title, aliases in notes:
        title = " ".join(title.split())
        if not title or _words(title) <= asked:
            continue
        for alias in sorted((" ".join(a.split()) for a in aliases), key=len, reverse=True):
            if adds_a_name(alias, title) and (found := _claimed(question, alias, spans)):
                said.setdefault(found.group(0), title)
    return said


def adds_a_name(alias: str, title: str) -> bool:
    """Does ``alias`` call the note something its title does not ("my manager", "PG16" of
    "Postgres 16 upgrade"), rather than shorten it ("Aiko" of "Aiko Matsuda")?"""
    return not _words(alias) <= _words(title)


def said_as_owners(question: str, aliases: Sequence[str]) -> list[str]:
    """The ``aliases`` that ``question`` says as an owner ("my manager's birthday")."""
    return [
        alias
        for alias in aliases
        if re.search(rf"{_phrase(alias).pattern}['\u2019]s\b", question, re.IGNORECASE)
    ]


def said_aliases(question: str, aliases: Sequence[str]) -> list[str]:
    """The ``aliases`` (of any note) that ``question`` says as whole words, longest first,
    none inside another."""
    spans: list[tuple[int, int]] = []
    return [
        alias
        for alias in sorted({" ".join(a.split()) for a in aliases}, key=len, reverse=True)
        if _claimed(question, alias, spans)
    ]


def with_named(question: str, named: dict[str, str]) -> str:
    """``question`` with the title of each note it names by an alias after the alias."""
    for alias, title in named.items():
        found = _phrase(alias).search(question)
        if found is not None:
            question = f"{question[: found.end()]} ({title}){question[found.end() :]}"
    return question


def best_of_notes(
    notes: Collection[tuple[str, str]],
    candidates: Sequence[Candidate],
    first_chunks: Mapping[int, StoredChunk],
) -> list[Candidate]:
    """For each of ``notes`` (vault, path), its best-ranked candidate, or its first chunk
    (of ``first_chunks``, by rowid) when no candidate is of it; best first."""
    found: list[Candidate] = []
    for note in notes:
        best = next((c for c in candidates if (c.chunk.vault, c.chunk.rel_path) == note), None)
        if best is None:
            first = next(c for c in first_chunks.values() if (c.vault, c.rel_path) == note)
            best = Candidate.unscored(first)
        found.append(best)
    return sorted(found, key=lambda c: -c.final)


@dataclass(frozen=True)
class Naming:
    """The notes a question names by their aliases.

    Attributes:
        notes: (vault, path) of each note an alias the question says names, where the alias
            calls it something its title does not (:func:`adds_a_name`).
        owners: those of them an alias names as an owner ("my manager's birthday").
        owning: the aliases said as owners.
    """

    notes: frozenset[tuple[str, str]]
    owners: frozenset[tuple[str, str]]
    owning: tuple[str, ...]


def notes_named(
    question: str,
    said: Sequence[str],
    first_chunks: Mapping[int, StoredChunk],
    aliases_of: Mapping[int, Mapping[str, Sequence[str]]],
) -> Naming:
    """The notes of ``first_chunks`` (rowid -> a note's first chunk; ``aliases_of``: rowid ->
    frontmatter key -> its values, lower case) that the aliases ``question`` says (``said``)
    name. An alias that only shortens the title ("Aiko" of "Aiko Matsuda") names the note no
    more than the title's words do, and "Aiko's scheduler design" is another note."""
    owning = said_as_owners(question, said)
    notes: set[tuple[str, str]] = set()
    owners: set[tuple[str, str]] = set()
    for rowid, chunk in first_chunks.items():
        names = {a for values in aliases_of.get(rowid, {}).values() for a in values}
        naming = [a for a in said if a in names and adds_a_name(a, chunk.title)]
        if naming:
            notes.add((chunk.vault, chunk.rel_path))
            if any(a in owning for a in naming):
                owners.add((chunk.vault, chunk.rel_path))
    return Naming(frozenset(notes), frozenset(owners), tuple(owning))
