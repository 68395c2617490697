"""A misspelt word is searched as the word the notes hold, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from notecite.testing import EngineFactory

NOTES = {
    "templates.md": "# Templates\n\nA template fills a new note with its first lines.\n",
    "sync.md": "# Sync\n\nThe sync command pushes every vault to the remote.\n",
    "daily.md": "# Daily\n\nThe daily note opens with the date as its title.\n",
}


def test_search_reads_a_misspelt_word_as_the_notes_word(
    notecite_engines: EngineFactory, store_options: dict[str, str]
) -> None:
    engine = notecite_engines(vaults={"notes": NOTES}, store=store_options)
    found = engine.search("tempalte", vaults=["notes"], k=3)
    assert found
    assert found[0].rel_path == "templates.md"
    assert found[0].score_bm25 > 0  # found by its word, not only by a near vector
