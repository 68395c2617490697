"""Full-text ranking every store must share: BM25 as SQLite's FTS5 computes it.

Mixed into each store's contract test class (which provides the ``store`` fixture).
"""

from __future__ import annotations

from pathlib import Path

from notecite.store.base import Store
from notecite.types import SearchFilter
from tests.store.contract import make_chunk, make_record

RELEASE_GUIDE = (
    "To publish a new release, bump the version in the package manifest, write the "
    "changelog entry, tag the commit and push the tag; the workflow then builds the "
    "extension and publishes it to the marketplace. Foam maintainers review the draft "
    "release notes before the workflow runs, and the published package is checked once "
    "it is live."
)


class RankingContract:
    """BM25 with inverse document frequency and length normalisation."""

    def test_a_near_empty_chunk_sharing_a_common_term_does_not_outrank_the_rare_terms(
        self, store: Store, tmp_path: Path
    ) -> None:
        vault = store.add_vault("foam", tmp_path / "foam")
        # A contributor table: dozens of chunks that say little more than "Foam" and a name.
        table = [
            make_chunk("index.md", i, f"Foam contributor {name}", heading_path="# Foam")
            for i, name in enumerate(f"person{n:02d}" for n in range(40))
        ]
        store.replace_note(make_record(vault, "index.md", title="Foam"), table)
        guide = make_chunk("releasing.md", 0, RELEASE_GUIDE, heading_path="# Releasing")
        store.replace_note(make_record(vault, "releasing.md", title="Releasing"), [guide])
        hits = store.lexical_search("How is a new Foam release published?", SearchFilter(), 5)
        found = store.fetch_chunks([h.chunk_rowid for h in hits])
        assert found[hits[0].chunk_rowid].rel_path == "releasing.md"
        # Every contributor chunk scores far below the guide: "foam" is in every chunk.
        assert all(h.score < hits[0].score / 10 for h in hits[1:])

    def test_words_joined_by_punctuation_are_words_of_their_own(
        self, store: Store, tmp_path: Path
    ) -> None:
        vault = store.add_vault("v", tmp_path / "v")
        setting = "Set foam.openDailyNote.filenameFormat to yyyy-mm-dd for daily notes."
        others = [make_chunk("other.md", i, f"Foam daily note {i}") for i in range(5)]
        store.replace_note(make_record(vault, "other.md"), others)
        store.replace_note(
            make_record(vault, "settings.md"), [make_chunk("settings.md", 0, setting)]
        )
        hits = store.lexical_search("foam.openDailyNote.filenameFormat", SearchFilter(), 5)
        found = store.fetch_chunks([h.chunk_rowid for h in hits])
        assert found[hits[0].chunk_rowid].rel_path == "settings.md"
        (only,) = store.lexical_search("filenameFormat", SearchFilter(), 5)
        assert only.chunk_rowid == hits[0].chunk_rowid

    def test_document_frequencies_follow_deletes(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path / "v")
        common = [make_chunk(f"n{i}.md", 0, f"zebra filler text {i}") for i in range(8)]
        for i, chunk in enumerate(common):
            store.replace_note(make_record(vault, f"n{i}.md"), [chunk])
        store.replace_note(
            make_record(vault, "target.md"), [make_chunk("target.md", 0, "zebra okapi")]
        )
        # Zebra is in every chunk: its IDF is the floor, 1e-6.
        before = max(h.score for h in store.lexical_search("zebra", SearchFilter(), 20))
        # Once the filler notes are gone and unrelated chunks came, it is in 1 chunk of 9.
        store.delete_notes(vault.id, [f"n{i}.md" for i in range(8)])
        store.replace_note(
            make_record(vault, "others.md"),
            [make_chunk("others.md", i, f"unrelated words {i}") for i in range(8)],
        )
        (after,) = store.lexical_search("zebra", SearchFilter(), 20)
        assert after.score > 1000 * before

    def test_stop_words_count_in_a_chunks_length_and_a_question_of_them_finds_them(
        self, store: Store, tmp_path: Path
    ) -> None:
        vault = store.add_vault("v", tmp_path / "v")
        # The same two content words; the second chunk is longer only by its stop words.
        short = make_chunk("short.md", 0, "orbital mechanics")
        padded = make_chunk("padded.md", 0, "the orbital mechanics of it are what they are")
        store.replace_note(make_record(vault, "short.md"), [short])
        store.replace_note(make_record(vault, "padded.md"), [padded])
        store.replace_note(make_record(vault, "x.md"), [make_chunk("x.md", 0, "unrelated")])
        hits = store.lexical_search("orbital mechanics", SearchFilter(), 5)
        found = store.fetch_chunks([h.chunk_rowid for h in hits])
        assert [found[h.chunk_rowid].rel_path for h in hits] == ["short.md", "padded.md"]
        assert hits[0].score > hits[1].score
        # A question of stop words only looks them up (every word is indexed).
        (only,) = store.lexical_search("what are", SearchFilter(), 5)
        assert only.chunk_rowid == hits[1].chunk_rowid
        assert store.mentions(["of it are"], SearchFilter()) == {"of it are"}
        assert store.mentions(["it of are"], SearchFilter()) == set()

    def test_words_stem_as_porter_stems_them(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path / "v")
        # Porter stems "generalization" and "generic" alike (gener), Snowball's English
        # stemmer does not (general, generic); two-letter words are not stemmed ("us").
        texts = ["generalization of rules", "generic rules", "us rules", "u rules"]
        for i, text in enumerate(texts):
            store.replace_note(make_record(vault, f"n{i}.md"), [make_chunk(f"n{i}.md", 0, text)])
        paths = {}
        for query in ("generic", "us"):
            hits = store.lexical_search(query, SearchFilter(), 5)
            found = store.fetch_chunks([h.chunk_rowid for h in hits])
            paths[query] = sorted(found[h.chunk_rowid].rel_path for h in hits)
        assert paths == {"generic": ["n0.md", "n1.md"], "us": ["n2.md"]}
