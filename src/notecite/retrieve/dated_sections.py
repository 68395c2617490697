"""A question about the newest entry of a log kept in one note: "When did I last service
the boiler?", "What did Dana and I discuss at our last 1:1?".

People keep a log in one note as sections headed by dates: a boiler's service log
("### 14 November 2024 — Gary Blake", "### 22 January 2026 — Priya Shah"), the 1:1s with a
colleague ("### 2026-03-11", "### 2026-04-22"). Every entry says much the same, so the
search ranks them in no useful order, and a small model answers from whichever it reads:
"When did I last service the boiler?" was answered "14 November 2024" from the older entry.
For a question that asks for the latest (:func:`~notecite.retrieve.latest.asks_for_latest`),
the log is that of the best-ranked kept chunk in a dated section: the sections with the
same parent heading whose own heading names a day. The newest entry among the candidates
is read first, and the older entries of that log not at all, as the newest note of a series
of notes is (:mod:`notecite.retrieve.latest`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from notecite.retrieve.latest import asks_for_latest
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.terms import name_stems
from notecite.retrieve.timehints import parse_day

_SEPARATOR = " > "

Log = tuple[str, str, str]
"""A log: (vault, path, the heading path of its entries' parent)."""


def entry_day(heading_path: str, now: datetime | None = None) -> datetime | None:
    """The day the last heading of ``heading_path`` names ("### 22 January 2026 — Priya"),
    or None."""
    last = heading_path.rsplit(_SEPARATOR, 1)[-1].lstrip("#").strip()
    found = parse_day(last, now) if last else None
    return found.since if found is not None else None


def _log_of(candidate: Candidate) -> Log:
    chunk = candidate.chunk
    parent = chunk.heading_path.rsplit(_SEPARATOR, 1)[0] if _SEPARATOR in chunk.heading_path else ""
    return chunk.vault, chunk.rel_path, parent


def _about(question: str, log: Log, entries: dict[datetime, list[Candidate]]) -> list[datetime]:
    """The days of the entries that are about what ``question`` asks: those whose text
    holds half (one at least) of the question's terms that neither the log's note and parent
    headings nor its words asking for the latest hold already ("brake pads" in a bike's
    log: not "bike", not "last"); every entry when the question asks nothing more than the
    log is about ("When did I last service the boiler?" of the boiler's service log) or when
    no entry holds that much."""
    _, path, parent = log
    latest = asks_for_latest(question) or ""  # "When did I last": how it asks, not what
    asked = name_stems(question) - name_stems(f"{path} {parent} {latest}")
    if not asked:
        return list(entries)
    needed = max(1, math.ceil(len(asked) / 2))
    about = [
        day
        for day, chunks in entries.items()
        if len(asked & name_stems(" ".join(c.chunk.text for c in chunks))) >= needed
    ]
    return about or list(entries)


def newest_entry_first(
    question: str,
    kept: Sequence[Candidate],
    candidates: Sequence[Candidate],
    now: datetime | None = None,
) -> tuple[list[Candidate], Log | None]:
    """``kept`` with the newest entry of the log the question is about first (the newest of
    the entries about what it asks, :func:`_about`): the chunks of that entry (from
    ``kept``, then ``candidates``, in rank order), then the rest of ``kept`` but for the
    log's other entries; at most as many as ``kept``. The log is that of the
    best-ranked kept chunk in a dated section under a parent heading whose log has two dated
    entries or more among the candidates. ``kept`` is unchanged, with None, when there is no
    such log or no older entry of it is kept (the newest alone is read where it ranks)."""
    for candidate in kept:
        log = _log_of(candidate)
        if not log[2] or entry_day(candidate.chunk.heading_path, now) is None:
            continue  # no entry: a note titled by its day ("# Thursday 22 January") is none
        entries = _entries(log, [*kept, *candidates], now)
        if len(entries) < 2:
            continue
        newest = entries[max(_about(question, log, entries))]
        taken = {c.rowid for c in newest}
        older = [
            c
            for c in kept
            if c.rowid not in taken
            and _log_of(c) == log
            and entry_day(c.chunk.heading_path, now) is not None
        ]
        if not older:  # only the newest entry is kept: nothing older to mislead the model
            return list(kept), None
        rest = [c for c in kept if c.rowid not in taken and c not in older]
        return [*newest, *rest][: len(kept)], log
    return list(kept), None


def _entries(
    log: Log, candidates: Sequence[Candidate], now: datetime | None
) -> dict[datetime, list[Candidate]]:
    """The dated entries of ``log`` among ``candidates``: each day's chunks, in rank order."""
    entries: dict[datetime, list[Candidate]] = {}
    seen: set[int] = set()
    for candidate in candidates:
        if candidate.rowid in seen or _log_of(candidate) != log:
            continue
        seen.add(candidate.rowid)
        day = entry_day(candidate.chunk.heading_path, now)
        if day is not None:
            entries.setdefault(day, []).append(candidate)
    return entries
