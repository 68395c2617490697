"""The notes of a request's scope, newest first, found without a search.

A question that asks only for the notes of its scope gets them listed
(:mod:`notecite.retrieve.listing`); a question that could not be embedded and matched no
keyword gets the most recent notes as its context; a note a question names by an alias is
found among them (:mod:`notecite.retrieve.alias_lookup`). :class:`ScopeNotes` finds them
all the same way: the first chunk of each most recent note of each scope, within the
request's frontmatter filters. A question that asks only for what is still to do gets the
chunks holding the scope's open tasks (:mod:`notecite.retrieve.tasks`); one that asks which
notes link to a note gets the chunks holding those links (:mod:`notecite.retrieve.backlinks`);
one that asks which notes mention something gets the chunks that first hold its words
(:mod:`notecite.retrieve.mentioning`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from notecite.filters import Condition, Op
from notecite.ingest.indexer import records_links
from notecite.retrieve.aliases import ALIAS_KEYS
from notecite.retrieve.backlinks import (
    LINK_LINES_AT_MOST,
    LINKS_LISTED_AT_MOST,
    TARGETS_TRIED_AT_MOST,
    LinkedTo,
    linked_by,
    target_names,
)
from notecite.retrieve.due_window import DueWindow
from notecite.retrieve.folders import Scope, resolve_user_folder
from notecite.retrieve.listing import LISTED_AT_MOST, Listing, scope_words
from notecite.retrieve.mentioning import (
    MENTION_CHUNKS_AT_MOST,
    MENTIONS_LISTED_AT_MOST,
    first_mention,
)
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.task_dates import dated_open_tasks
from notecite.retrieve.tasks import (
    TASK_CHUNKS_AT_MOST,
    TASK_MARKS,
    TASKS_LISTED_AT_MOST,
    mentions_owner,
    open_tasks,
)
from notecite.retrieve.timehints import TimeRange
from notecite.store.base import FrontmatterFacets, LinkingLine, Store, StoredChunk
from notecite.types import SearchFilter, Vault

LISTING_COUNT_LIMIT = 10_000
"""The most notes of a scope a listing counts."""

_NO_DATE = datetime(1970, 1, 1, tzinfo=UTC)


def _newest_first(
    chunks: Sequence[StoredChunk], owners: Sequence[str]
) -> tuple[list[StoredChunk], int]:
    """Of ``chunks`` (newest notes first), those holding the first
    :data:`~notecite.retrieve.tasks.TASKS_LISTED_AT_MOST` open tasks that name one of
    ``owners`` (any, when empty), and how many such tasks they all hold."""
    counted = [
        (chunk, sum(mentions_owner(t.text, owners) for t in open_tasks(chunk.text)))
        for chunk in chunks
    ]
    counted = [(chunk, n) for chunk, n in counted if n]
    kept: list[StoredChunk] = []
    listed = 0
    for chunk, n in counted:
        if listed >= TASKS_LISTED_AT_MOST:
            break
        kept.append(chunk)
        listed += n
    return kept, sum(n for _, n in counted)


def _due_first(
    chunks: Sequence[StoredChunk], owners: Sequence[str], window: DueWindow
) -> tuple[list[StoredChunk], int]:
    """Of ``chunks`` (newest notes first), those holding the first
    :data:`~notecite.retrieve.tasks.TASKS_LISTED_AT_MOST` open tasks dated within ``window``
    that name one of ``owners`` (any, when empty), by date, then newest note, and how many
    such tasks they all hold. With none, the chunk of the dated task nearest the window
    (:meth:`~notecite.retrieve.due_window.DueWindow.nearest`), which the answer names
    instead; no chunk when no such task has a date."""
    dated = [
        (t.date, position)
        for position, chunk in enumerate(chunks)
        for t in dated_open_tasks(chunk.text)
        if mentions_owner(t.task.text, owners)
    ]
    within = sorted((when.day, position) for when, position in dated if window.holds(when))
    if within:
        listed = {position for _, position in within[:TASKS_LISTED_AT_MOST]}
        return [chunks[position] for position in sorted(listed)], len(within)
    nearest = window.nearest(when.day for when, _ in dated)
    if nearest is None:
        return [], 0
    return [chunks[min(position for when, position in dated if when.day == nearest)]], 0


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
        said = scope_words(self._conditions, labels)
        return notes, Listing(said or f"in {' and '.join(v.name for v in self._vaults)}", total)

    def open_tasks(
        self,
        folders: Sequence[str],
        owners: Sequence[str] = (),
        window: DueWindow | None = None,
    ) -> tuple[list[Candidate], Listing]:
        """The chunks holding the first :data:`~notecite.retrieve.tasks.TASKS_LISTED_AT_MOST`
        open tasks of the request's scope (its ``folders``, else each vault whole; only those
        that name one of ``owners``, when it gives any), newest notes first, and the scope in
        words with how many such tasks it holds. With a ``window``
        (:mod:`~notecite.retrieve.due_window`), only the tasks dated within it are listed and
        counted, the first by date (:func:`_due_first`)."""
        scopes = self.scopes(folders)
        chunks = self._task_chunks(scopes)
        if window is None:
            held, total = _newest_first(chunks, owners)
        else:
            held, total = _due_first(chunks, owners, window)
        labels = [s.label for s in scopes if s.folder]
        said = scope_words(self._conditions, labels)
        if owners:
            said = " ".join([f"for {' and '.join(name.title() for name in owners)}", said])
        listing = Listing(said.strip(), total, tasks=True, owners=tuple(owners), due=window)
        return [Candidate.unscored(c) for c in held], listing

    def _task_chunks(self, scopes: Sequence[Scope]) -> list[StoredChunk]:
        """The chunks of ``scopes`` that hold a task's mark (at most
        :data:`~notecite.retrieve.tasks.TASK_CHUNKS_AT_MOST` a scope), newest notes first."""
        rowids: list[int] = []
        for scope in scopes:
            held = self._store.chunks_holding(TASK_MARKS, self._filter(scope), TASK_CHUNKS_AT_MOST)
            rowids.extend(r for r in held if r not in rowids)
        chunks = self._store.fetch_chunks(rowids)
        found = [chunks[r] for r in rowids if r in chunks]
        found.sort(key=lambda chunk: -(chunk.note_date or _NO_DATE).timestamp())
        return found

    def mentioning(self, folders: Sequence[str], thing: str) -> tuple[list[Candidate], Listing]:
        """The chunk holding the first line that mentions ``thing``
        (:func:`~notecite.retrieve.mentioning.first_mention`) of each note of the request's
        scope (its ``folders``, else each vault whole) that holds it, newest notes first, at
        most :data:`~notecite.retrieve.mentioning.MENTIONS_LISTED_AT_MOST`, and the scope in
        words with how many notes mention it."""
        scopes = self.scopes(folders)
        rowids: dict[int, None] = {}
        for scope in scopes:
            flt = self._filter(scope)
            rowids.update(
                dict.fromkeys(self._store.chunks_mentioning(thing, flt, MENTION_CHUNKS_AT_MOST))
            )
        chunks = self._store.fetch_chunks(list(rowids))
        first: dict[tuple[str, str], StoredChunk] = {}
        for rowid in rowids:  # each note's chunks come in note order
            chunk = chunks.get(rowid)
            if chunk is None or (chunk.vault, chunk.rel_path) in first:
                continue
            if first_mention(chunk.text, thing) is not None:
                first[(chunk.vault, chunk.rel_path)] = chunk
        ordered = sorted(first.values(), key=lambda c: -(c.note_date or _NO_DATE).timestamp())
        kept = [Candidate.unscored(c) for c in ordered[:MENTIONS_LISTED_AT_MOST]]
        said = scope_words(self._conditions, [s.label for s in scopes if s.folder])
        return kept, Listing(said, len(ordered), mentioned=thing)

    def dated(self, folders: Sequence[str], period: TimeRange, k: int) -> list[Candidate]:
        """The first chunk of each of the ``k`` most recent notes of the request's scope
        (its ``folders``, else each vault whole) dated within ``period``, newest first."""
        rowids = self.first_chunks(self.scopes(folders), k, period=period)
        chunks = self._store.fetch_chunks(rowids)
        found = [Candidate.unscored(chunks[r]) for r in rowids if r in chunks]
        found.sort(key=lambda c: -(c.chunk.note_date or _NO_DATE).timestamp())
        return found[:k]

    def named(self, said: str) -> StoredChunk | None:
        """The first chunk of the note of the vaults ``said`` names by its file name (a path
        narrows it), title or alias (:func:`~notecite.retrieve.backlinks.target_names`);
        of several, the one with the shortest path; None when none is so named."""
        names = target_names(said)
        if not names:
            return None
        rowids: list[int] = []
        for vault in self._vaults:
            whole = SearchFilter(vault_ids=(vault.id,))
            rowids.extend(self._store.notes_named(names, whole, TARGETS_TRIED_AT_MOST))
            for key in ALIAS_KEYS:
                alias = SearchFilter(
                    vault_ids=(vault.id,), frontmatter=(Condition(key, Op.IN, names),)
                )
                rowids.extend(self._store.recent_chunks(alias, TARGETS_TRIED_AT_MOST))
        chunks = self._store.fetch_chunks(rowids)
        found = [chunks[r] for r in rowids if r in chunks]
        return min(found, key=lambda c: (c.rel_path.count("/"), len(c.rel_path)), default=None)

    def linking(
        self, folders: Sequence[str], target: StoredChunk
    ) -> tuple[list[Candidate], Listing]:
        """The chunk holding the first link of each note of the request's scope (its
        ``folders``, else each vault whole; the note's own vault only) that links to the note
        ``target`` is the first chunk of, newest notes first, at most
        :data:`~notecite.retrieve.backlinks.LINKS_LISTED_AT_MOST`, and the scope in words
        with how many notes link to it; ``target`` alone when none does."""
        aliases: list[str] = []
        if isinstance(self._store, FrontmatterFacets):
            fields = self._store.chunk_fields([target.rowid], ALIAS_KEYS).get(target.rowid, {})
            aliases = [a for key in ALIAS_KEYS for a in fields.get(key, [])]
        names = linked_by(target.rel_path, target.title, aliases)
        vault = next(v for v in self._vaults if v.name == target.vault)
        scopes = [s for s in self.scopes(folders) if s.vault.id == vault.id]
        lines: list[LinkingLine] = []
        for scope in scopes:
            lines.extend(self._store.linking_notes(names, self._filter(scope), LINK_LINES_AT_MOST))
        chunks = self._store.fetch_chunks(list(dict.fromkeys(line.chunk_rowid for line in lines)))
        notes: dict[str, list[tuple[StoredChunk, LinkingLine]]] = {}
        for line in lines:
            chunk = chunks.get(line.chunk_rowid)
            if chunk is not None and chunk.rel_path != target.rel_path:  # not its own links
                notes.setdefault(chunk.rel_path, []).append((chunk, line))
        ordered = sorted(
            notes.values(), key=lambda links: -(links[0][0].note_date or _NO_DATE).timestamp()
        )
        listed = ordered[:LINKS_LISTED_AT_MOST]
        states = self._store.note_states(vault.id).values()
        linked_to = LinkedTo(
            name=" ".join(target.title.split()) or target.rel_path,
            lines=tuple(links[0][1].line for links in listed),
            quotes=tuple(links[0][1].line_text for links in listed),
            links=tuple(len(links) for links in listed),
            unread=sum(1 for s in states if not s.failed and not records_links(s.content_hash)),
        )
        kept = [Candidate.unscored(links[0][0]) for links in listed] or [Candidate.unscored(target)]
        labels = [s.label for s in scopes if s.folder]
        said = scope_words(self._conditions, labels)
        return kept, Listing(said, len(ordered), linked_to=linked_to)
