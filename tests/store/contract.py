"""The Store contract, written once and run against every store implementation.

A subclass provides ``store_factory``: a callable that opens (or re-opens) one and the same
empty database each time it is called within a test. A write the database rejects raises
:class:`~notecite.errors.StoreError` in every store, chained to the driver's error.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from notecite.embed.base import Vectors
from notecite.errors import StoreError, VaultError
from notecite.store.base import NoteState, Store
from notecite.types import Chunk, ChunkHit, NoteRecord, SearchFilter, Vault

StoreFactory = Callable[[], Store]
MODEL = "test-model"
DIMS = 4


def unit(*values: float) -> Vectors:
    vec = np.asarray(values, dtype=np.float32)
    return (vec / np.linalg.norm(vec)).astype(np.float32)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def make_chunk(rel_path: str, index: int, text: str, heading_path: str = "# H") -> Chunk:
    return Chunk(
        chunk_id=hashlib.sha256(f"{rel_path}\0{index}\0{text}".encode()).hexdigest()[:24],
        chunk_index=index,
        heading_path=heading_path,
        text=text,
        embed_text=text,
        line_start=index + 1,
        line_end=index + 1,
        token_count=len(text.split()),
        content_hash=text_hash(text),
    )


def make_record(
    vault: Vault,
    rel_path: str,
    *,
    title: str = "",
    when: datetime | None = None,
    content_hash: str = "h",
    size: int = 10,
    mtime_ns: int = 1,
    frontmatter: dict[str, Any] | None = None,
) -> NoteRecord:
    folder = Path(rel_path).parent.as_posix()
    return NoteRecord(
        vault_id=vault.id,
        rel_path=rel_path,
        folder="" if folder == "." else folder,
        title=title or Path(rel_path).stem,
        doc_type="markdown",
        note_type="note",
        description="",
        keywords=("k",),
        frontmatter={"nested": {"a": [1, 2]}} if frontmatter is None else frontmatter,
        created=when,
        modified=when,
        content_hash=content_hash,
        size=size,
        mtime_ns=mtime_ns,
    )


# One chunk per note; the vector decides vector-search order for the query (1, 0, 0, 0).
CORPUS: dict[str, tuple[str, str, Vectors, datetime]] = {
    # rel_path: (vault, text, vector, note date)
    "projects/atlas.md": ("main", "atlas budget launch", unit(1, 0.1, 0, 0), datetime(2025, 1, 1)),
    "projects/work/plan.md": ("main", "work plan budget", unit(1, 0.3, 0, 0), datetime(2025, 2, 1)),
    "projects-old/legacy.md": ("main", "legacy budget", unit(1, 0.5, 0, 0), datetime(2025, 3, 1)),
    "root.md": ("main", "root note budget", unit(1, 0.7, 0, 0), datetime(2025, 4, 1)),
    "projects/x.md": ("other", "other vault budget", unit(1, 0.9, 0, 0), datetime(2025, 5, 1)),
}
QUERY = unit(1, 0, 0, 0)


class OpenedStore:
    """The ``store`` fixture of a contract: one store from the test class's ``store_factory``."""

    @pytest.fixture
    def store_factory(self) -> StoreFactory:
        raise NotImplementedError("a store test class provides store_factory")

    @pytest.fixture
    def store(self, store_factory: StoreFactory) -> Iterator[Store]:
        opened = store_factory()
        yield opened
        opened.close()


class StoreContract(OpenedStore):
    """Behaviour every :class:`~notecite.store.base.Store` must have."""

    @pytest.fixture
    def corpus(self, store: Store, tmp_path: Path) -> dict[str, Vault]:
        """Two vaults, five one-chunk notes with embeddings; returns vaults by name."""
        vaults = {name: store.add_vault(name, tmp_path / name) for name in ("main", "other")}
        for rel_path, (vault, text, vector, when) in CORPUS.items():
            chunk = make_chunk(rel_path, 0, text)
            store.replace_note(
                make_record(vaults[vault], rel_path, when=when.replace(tzinfo=UTC)), [chunk]
            )
            store.put_embeddings(MODEL, {chunk.content_hash: vector})
        store.set_embedder_info(MODEL, DIMS)
        return vaults

    @staticmethod
    def paths(store: Store, hits: Sequence[ChunkHit]) -> list[str]:
        found = store.fetch_chunks([h.chunk_rowid for h in hits])
        return [found[h.chunk_rowid].rel_path for h in hits]

    # -- vaults -----------------------------------------------------------------------------

    def test_add_get_list_vaults(self, store: Store, tmp_path: Path) -> None:
        notes = store.add_vault("notes", tmp_path / "n")
        assert notes == Vault(notes.id, "notes", tmp_path / "n", notes.tenant_id)
        store.add_vault("archive", tmp_path / "a")
        assert store.get_vault("notes") == notes
        assert store.get_vault("missing") is None
        assert [v.name for v in store.list_vaults()] == ["archive", "notes"]

    def test_duplicate_vault_name_is_an_error(self, store: Store, tmp_path: Path) -> None:
        store.add_vault("notes", tmp_path / "n")
        with pytest.raises(VaultError, match="exists already"):
            store.add_vault("notes", tmp_path / "other")
        assert len(store.list_vaults()) == 1

    def test_remove_vault_removes_its_notes(self, store: Store, corpus: dict[str, Vault]) -> None:
        store.remove_vault("main")
        assert [v.name for v in store.list_vaults()] == ["other"]
        assert store.note_states(corpus["main"].id) == {}
        assert self.paths(store, store.lexical_search("budget", SearchFilter(), 10)) == [
            "projects/x.md"
        ]
        assert self.paths(store, store.vector_search(MODEL, QUERY, SearchFilter(), 10)) == [
            "projects/x.md"
        ]
        with pytest.raises(VaultError):
            store.remove_vault("main")

    # -- notes ------------------------------------------------------------------------------

    def test_replace_note_then_note_states(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path)
        record = make_record(vault, "a/b.md", content_hash="abc", size=5, mtime_ns=77)
        store.replace_note(record, [make_chunk("a/b.md", 0, "hello")])
        assert store.note_states(vault.id) == {"a/b.md": NoteState("abc", 5, 77, False)}

    def test_replace_note_swaps_all_chunks(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path)
        old = [make_chunk("n.md", i, f"oldword{i} shared") for i in range(3)]
        store.replace_note(make_record(vault, "n.md"), old)
        new = [make_chunk("n.md", 0, "newword shared")]
        store.replace_note(make_record(vault, "n.md", content_hash="h2"), new)
        hits = store.lexical_search("shared", SearchFilter(), 10)
        assert [c.text for c in store.fetch_chunks([h.chunk_rowid for h in hits]).values()] == [
            "newword shared"
        ]
        assert store.lexical_search("oldword0", SearchFilter(), 10) == []
        (status,) = store.vault_status()
        assert (status.notes, status.chunks) == (1, 1)

    def test_replace_note_is_atomic(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path)
        store.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "original text")])
        good = make_chunk("n.md", 0, "replacement text")
        bad = make_chunk("n.md", 1, "x")
        bad = dataclasses.replace(bad, text=None)  # type: ignore[arg-type]  # rejected on purpose
        with pytest.raises(StoreError):
            store.replace_note(make_record(vault, "n.md", content_hash="new"), [good, bad])
        assert store.note_states(vault.id)["n.md"].content_hash == "h"
        hits = store.lexical_search("text", SearchFilter(), 10)
        assert [c.text for c in store.fetch_chunks([h.chunk_rowid for h in hits]).values()] == [
            "original text"
        ]

    def test_a_rejected_write_is_a_chained_store_error_and_changes_nothing(
        self, store: Store, tmp_path: Path
    ) -> None:
        vault = store.add_vault("v", tmp_path)
        store.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "original text")])
        twice = make_chunk("n.md", 0, "one chunk id twice")  # chunk ids are unique
        with pytest.raises(StoreError) as rejected:
            store.replace_note(make_record(vault, "n.md", content_hash="new"), [twice, twice])
        assert rejected.value.__cause__ is not None  # the driver's own error, for --debug
        assert not isinstance(rejected.value.__cause__, StoreError)
        assert store.note_states(vault.id)["n.md"].content_hash == "h"
        store.replace_note(make_record(vault, "n.md", content_hash="new"), [twice])
        assert store.note_states(vault.id)["n.md"].content_hash == "new"

    def test_record_failure_and_recover(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path)
        store.replace_note(make_record(vault, "dir/n.md"), [make_chunk("dir/n.md", 0, "words")])
        store.record_failure(vault.id, "dir/n.md", "invalid YAML frontmatter", 3, 9)
        assert store.note_states(vault.id) == {"dir/n.md": NoteState("", 3, 9, True)}
        (status,) = store.vault_status()
        assert (status.notes, status.chunks) == (0, 0)
        assert [(f.rel_path, f.reason) for f in status.failed] == [
            ("dir/n.md", "invalid YAML frontmatter")
        ]
        assert store.lexical_search("words", SearchFilter(), 10) == []
        store.replace_note(make_record(vault, "dir/n.md"), [make_chunk("dir/n.md", 0, "words")])
        (status,) = store.vault_status()
        assert (status.notes, status.chunks, status.failed) == (1, 1, ())

    def test_touch_note_keeps_the_hash(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path)
        store.replace_note(make_record(vault, "n.md", content_hash="abc"), [])
        store.touch_note(vault.id, "n.md", 42, 999)
        assert store.note_states(vault.id)["n.md"] == NoteState("abc", 42, 999, False)

    def test_delete_notes(self, store: Store, corpus: dict[str, Vault]) -> None:
        store.delete_notes(corpus["main"].id, ["root.md", "projects/atlas.md", "not-there.md"])
        assert sorted(store.note_states(corpus["main"].id)) == [
            "projects-old/legacy.md",
            "projects/work/plan.md",
        ]
        assert "root.md" not in self.paths(
            store, store.vector_search(MODEL, QUERY, SearchFilter(), 10)
        )
        assert store.lexical_search("atlas", SearchFilter(), 10) == []

    def test_folders_of_indexed_notes(self, store: Store, corpus: dict[str, Vault]) -> None:
        main = corpus["main"]
        store.record_failure(main.id, "broken/x.md", "empty file", 0, 0)
        assert store.folders(main.id) == ["", "projects", "projects-old", "projects/work"]
        assert store.folders(corpus["other"].id) == ["projects"]

    def test_vault_status_counts(self, store: Store, corpus: dict[str, Vault]) -> None:
        status = {s.name: s for s in store.vault_status()}
        assert (status["main"].notes, status["main"].chunks) == (4, 4)
        assert (status["other"].notes, status["other"].chunks) == (1, 1)
        assert status["main"].path == str(corpus["main"].path)

    # -- embeddings -------------------------------------------------------------------------

    def test_embedder_info(self, store: Store) -> None:
        assert store.embedder_info() is None
        store.set_embedder_info("m1", 384)
        assert store.embedder_info() == ("m1", 384)

    def test_embeddings_keyed_by_model_and_hash(self, store: Store) -> None:
        hashes = {"h1", "h2", "h3"}
        assert store.missing_embeddings("m1", hashes) == hashes
        store.put_embeddings("m1", {"h1": unit(1, 0, 0, 0), "h2": unit(0, 1, 0, 0)})
        assert store.missing_embeddings("m1", hashes) == {"h3"}
        assert store.missing_embeddings("m2", hashes) == hashes
        assert store.missing_embeddings("m1", []) == set()

    def test_embeddings_outlive_their_chunks(self, store: Store, corpus: dict[str, Vault]) -> None:
        store.delete_notes(corpus["main"].id, ["root.md"])
        assert store.missing_embeddings(MODEL, [text_hash("root note budget")]) == set()

    def test_many_hashes_at_once(self, store: Store) -> None:
        hashes = [f"h{i}" for i in range(1200)]
        store.put_embeddings("m", {h: unit(1, 1, 0, 0) for h in hashes[::2]})
        assert store.missing_embeddings("m", hashes) == set(hashes[1::2])

    def test_clear_index_keeps_vaults(self, store: Store, corpus: dict[str, Vault]) -> None:
        store.clear_index()
        assert store.embedder_info() is None
        assert [v.name for v in store.list_vaults()] == ["main", "other"]
        assert store.note_states(corpus["main"].id) == {}
        assert store.lexical_search("budget", SearchFilter(), 10) == []
        assert store.vector_search(MODEL, QUERY, SearchFilter(), 10) == []

    # -- search -----------------------------------------------------------------------------

    def test_vector_search_ranks_by_cosine(self, store: Store, corpus: dict[str, Vault]) -> None:
        hits = store.vector_search(MODEL, QUERY, SearchFilter(), 10)
        assert self.paths(store, hits) == list(CORPUS)
        expected = [float(v @ QUERY) for _, _, v, _ in CORPUS.values()]
        assert [h.score for h in hits] == pytest.approx(expected, abs=1e-5)
        assert len(store.vector_search(MODEL, QUERY, SearchFilter(), 2)) == 2

    def test_vector_search_only_sees_its_model(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        assert store.vector_search("another-model", QUERY, SearchFilter(), 10) == []

    def test_vector_search_sees_writes(self, store: Store, corpus: dict[str, Vault]) -> None:
        assert len(store.vector_search(MODEL, QUERY, SearchFilter(), 10)) == 5
        chunk = make_chunk("new.md", 0, "fresh budget")
        store.replace_note(make_record(corpus["main"], "new.md"), [chunk])
        store.put_embeddings(MODEL, {chunk.content_hash: unit(1, 0, 0, 0)})
        hits = store.vector_search(MODEL, QUERY, SearchFilter(), 10)
        assert self.paths(store, hits)[0] == "new.md"

    def test_vector_scores_for_rowids(self, store: Store, corpus: dict[str, Vault]) -> None:
        hits = store.vector_search(MODEL, QUERY, SearchFilter(), 10)
        scores = store.vector_scores(MODEL, QUERY, [hits[2].chunk_rowid, 10**9])
        assert scores == {hits[2].chunk_rowid: pytest.approx(hits[2].score)}

    def test_sentence_vectors_mix_into_the_dense_score(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        """A chunk whose second sentence matches the query outranks one that matches a little
        everywhere, once sentence vectors count; its cosine stays its own."""
        two = dataclasses.replace(
            make_chunk("two.md", 0, "Gardening tips. The budget is due in May."),
            sentence_texts=("T\nGardening tips.", "T\nThe budget is due in May."),
        )
        store.replace_note(make_record(corpus["main"], "two.md"), [two])
        garden, budget = two.sentence_hashes
        store.put_embeddings(MODEL, {two.content_hash: unit(1, 1, 0, 0)})
        if store.keeps_sentence_vectors:
            assert store.missing_sentence_vectors(MODEL, [garden, budget]) == {garden, budget}
            store.put_sentence_vectors(
                MODEL, {garden: unit(0, 1, 0, 0), budget: unit(1, 0.05, 0, 0)}
            )
            assert store.missing_sentence_vectors(MODEL, [garden, budget]) == set()
            # Sentence vectors are not chunk vectors: the chunk-vector cache does not list them.
            assert store.missing_embeddings(MODEL, [garden]) == {garden}
        flt = SearchFilter(vault_ids=(corpus["main"].id,))
        plain = store.vector_search(MODEL, QUERY, flt, 10)
        mixed = store.vector_search(MODEL, QUERY, flt, 10, sentence_weight=0.65)
        cosine = float(unit(1, 1, 0, 0) @ QUERY)
        row = next(h.chunk_rowid for h in plain if self.paths(store, [h]) == ["two.md"])
        assert self.paths(store, plain)[-1] == "two.md"
        assert all(h.dense is None for h in plain)
        if not store.keeps_sentence_vectors:
            assert [h.chunk_rowid for h in mixed] == [h.chunk_rowid for h in plain]
            assert store.vector_scores(MODEL, QUERY, [row], 0.65) == {
                row: pytest.approx(cosine, abs=2e-3)
            }
            return
        dense = 0.35 * cosine + 0.65 * float(unit(1, 0.05, 0, 0) @ QUERY)
        plain_order, mixed_order = self.paths(store, plain), self.paths(store, mixed)
        assert plain_order.index("two.md") > plain_order.index("root.md")
        assert mixed_order.index("two.md") < mixed_order.index("root.md")
        two_hit = mixed[mixed_order.index("two.md")]
        assert two_hit.score == pytest.approx(cosine, abs=2e-3)
        assert two_hit.dense == pytest.approx(dense, abs=2e-3)
        # One-chunk notes without sentence vectors keep their cosine as their dense score.
        assert all(h.dense == pytest.approx(h.score, abs=2e-3) for h in mixed if h != two_hit)
        assert store.vector_scores(MODEL, QUERY, [row], 0.65) == {
            row: pytest.approx(dense, abs=2e-3)
        }
        assert store.vector_scores(MODEL, QUERY, [row]) == {row: pytest.approx(cosine, abs=2e-3)}

    def test_lexical_search_bm25_positive_best_first(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        hits = store.lexical_search("atlas launch", SearchFilter(), 10)
        assert self.paths(store, hits) == ["projects/atlas.md"]
        assert hits[0].score > 0
        both = store.lexical_search("legacy budget", SearchFilter(), 10)
        assert self.paths(store, both)[0] == "projects-old/legacy.md"
        assert [h.score for h in both] == sorted((h.score for h in both), reverse=True)

    @pytest.mark.parametrize("query", ['"AND (OR', "NEAR(x y)", "a*", "-budget^", "the of"])
    def test_lexical_search_takes_any_text(
        self, store: Store, corpus: dict[str, Vault], query: str
    ) -> None:
        store.lexical_search(query, SearchFilter(), 10)

    def test_lexical_search_finds_a_word_spelled_the_other_way(
        self, store: Store, tmp_path: Path
    ) -> None:
        vault = store.add_vault("main", tmp_path / "main")
        for rel_path, text in (("graph.md", "node color rules"), ("other.md", "node shapes")):
            store.replace_note(make_record(vault, rel_path), [make_chunk(rel_path, 0, text)])
        hits = store.lexical_search("which colour", SearchFilter(), 10)
        assert self.paths(store, hits) == ["graph.md"]
        store.replace_note(
            make_record(vault, "theme.md"), [make_chunk("theme.md", 0, "customise the theme")]
        )
        hits = store.lexical_search("how to customize", SearchFilter(), 10)
        assert self.paths(store, hits) == ["theme.md"]

    def test_a_word_is_read_without_the_accents_of_its_letters(
        self, store: Store, tmp_path: Path
    ) -> None:
        vault = store.add_vault("main", tmp_path / "main")
        for rel_path, text in (
            ("khans.md", "Ögedei Khan married Töregene in 1220."),
            ("menu.md", "The cafe serves crêpes."),
            ("other.md", "Kublai Khan founded the Yuan dynasty."),
        ):
            store.replace_note(make_record(vault, rel_path), [make_chunk(rel_path, 0, text)])
        for question in ("Who was Ogedei's wife?", "Ögedei", "TOREGENE"):
            assert self.paths(store, store.lexical_search(question, SearchFilter(), 10)) == [
                "khans.md"
            ]
        hits = store.lexical_search("café crepes", SearchFilter(), 10)
        assert self.paths(store, hits) == ["menu.md"]
        wanted = ["Ogedei", "Töregene", "Ogedei Khan", "crepes", "Gengis"]
        assert store.mentions(wanted, SearchFilter()) == set(wanted[:4])

    def test_mentions_are_phrases_found_in_the_filter(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        everywhere = SearchFilter()
        wanted = ["atlas", "Work Plan", "plan work", "budgets", "zeppelin", "?!"]
        assert store.mentions(wanted, everywhere) == {"atlas", "Work Plan", "budgets"}
        other = SearchFilter(vault_ids=(corpus["other"].id,))
        assert store.mentions(["atlas", "other vault"], other) == {"other vault"}
        folder = SearchFilter(folders=("projects-old",))
        assert store.mentions(["legacy", "atlas"], folder) == {"legacy"}

    def test_a_phrase_in_a_frontmatter_value_is_mentioned(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        trip = {"tags": ["travel", "#Denmark"], "aliases": ["Copenhagen June 2025"], "rating": 5}
        store.replace_note(
            make_record(corpus["other"], "trips/cph.md", frontmatter=trip),
            [make_chunk("trips/cph.md", 0, "Owen's 40th, four nights.")],
        )
        wanted = ["Denmark", "copenhagen june", "June 2025", "Denmarks", "mark", "Norway"]
        assert store.mentions(wanted, SearchFilter()) == {"Denmark", "copenhagen june", "June 2025"}
        main = SearchFilter(vault_ids=(corpus["main"].id,))
        assert store.mentions(["Denmark"], main) == set()  # another vault's note says it
        assert store.mentions(["Denmark"], SearchFilter(folders=("trips",))) == {"Denmark"}

    def test_recent_chunks_are_the_newest_notes_first(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        main = SearchFilter(vault_ids=(corpus["main"].id,))
        recent = store.recent_chunks(main, 2)
        found = store.fetch_chunks(recent)
        assert [found[rowid].rel_path for rowid in recent] == [
            "root.md",
            "projects-old/legacy.md",
        ]
        assert store.recent_chunks(main, 0) == []

    def test_chunks_holding_a_mark_newest_notes_first_in_note_order(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        main = corpus["main"]
        for rel_path, day, texts in (
            ("daily/old.md", 1, ["- [ ] ring the plumber", "- [x] paid"]),
            ("daily/new.md", 9, ["intro", "- [ ] buy potatoes", "TODO: fix the gate"]),
            ("daily/todo-word.md", 5, ["a todo in a sentence", "[x] done"]),
        ):
            store.replace_note(
                make_record(main, rel_path, when=datetime(2026, 3, day, tzinfo=UTC)),
                [make_chunk(rel_path, i, text) for i, text in enumerate(texts)],
            )
        flt = SearchFilter(vault_ids=(main.id,))
        rowids = store.chunks_holding(["[ ]", "TODO"], flt, 10)
        found = store.fetch_chunks(rowids)
        assert [found[r].text for r in rowids] == [
            "- [ ] buy potatoes",
            "TODO: fix the gate",
            "- [ ] ring the plumber",
        ]
        assert len(store.chunks_holding(["[ ]", "TODO"], flt, 2)) == 2
        assert store.chunks_holding(["[ ]"], SearchFilter(folders=("projects",)), 10) == []
        assert store.chunks_holding([], flt, 10) == []

    def test_chunks_mentioning_a_phrase_in_any_case_newest_notes_first(
        self, store: Store, corpus: dict[str, Vault]
    ) -> None:
        main = corpus["main"]
        for rel_path, day, title, texts in (
            ("trips/old.md", 1, "Kasia trip", ["Dinner with KASIA.", "pg16-main is up"]),
            ("trips/new.md", 9, "Lisbon", ["intro", "Kasia's flight", "Kasia again"]),
            ("trips/cafe.md", 5, "Café", ["The Café Kasiak opens", "met José"]),
            ("trips/boilers.md", 3, "Home", ["Two boilers were serviced"]),
        ):
            store.replace_note(
                make_record(main, rel_path, title=title, when=datetime(2026, 3, day, tzinfo=UTC)),
                [make_chunk(rel_path, i, text) for i, text in enumerate(texts)],
            )
        flt = SearchFilter(vault_ids=(main.id,))

        def texts(phrase: str, limit: int = 10) -> list[str]:
            rowids = store.chunks_mentioning(phrase, flt, limit)
            found = store.fetch_chunks(rowids)
            return [found[r].text for r in rowids]

        assert texts("kasia") == ["Kasia's flight", "Kasia again", "Dinner with KASIA."]
        assert texts("Kasia", 2) == ["Kasia's flight", "Kasia again"]
        assert texts("PG16-main") == ["pg16-main is up"]
        assert texts("pg16 main") == ["pg16-main is up"]
        assert texts("main pg16") == []
        assert texts("cafe") == ["The Café Kasiak opens"]
        assert texts("jose") == ["met José"]
        assert texts("boiler") == ["Two boilers were serviced"]
        assert texts("Lisbon") == []  # a title is not the text
        assert store.chunks_mentioning("kasia", SearchFilter(folders=("projects",)), 10) == []
        assert store.chunks_mentioning("?!", flt, 10) == []
        assert store.chunks_mentioning("kasia", flt, 0) == []

    def test_lexical_search_of_nothing(self, store: Store, corpus: dict[str, Vault]) -> None:
        assert store.lexical_search("  ?! ", SearchFilter(), 10) == []
        assert store.lexical_search("budget", SearchFilter(), 0) == []

    @pytest.mark.parametrize(
        ("folders", "expected"),
        [
            (("projects",), {"projects/atlas.md", "projects/work/plan.md", "projects/x.md"}),
            (("projects/",), {"projects/atlas.md", "projects/work/plan.md", "projects/x.md"}),
            (("projects/work",), {"projects/work/plan.md"}),
            (("projects-old",), {"projects-old/legacy.md"}),
            (("proj",), set()),
            (
                ("projects/work", "projects-old"),
                {"projects/work/plan.md", "projects-old/legacy.md"},
            ),
            (("",), set(CORPUS)),
        ],
    )
    def test_folder_prefix_filter(
        self,
        store: Store,
        corpus: dict[str, Vault],
        folders: tuple[str, ...],
        expected: set[str],
    ) -> None:
        flt = SearchFilter(folders=folders)
        assert set(self.paths(store, store.vector_search(MODEL, QUERY, flt, 10))) == expected
        assert set(self.paths(store, store.lexical_search("budget", flt, 10))) == expected

    def test_vault_filter(self, store: Store, corpus: dict[str, Vault]) -> None:
        flt = SearchFilter(vault_ids=(corpus["other"].id,))
        assert self.paths(store, store.vector_search(MODEL, QUERY, flt, 10)) == ["projects/x.md"]
        assert self.paths(store, store.lexical_search("budget", flt, 10)) == ["projects/x.md"]
        both = SearchFilter(vault_ids=(corpus["main"].id,), folders=("projects",))
        assert set(self.paths(store, store.lexical_search("budget", both, 10))) == {
            "projects/atlas.md",
            "projects/work/plan.md",
        }

    def test_date_filter(self, store: Store, corpus: dict[str, Vault]) -> None:
        flt = SearchFilter(
            since=datetime(2025, 2, 1, tzinfo=UTC), until=datetime(2025, 3, 15, tzinfo=UTC)
        )
        expected = {"projects/work/plan.md", "projects-old/legacy.md"}
        assert set(self.paths(store, store.vector_search(MODEL, QUERY, flt, 10))) == expected
        assert set(self.paths(store, store.lexical_search("budget", flt, 10))) == expected

    def test_fetch_chunks(self, store: Store, corpus: dict[str, Vault]) -> None:
        (hit,) = store.lexical_search("atlas", SearchFilter(), 10)
        found = store.fetch_chunks([hit.chunk_rowid, 10**9])
        assert list(found) == [hit.chunk_rowid]
        chunk = found[hit.chunk_rowid]
        assert (chunk.vault, chunk.rel_path, chunk.folder, chunk.title) == (
            "main",
            "projects/atlas.md",
            "projects",
            "atlas",
        )
        assert (chunk.heading_path, chunk.chunk_index, chunk.text) == (
            "# H",
            0,
            "atlas budget launch",
        )
        assert (chunk.line_start, chunk.line_end, chunk.note_type) == (1, 1, "note")
        assert chunk.note_date == datetime(2025, 1, 1, tzinfo=UTC)
        assert chunk.chunk_id == make_chunk("projects/atlas.md", 0, "atlas budget launch").chunk_id
        assert store.fetch_chunks([]) == {}

    # -- persistence ------------------------------------------------------------------------

    def test_data_survives_reopening(self, store_factory: StoreFactory, tmp_path: Path) -> None:
        first = store_factory()
        vault = first.add_vault("v", tmp_path)
        first.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "kept words")])
        first.set_embedder_info("m", 8)
        first.close()
        second = store_factory()
        try:
            assert second.get_vault("v") == vault
            assert second.embedder_info() == ("m", 8)
            assert len(second.lexical_search("kept", SearchFilter(), 5)) == 1
        finally:
            second.close()
