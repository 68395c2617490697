"""The notes of a request's scope, newest first, found without a search.

A question that asks only for the notes of its scope gets them listed
(:mod:`notecite.retrieve.listing`); a question that could not be embedded and matched no
keyword gets the most recent notes as its context; a note a question names by an alias is
found among them (:mod:`notecite.retrieve.alias_lookup`). :class:`ScopeNotes` finds them
all the same way: the first chunk of each most recent note of each scope, within the
request's frontmatter filters. A question that asks only for what is still to do gets the
chunks holding the scope's open tasks (:mod:`notecite.retrieve.tasks`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from notecite.filters import Condition
from notecite.retrieve.folders import Scope, resolve_user_folder
from notecite.retrieve.listing import LISTED_AT_MOST, Listing, scope_words
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.tasks import (
    TASK_CHUNKS_AT_MOST,
    TASK_MARKS,
    TASKS_LISTED_AT_MOST,
    mentions_owner,
    open_tasks,
)
from notecite.retrieve.timehints import TimeRange
from notecite.store.base import Store
from notecite.types import SearchFilter, Vault

LISTING_COUNT_LIMIT = 10_000
"""The most notes of a scope a listing counts."""

_NO_DATE = datetime(1970, 1, 1, tzinfo=UTC)


class ScopeNotes:
    """Finds in ``store`` the notes of ``vaults`` that meet the request's frontmatter
    ``conditions``, by scope."""

    def __init__(
        self, store: Store, vaults: Sequence[Vault], conditions: Sequence[Condition]
    ) -> None:
        self._store = store
        self._vaults = list(vaults)
        self._conditions = tuple(conditions)

    def scopes(self, folders: Sequence[str]) -> list[Scope]:
        """The request's ``folders`` as scopes, or each vault whole when it gives none."""
        pairs = [p for folder in folders for p in resolve_user_folder(folder, self._vaults)]
        scopes = [Scope(v, f, 1.0) for v, f in dict.fromkeys(pairs)]
        return scopes or [Scope(v, "", 1.0) for v in self._vaults]

    def _filter(
        self, scope: Scope, extra: Sequence[Condition] = (), period: TimeRange | None = None
    ) -> SearchFilter:
        """The notes of ``scope`` that meet the request's conditions and ``extra``, dated
        within ``period`` when one is given."""
        return SearchFilter(
            vault_ids=(scope.vault.id,),
            folders=(scope.folder,) if scope.folder else (),
            since=period.since if period else None,
            until=period.last_moment if period else None,
            frontmatter=(*self._conditions, *extra),
        )

    def first_chunks(
        self,
        scopes: Sequence[Scope],
        limit: int,
        *extra: Condition,
        period: TimeRange | None = None,
    ) -> list[int]:
        """The first chunk of each of the ``limit`` most recent notes of each scope that meet
        the ``extra`` conditions too (and are dated within ``period``, when one is given)."""
        rowids: list[int] = []
        for scope in scopes:
            flt = self._filter(scope, extra, period)
            rowids.extend(r for r in self._store.recent_chunks(flt, limit) if r not in rowids)
        return rowids

    def recent(self, scopes: Sequence[Scope], k: int) -> list[Candidate]:
        """The first chunk of each of the ``k`` most recent notes over the scopes."""
        rowids = self.first_chunks(scopes, k)
        chunks = self._store.fetch_chunks(rowids)
        found = [Candidate.unscored(chunks[r]) for r in rowids if r in chunks]
        found.sort(key=lambda c: c.chunk.note_date.timestamp() if c.chunk.note_date else 0.0)
        return list(reversed(found))[:k]

    def listing(self, folders: Sequence[str]) -> tuple[list[Candidate], Listing]:
        """The first chunk of each of the :data:`~notecite.retrieve.listing.LISTED_AT_MOST`
        most recent notes of the request's scope (its ``folders``, else each vault whole),
        newest first, and the scope in words with how many notes it holds."""
        scopes = self.scopes(folders)
        total = len(self.first_chunks(scopes, LISTING_COUNT_LIMIT))
        notes = self.recent(scopes, LISTED_AT_MOST)
        labels = [s.label for s in scopes if s.folder]
        return notes, Listing(scope_words(self._conditions, labels), total)

    def open_tasks(
        self, folders: Sequence[str], owners: Sequence[str] = ()
    ) -> tuple[list[Candidate], Listing]:
        """The chunks holding the first :data:`~notecite.retrieve.tasks.TASKS_LISTED_AT_MOST`
        open tasks of the request's scope (its ``folders``, else each vault whole; only those
        that name one of ``owners``, when it gives any), newest notes first, and the scope in
        words with how many such tasks it holds."""
        scopes = self.scopes(folders)
        rowids: list[int] = []
        for scope in scopes:
            held = self._store.chunks_holding(TASK_MARKS, self._filter(scope), TASK_CHUNKS_AT_MOST)
            rowids.extend(r for r in held if r not in rowids)
        chunks = self._store.fetch_chunks(rowids)
        counted = [
            (chunks[r], sum(mentions_owner(t.text, owners) for t in open_tasks(chunks[r].text)))
            for r in rowids
            if r in chunks
        ]
        counted = [(chunk, n) for chunk, n in counted if n]
        counted.sort(key=lambda item: -(item[0].note_date or _NO_DATE).timestamp())
        kept: list[Candidate] = []
        listed = 0
        for chunk, n in counted:
            if listed >= TASKS_LISTED_AT_MOST:
                break
            kept.append(Candidate.unscored(chunk))
            listed += n
        labels = [s.label for s in scopes if s.folder]
        total = sum(n for _, n in counted)
        said = scope_words(self._conditions, labels)
        if owners:
            said = " ".join([f"for {' and '.join(name.title() for name in owners)}", said])
        return kept, Listing(said.strip(), total, tasks=True, owners=tuple(owners))

    def dated(self, folders: Sequence[str], period: TimeRange, k: int) -> list[Candidate]:
        """The first chunk of each of the ``k`` most recent notes of the request's scope
        (its ``folders``, else each vault whole) dated within ``period``, newest first."""
        rowids = self.first_chunks(self.scopes(folders), k, period=period)
        chunks = self._store.fetch_chunks(rowids)
        found = [Candidate.unscored(chunks[r]) for r in rowids if r in chunks]
        found.sort(key=lambda c: -(c.chunk.note_date or _NO_DATE).timestamp())
        return found[:k]
