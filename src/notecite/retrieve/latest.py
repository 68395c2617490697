"""A question about the newest of a series of notes: "What did we decide at the last
platform sync?", "What's new in the latest release?".

Notes that recur are kept as a series of files named alike but for a date or a number
("2026-05-06 platform sync.md", "changelog.release.2022-12-06.md", "daily/2026-03-28.md").
Every member says much the same about the series, so the search ranks them about equally and
in no useful order, and a small model answers from whichever it reads first: "the last
platform sync" was answered from the one of April, not of May. For a question that asks for
the latest, the newest relevant member of the series is read first, and the older ones not
at all: the members are told by their file names (the same name, folder and extension once
every run of digits is set aside), and the newest is the one whose numbers are the highest
in order (dates written year first, and version numbers, compare that way).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import PurePosixPath

from notecite.retrieve.retriever import Candidate

_LATEST = re.compile(
    r"\b(?:latest|newest|most\s+recent(?:ly)?)\b"
    # "the last platform sync", "our last retro", "our last 1:1" (not "the last week", "my
    # last few notes", "my last 3 notes")
    r"|\b(?:the|my|our|his|her|their|your)\s+(?:very\s+)?last\s+"
    r"(?!(?:week|month|year|night|weekend|day|days|few|couple|one|two|three|time)\b)"
    r"(?=[a-z]|\d+:\d)"
    # "when did I last ...", "when was the boiler last serviced"
    r"|\bwhen\s+(?:did|was|were|have|has)\s+(?:[\w']+\s+){0,4}?last\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


def asks_for_latest(question: str) -> str | None:
    """The words of ``question`` that ask for the newest of something, or None."""
    found = _LATEST.search(question)
    return " ".join(found.group(0).split()) if found else None


def series_of(vault: str, rel_path: str) -> str | None:
    """The series a note belongs to by its file name: its vault, folder and name with each run
    of digits as ``#`` ("me/work/meetings/#-#-# platform sync.md"); None for a name without
    digits."""
    path = PurePosixPath(rel_path)
    if not _DIGITS.search(path.name):
        return None
    return f"{vault}/{path.parent}/{_DIGITS.sub('#', path.name)}"


def _order(rel_path: str) -> tuple[int, ...]:
    """The numbers of a file name in order: the later member of a series has the higher."""
    return tuple(int(n) for n in _DIGITS.findall(PurePosixPath(rel_path).name))


Note = tuple[str, str]
"""A note as (vault, path)."""


def series_in(kept: Sequence[Candidate]) -> str | None:
    """The series of the best-ranked of ``kept``, when it belongs to one."""
    return series_of(kept[0].chunk.vault, kept[0].chunk.rel_path) if kept else None


def members(series: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The ``candidates`` of notes of ``series``."""
    return [c for c in candidates if series_of(c.chunk.vault, c.chunk.rel_path) == series]


def newest_member(series: str, candidates: Sequence[Candidate]) -> Note | None:
    """The newest note of ``series`` among ``candidates``, when it has two notes there."""
    notes = {(c.chunk.vault, c.chunk.rel_path) for c in members(series, candidates)}
    if len(notes) < 2:
        return None
    return max(notes, key=lambda note: _order(note[1]))


def read_first(
    kept: Sequence[Candidate], newer: Sequence[Candidate], note: Note, series: str
) -> list[Candidate]:
    """``kept`` with the chunks of ``note`` (from ``kept``, then ``newer``) first, in their
    rank order, then the rest as they were but for the older notes of ``series``: the
    question asks for the newest, and an older member says the same things of another
    date. At most as many as ``kept``."""

    def of_note(c: Candidate) -> bool:
        return (c.chunk.vault, c.chunk.rel_path) == note

    ahead = [c for c in kept if of_note(c)]
    taken = {c.rowid for c in ahead}
    ahead += [c for c in newer if of_note(c) and c.rowid not in taken]
    rest = [c for c in kept if series_of(c.chunk.vault, c.chunk.rel_path) != series]
    ahead = ahead[: max(1, len(kept) - min(1, len(rest)))]
    return [*ahead, *rest][: len(kept)]


SEARCHES = 3
"""The most searches for a newer note of a series, for a question that asks for the latest."""

SearchAfter = Callable[[datetime], Sequence[Candidate]]
"""The relevant candidates of notes dated from a moment on."""


def latest_first(
    kept: Sequence[Candidate], search_after: SearchAfter
) -> tuple[list[Candidate], Note | None]:
    """``kept`` with the newest relevant note of the series the question is about first
    (:func:`read_first`), and that note (None when ``kept`` is left as it is): the series
    of the best-ranked kept note, its members among ``kept`` and among the relevant notes
    dated after the newest of them (``search_after``, again while it finds a newer one, at
    most :data:`SEARCHES` times)."""
    series = series_in(kept)
    if series is None:
        return list(kept), None
    newer: list[Candidate] = []
    newest = newest_member(series, kept)
    for _ in range(SEARCHES):
        dates = [
            c.chunk.note_date
            for c in members(series, [*kept, *newer])
            if c.chunk.note_date and (newest is None or c.chunk.rel_path == newest[1])
        ]
        if not dates:
            break
        newer.extend(members(series, search_after(max(dates))))
        later = newest_member(series, [*kept, *newer])
        if later == newest:
            break
        newest = later
    if newest is None:
        return list(kept), None
    # ranked first already or not, the older members say the same things of another date
    return read_first(kept, newer, newest, series), newest
