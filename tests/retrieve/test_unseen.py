"""Salient terms the kept chunks do not hold: a form of the word counts as holding it."""

from __future__ import annotations

from notecite.retrieve.retriever import Candidate
from notecite.retrieve.salient import MissingTerms
from notecite.retrieve.stage import RetrievalStage
from notecite.store.base import StoredChunk


def kept(text: str) -> list[Candidate]:
    chunk = StoredChunk(1, "c1", "v", "a.md", "", "", "", 0, text, 1, 1, None, None)
    return [Candidate(1, chunk, 0.5, 0.0, 1.0, gate=0.5, final=0.5)]


def test_a_form_of_a_name_is_held_but_another_name_is_not() -> None:
    missing = MissingTerms(salient=("Palestine", "Israel", "v0.55"), not_in_vaults=())
    unseen = RetrievalStage._unseen(missing, kept("The Palestinian delegation met in 0.55."))
    assert unseen.not_in_context == ("Israel",)
