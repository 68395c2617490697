"""Which terms of a question the notes mention, and which the context leaves out.

:class:`MentionLookup` asks the store which terms some note of the searched vaults holds (one
full-text lookup each time), and which salient terms of a question no note holds or no
chunk kept for the context holds (:class:`~notecite.retrieve.salient.MissingTerms`): "your
notes don't mention X" and the absent-terms hint are written from them. A term counts as
held where a word starts with it, in its text or in the name, title and headings the context
shows a chunk under (:func:`unseen`), or as a tag or an alias of a kept note.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from notecite.errors import StoreError
from notecite.retrieve.aliases import ALIAS_KEYS
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.salient import MissingTerms, name_groups, salient_terms, variants
from notecite.retrieve.terms import fold, stem, tokenize
from notecite.spelling import spellings
from notecite.store.base import FrontmatterFacets, Store, StoredChunk
from notecite.types import SearchFilter, Vault

NAMING_KEYS = ("tags", "tag", *ALIAS_KEYS)
"""Frontmatter keys whose values name what a note is about: a question's term among them is
not absent from a context that holds the note."""


class MentionLookup:
    """Looks up in ``store`` which terms the notes of ``vaults`` mention."""

    def __init__(self, store: Store, vaults: Sequence[Vault]) -> None:
        self._store = store
        self._everywhere = SearchFilter(vault_ids=tuple(v.id for v in vaults))

    def mentioned(
        self, terms: Sequence[str], forms: Callable[[str], Sequence[str]] = spellings
    ) -> set[str]:
        """The ``terms`` that some note of the vaults holds in any of its ``forms`` (by
        default either spelling: a note that says "color" holds the question's "colour"), in
        one full-text lookup.

        Raises:
            StoreError: the store could not be asked.
        """
        asked = {term: forms(term) for term in terms}
        found = self._store.mentions(
            [form for each in asked.values() for form in each], self._everywhere
        )
        return {term for term, each in asked.items() if any(f in found for f in each)}

    def missing(self, question: str, kept: Sequence[Candidate]) -> MissingTerms:
        """Salient terms of ``question`` that no chunk of the vaults holds (one full-text
        lookup), and those that ``kept`` does not hold (see :meth:`unseen_named`)."""
        salient = salient_terms(question)
        if not salient:
            return MissingTerms()
        try:
            found = self.mentioned(salient, variants)
        except StoreError:
            return MissingTerms(tuple(salient))
        absent = tuple(t for t in salient if t not in found)
        names = name_groups(question, salient)
        return self.unseen_named(MissingTerms(tuple(salient), absent, names=names), kept)

    def unseen_named(self, missing: MissingTerms, kept: Sequence[Candidate]) -> MissingTerms:
        """:func:`unseen`, less the terms a note of ``kept`` has as a tag or an alias (a
        trip log tagged ``denmark`` is about Denmark, though its text says Copenhagen)."""
        found = unseen(missing, kept)
        if not found.not_in_context:
            return found
        named = fold(" ".join(self._named_by(kept)))
        not_named = tuple(t for t in found.not_in_context if not _held_in(t, named))
        return replace(found, not_in_context=not_named)

    def theirs(self, names: Sequence[str]) -> list[str]:
        """The ``names`` (written after "my note", "a folder", ...) that no note of the
        vaults holds: the asker's own, not the product's ("a file `settings.json`")."""
        if not names:
            return []
        bare = {name: name.strip("`\"'\u201c\u201d\u2018\u2019[]") for name in names}
        try:
            held = self.mentioned([b for b in bare.values() if b], variants)
        except StoreError:
            return []
        return [name for name, b in bare.items() if b and b not in held]

    def _named_by(self, kept: Sequence[Candidate]) -> list[str]:
        """The tags and aliases of the notes of ``kept`` (none where the store cannot say)."""
        if not isinstance(self._store, FrontmatterFacets):
            return []
        try:
            fields = self._store.chunk_fields([c.rowid for c in kept], list(NAMING_KEYS))
        except StoreError:
            return []
        return [value for by_key in fields.values() for each in by_key.values() for value in each]


def unseen(missing: MissingTerms, kept: Sequence[Candidate]) -> MissingTerms:
    """``missing`` with ``not_in_context`` set to the salient terms in the vaults that no
    chunk of ``kept`` holds, in its text or in the name, title and headings the context
    shows it under (a note titled "Workspace CLI" mentions the CLI)."""
    context = fold(" ".join(" ".join(_shown_text(c.chunk).split()) for c in kept))
    not_held = [
        t for t in missing.salient if t not in missing.not_in_vaults and not _held_in(t, context)
    ]
    if not_held:  # the context's words are stemmed only when a term is not there as written
        stems = {stem(word) for word in tokenize(context)}
        not_held = [t for t in not_held if not _same_word_held(t, stems)]
    return replace(missing, not_in_context=tuple(not_held))


def _shown_text(chunk: StoredChunk) -> str:
    """What the context shows of ``chunk``: its note's file name without its extension (as
    written, and with its separators read as spaces; the header always shows it, its folders
    only at times), title and heading path, then its text."""
    name = PurePosixPath(chunk.rel_path).stem
    spaced = re.sub(r"[._-]+", " ", name)
    return "\n".join((name, spaced, chunk.title, chunk.heading_path, chunk.text))


def _held_in(term: str, text: str) -> bool:
    """Does ``text`` (without accents) hold ``term`` in one of its :func:`variants`, where a
    word starts (:func:`_starts_a_word`)?"""
    return any(_starts_a_word(" ".join(v.split()), text) for v in variants(term))


def _starts_a_word(form: str, text: str) -> bool:
    """Does ``text`` hold ``form`` (in any case) where a word or a part of a CamelCase word
    starts: "mac" in "macOS", "Git" in "GitHub", "TeX" in "KaTeX", but not "ios" in
    "scenarios" or "aws" in "draws". (A word that only starts like the term holds it too,
    "Mac" in "machine": a form the notes write with an ending is held the same way.)
    ``text`` comes without accents (:func:`~notecite.retrieve.terms.fold`), and ``form``'s do
    not count: "Ogedei" is in "Ögedei's"."""
    form = fold(form)
    for found in re.finditer(re.escape(form), text, re.IGNORECASE):
        start = found.start()
        before = text[start - 1] if start else " "
        if not before.isalnum() or (before.islower() and text[start].isupper()):
            return True
    return False


def _same_word_held(term: str, stems: set[str]) -> bool:
    """Does the text hold a form of the one-word ``term`` ("Palestinian" for "Palestine",
    "Germans" for "German"): a word of it that starts with the term's stem?"""
    if not term.isalpha():
        return False
    root = stem(term.lower())
    return len(root) >= 5 and any(held.startswith(root) for held in stems)
