"""The notes a question names by an alias, looked up in the store.

:mod:`notecite.retrieve.aliases` reads aliases in a question; :class:`AliasLookup` asks the
store which aliases the notes have and which notes the question's aliases name: those are
read first ("my manager" of the note whose ``aliases`` say so, :meth:`AliasLookup.named_first`),
and a question that asks who someone is reads each alias it says with its note's title
(:meth:`AliasLookup.named_notes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from notecite.errors import StoreError
from notecite.filters import Condition, Op
from notecite.generate.base import Owners
from notecite.retrieve.aliases import (
    ALIAS_KEYS,
    asks_who,
    best_of_notes,
    carries_alias,
    named_notes,
    notes_named,
    said_aliases,
)
from notecite.retrieve.folders import Scope
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.scope_notes import ScopeNotes
from notecite.schemas.ask import DebugInfo
from notecite.store.base import FrontmatterFacets, Store
from notecite.types import Vault

ALIAS_NAMED_AT_MOST = 3
"""The most notes one question's aliases name that are read first."""


@dataclass(frozen=True)
class AliasNamed:
    """The kept candidates with the notes a question names by an alias first.

    Attributes:
        kept: the candidates kept for the context, those of the named notes first.
        notes: (vault, path) of each note the question names by an alias.
        owners: those of them it names as an owner ("my manager's birthday"); None when it
            names none so.
    """

    kept: list[Candidate]
    notes: frozenset[tuple[str, str]] = frozenset()
    owners: Owners | None = None


class AliasLookup:
    """Looks up in ``store`` the notes of ``vaults`` a question names by an alias; the notes
    it reads first are those of ``scope_notes`` (the request's folders and filters)."""

    def __init__(self, store: Store, vaults: Sequence[Vault], scope_notes: ScopeNotes) -> None:
        self._store = store
        self._vaults = list(vaults)
        self._scope_notes = scope_notes

    def named_first(
        self,
        question: str,
        scopes: Sequence[Scope],
        candidates: Sequence[Candidate],
        kept: list[Candidate],
        k: int,
        debug: DebugInfo,
    ) -> AliasNamed:
        """``kept`` with the notes ``question`` names by an alias first ("my manager" of the
        note whose ``aliases`` say so): each note's best-ranked candidate, or its first chunk
        when no candidate is of it; as many as ``kept`` (at least one, at most ``k``: a note
        the question names is kept even when nothing else passed the thresholds)."""
        if not isinstance(self._store, FrontmatterFacets):
            return AliasNamed(kept)
        ids = [v.id for v in self._vaults]
        try:
            facets = self._store.frontmatter_facets(ids, list(ALIAS_KEYS))
            said = said_aliases(question, [a for key in ALIAS_KEYS for a in facets[key]])
            if not said:
                return AliasNamed(kept)
            rowids: list[int] = []
            for key in ALIAS_KEYS:  # within the folders and filters the request gives
                named = Condition(key, Op.IN, tuple(said))
                rowids.extend(self._scope_notes.first_chunks(scopes, ALIAS_NAMED_AT_MOST, named))
            chunks = self._store.fetch_chunks(rowids)
            fields = self._store.chunk_fields(list(chunks), list(ALIAS_KEYS))
        except StoreError:
            return AliasNamed(kept)
        naming = notes_named(question, said, chunks, fields)
        notes = set(naming.notes)
        owners: Owners | None = None
        if naming.owners:  # "my manager's birthday": only the named note's lines answer it
            owners = Owners(naming.owners)
            debug.notes.append(
                "the question asks what a note it names holds ("
                + ", ".join(f"{alias!r}'s" for alias in naming.owning)
                + "): only that note's lines support the answer"
            )
        if not notes or (kept and (kept[0].chunk.vault, kept[0].chunk.rel_path) in notes):
            return AliasNamed(kept, naming.notes, owners)
        if kept and carries_alias(said, kept[0].chunk.rel_path, kept[0].chunk.title):
            # "Who was at the PG16 kickoff?": the best-ranked note bears the name too
            return AliasNamed(kept, naming.notes, owners)
        ahead = best_of_notes(notes, candidates, chunks)
        shown = ", ".join(f"{c.chunk.vault}/{c.chunk.rel_path}" for c in ahead)
        said_as = ", ".join(repr(a) for a in said)
        debug.notes.append(
            f"the question names a note by its alias ({said_as}): {shown} read first"
        )
        taken = {c.rowid for c in ahead}
        first = [*ahead, *(c for c in kept if c.rowid not in taken)][: max(len(kept), 1, k)]
        return AliasNamed(first, naming.notes, owners)

    def named_notes(
        self, question: str, kept: Sequence[Candidate], debug: DebugInfo
    ) -> dict[str, str]:
        """Each alias of a note of ``kept`` that ``question`` says -> the note's title (only
        a question that asks who someone is is read so: no store call for any other)."""
        if not asks_who(question) or not isinstance(self._store, FrontmatterFacets):
            return {}
        firsts: dict[tuple[str, str], Candidate] = {}
        for c in kept:
            firsts.setdefault((c.chunk.vault, c.chunk.rel_path), c)
        try:
            fields = self._store.chunk_fields([c.rowid for c in firsts.values()], ALIAS_KEYS)
        except StoreError:
            return {}
        notes = [
            (c.chunk.title, [v for key in ALIAS_KEYS for v in fields.get(c.rowid, {}).get(key, [])])
            for c in firsts.values()
        ]
        named = named_notes(question, notes)
        if named:
            said = ", ".join(f"{alias!r} as {title!r}" for alias, title in named.items())
            debug.notes.append(f"the question names notes by their aliases: {said}")
        return named
