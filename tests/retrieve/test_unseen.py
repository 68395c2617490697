"""Salient terms the kept chunks do not hold: a form of the word counts as holding it."""

from __future__ import annotations

from notecite.retrieve.mentions import unseen
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.salient import MissingTerms
from notecite.store.base import StoredChunk


def kept(text: str, rel_path: str = "a.md", title: str = "", heading: str = "") -> list[Candidate]:
    """One kept chunk of ``text``, shown under that file name, title and heading path."""
    chunk = StoredChunk(1, "c1", "v", rel_path, "", title, heading, 0, text, 1, 1, None, None)
    return [Candidate(1, chunk, 0.5, 0.0, 1.0, gate=0.5, final=0.5)]


def test_a_form_of_a_name_is_held_but_another_name_is_not() -> None:
    missing = MissingTerms(salient=("Palestine", "Israel", "v0.55"), not_in_vaults=())
    found = unseen(missing, kept("The Palestinian delegation met in 0.55."))
    assert found.not_in_context == ("Israel",)


def test_a_term_in_the_title_file_name_or_heading_the_context_shows_is_held() -> None:
    missing = MissingTerms(salient=("CLI", "Quartz", "GitHub"), not_in_vaults=())
    text = "Run `git push` on all vaults inside workspace"
    by_title = kept(text, "dendron.topic.workspace.md", "Workspace CLI", "Usage > push")
    assert unseen(missing, by_title).not_in_context == ("Quartz", "GitHub")
    by_path = kept(text, "tools/cli.md", heading="Usage")
    assert unseen(missing, by_path).not_in_context == ("Quartz", "GitHub")
    by_heading = kept(text, heading="Publishing > GitHub Pages")
    assert unseen(missing, by_heading).not_in_context == ("CLI", "Quartz")
    # a folder is not always shown, nor the extension: tools/x.md holds neither
    folder = unseen(
        MissingTerms(salient=("tools", "MD"), not_in_vaults=()), kept(text, "tools/x.md")
    )
    assert folder.not_in_context == ("tools", "MD")


def test_a_term_is_held_where_a_word_or_a_camel_case_part_starts_not_inside_a_word() -> None:
    missing = MissingTerms(salient=("iOS", "Mac", "TeX", "Git", "AWS"), not_in_vaults=())
    inside = kept("Scenarios on the tarmac, a vortex, legit draws.")
    assert unseen(missing, inside).not_in_context == missing.salient
    starts = kept("On macOS, KaTeX renders math and GitHub hosts the repo; AWS-hosted too.")
    assert unseen(missing, starts).not_in_context == ("iOS",)


def test_a_name_typed_without_its_accents_is_held_where_the_notes_write_them() -> None:
    missing = MissingTerms(salient=("Ogedei", "Jose", "Zoe", "Muller"), not_in_vaults=())
    text = "Töregene Khatun, Ögedei's wife, met José and Zoë in Besançon."
    assert unseen(missing, kept(text)).not_in_context == ("Muller",)
    # and the other way round: a question with accents, a note without them
    typed = MissingTerms(salient=("Ögedei", "Müller"), not_in_vaults=())
    assert unseen(typed, kept("Ogedei met Mr Muller.")).not_in_context == ()
