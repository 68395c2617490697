"""Indexing real vaults end to end: counts, metadata, sections, and incremental runs."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from notecite import Engine, Settings, load_settings
from notecite.embed.base import MINILM_INT8_MODEL_ID, MINILM_MODEL_ID
from notecite.embed.hashing import HashEmbedder
from notecite.errors import EmbedderMismatchError
from notecite.ingest.indexer import note_hash
from notecite.ingest.markdown import lines_as_read
from notecite.testing import DelegatingEmbedder, hash_settings
from notecite.types import IndexReport
from tests.helpers import DENDRON_VAULT, FOAM_VAULT, MakeVault, read_rows

pytestmark = pytest.mark.slow  # indexes the shared Dendron and Foam vaults

DENDRON_NOTES = 1012
FOAM_NOTES = 86


@dataclass
class Indexed:
    settings: Settings
    engine: Engine
    reports: dict[str, IndexReport]

    def note(self, vault: str, rel_path: str) -> dict[str, Any]:
        rows = read_rows(
            self.settings.db_path,
            "SELECT n.title, n.description, n.keywords, n.note_type, n.frontmatter, n.created, "
            "n.modified, n.folder, n.doc_type FROM notes n JOIN vaults v ON v.id = n.vault_id "
            "WHERE v.name = ? AND n.rel_path = ?",
            (vault, rel_path),
        )
        assert rows, f"{vault}/{rel_path} not indexed"
        keys = (
            "title",
            "description",
            "keywords",
            "note_type",
            "frontmatter",
            "created",
            "modified",
            "folder",
            "doc_type",
        )
        note = dict(zip(keys, rows[0], strict=True))
        note["keywords"] = json.loads(str(note["keywords"]))
        note["frontmatter"] = json.loads(str(note["frontmatter"]))
        return note

    def chunks(self, vault: str, rel_path: str) -> list[tuple[str, int, int, str]]:
        """(heading_path, line_start, line_end, text) of a note's chunks, in order."""
        rows = read_rows(
            self.settings.db_path,
            "SELECT c.heading_path, c.line_start, c.line_end, c.text FROM chunks c "
            "JOIN notes n ON n.id = c.note_id JOIN vaults v ON v.id = c.vault_id "
            "WHERE v.name = ? AND n.rel_path = ? ORDER BY c.chunk_index",
            (vault, rel_path),
        )
        return [(str(h), int(s), int(e), str(t)) for h, s, e, t in rows]

    def folders(self, vault: str) -> set[str]:
        rows = read_rows(
            self.settings.db_path,
            "SELECT DISTINCT n.folder FROM notes n JOIN vaults v ON v.id = n.vault_id "
            "WHERE v.name = ?",
            (vault,),
        )
        return {str(r[0]) for r in rows}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Indexed]:
    """Dendron and Foam indexed once per module with the hash embedder."""
    assert DENDRON_VAULT.is_dir()
    assert FOAM_VAULT.is_dir()
    settings = hash_settings(tmp_path_factory.mktemp("indexed") / "home")
    with Engine(settings) as engine:
        engine.add_vault("dendron", DENDRON_VAULT)
        engine.add_vault("foam", FOAM_VAULT)
        reports = {r.vault: r for r in engine.index()}
        yield Indexed(settings, engine, reports)


# -- whole shared vaults --------------------------------------------------------------------


def test_every_note_indexed(indexed: Indexed) -> None:
    dendron, foam = indexed.reports["dendron"], indexed.reports["foam"]
    assert (dendron.added, dendron.updated, dendron.failed, dendron.failures) == (
        DENDRON_NOTES,
        0,
        0,
        [],
    )
    assert (foam.added, foam.failed) == (FOAM_NOTES, 0)
    status = {v.name: v for v in indexed.engine.status().vaults}
    assert status["dendron"].notes == DENDRON_NOTES
    assert status["foam"].notes == FOAM_NOTES
    assert status["dendron"].chunks > DENDRON_NOTES
    assert status["foam"].chunks > FOAM_NOTES
    assert status["dendron"].failed == status["foam"].failed == ()


def test_each_distinct_text_embedded_once(indexed: Indexed) -> None:
    db = indexed.settings.db_path
    distinct = read_rows(db, "SELECT COUNT(DISTINCT content_hash) FROM chunks")[0][0]
    stored = read_rows(db, "SELECT COUNT(*) FROM embeddings WHERE model_id = 'hash-256'")[0][0]
    embedded = sum(r.chunks_embedded for r in indexed.reports.values())
    assert embedded == stored == distinct
    sentences = read_rows(
        db, "SELECT COUNT(DISTINCT j.value) FROM chunks c, json_each(c.sentence_hashes) j"
    )[0][0]
    stored_sentences = read_rows(
        db, "SELECT COUNT(*) FROM sentence_embeddings WHERE model_id = 'hash-256'"
    )[0][0]
    embedded_sentences = sum(r.sentences_embedded for r in indexed.reports.values())
    assert embedded_sentences == stored_sentences == sentences > 0


def test_embedder_recorded(indexed: Indexed) -> None:
    status = indexed.engine.status()
    assert (status.embedder_model, status.embedder_dimensions) == ("hash-256", 256)


def test_dendron_frontmatter(indexed: Indexed) -> None:
    lookup = indexed.note("dendron", "dendron.topic.lookup.md")
    assert lookup["title"] == "Lookup"
    assert lookup["description"] == "Lookup lets you find or create a note"
    assert lookup["doc_type"] == "markdown"
    assert lookup["folder"] == ""
    assert datetime.fromisoformat(str(lookup["created"])) == datetime(
        2020, 7, 28, 16, 8, 25, 38000, tzinfo=UTC
    )
    assert datetime.fromisoformat(str(lookup["modified"])) == datetime.fromtimestamp(
        1659715122.710, tz=UTC
    )
    frontmatter = lookup["frontmatter"]
    assert isinstance(frontmatter, dict)
    assert frontmatter["id"] == "a7c3a810-28c8-4b47-96a6-8156b1524af3"
    assert frontmatter["updated"] == 1659715122710

    assert indexed.note("dendron", "changelog.release.2022-03-22.md")["title"] == "0.87"
    assert indexed.note("dendron", "dendron.topic.tags.md")["keywords"] == [
        "example.from-frontmatter"
    ]
    cheatsheet = indexed.note("dendron", "dendron.cheatsheet.md")
    assert cheatsheet["keywords"] == ["stage.seed"]
    assert cheatsheet["frontmatter"]["config"] == {
        "global": {"enableChildLinks": False, "enablePrettyRefs": True}
    }


def test_dendron_is_flat(indexed: Indexed) -> None:
    assert indexed.folders("dendron") == {""}


def test_dendron_heading_paths(indexed: Indexed) -> None:
    paths = [c[0] for c in indexed.chunks("dendron", "dendron.topic.lookup.md")]
    for heading in ("## Summary", "## Details", "## Lookups", "## Look up Auto Complete"):
        assert heading in paths


def test_foam_folders(indexed: Indexed) -> None:
    assert indexed.folders("foam") == {
        "",
        "dev",
        "dev/design",
        "user",
        "user/features",
        "user/getting-started",
        "user/publishing",
        "user/recipes",
        "user/tools",
        "user/tools/cli",
    }


def test_foam_frontmatter_and_h1_titles(indexed: Indexed) -> None:
    props = indexed.note("foam", "user/features/note-properties.md")
    assert props["title"] == "Note Properties"
    assert props["note_type"] == "feature"
    assert props["keywords"] == ["hello", "world", "bonjour"]
    assert props["folder"] == "user/features"
    assert indexed.note("foam", "user/tools/cli/grep.md")["title"] == "foam grep"
    assert indexed.note("foam", "user/index.md")["title"] == "Using Foam"


def test_foam_heading_paths_skip_fenced_code(indexed: Indexed) -> None:
    daily = [c[0] for c in indexed.chunks("foam", "user/features/daily-notes.md")]
    assert daily[0] == "# Daily Notes"
    assert "# Daily Notes > ## Creating Daily Notes" in daily
    assert "# Daily Notes > ## Configuration" in daily
    assert not any("$FOAM_DATE_YEAR" in p for p in daily)
    grep = [c[0] for c in indexed.chunks("foam", "user/tools/cli/grep.md")]
    assert "# foam grep > ## Examples" in grep
    assert not any("physics" in p for p in grep)


def test_chunk_spans_point_at_file_lines(indexed: Indexed) -> None:
    for vault, root, rel_path in [
        ("foam", FOAM_VAULT, "user/features/daily-notes.md"),
        ("dendron", DENDRON_VAULT, "dendron.topic.lookup.md"),
    ]:
        # the file's lines as the index reads them ({{fm.desc}} and wikilinks read), numbered
        # as in the file
        lines = lines_as_read((root / rel_path).read_text(encoding="utf-8"))
        assert len(lines) == len((root / rel_path).read_text(encoding="utf-8").split("\n"))
        for _, start, end, text in indexed.chunks(vault, rel_path):
            assert 1 <= start <= end <= len(lines)
            first, last = text.split("\n")[0], text.split("\n")[-1]
            assert _squash(first) in _squash(lines[start - 1])
            assert _squash(last) in _squash(lines[end - 1])


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_search_filters_by_vault_and_folder(indexed: Indexed) -> None:
    results = indexed.engine.search("daily note template", k=10)
    assert {r.vault for r in results} <= {"dendron", "foam"}
    only_foam = indexed.engine.search("daily note template", vaults=["foam"], k=10)
    assert only_foam
    assert {r.vault for r in only_foam} == {"foam"}
    tools = indexed.engine.search("grep search notes", vaults=["foam"], folders=["user/tools"])
    assert tools
    assert all(r.rel_path.startswith("user/tools/") for r in tools)
    assert any(r.rel_path.startswith("user/tools/cli/") for r in tools)


def test_second_run_changes_nothing(indexed: Indexed) -> None:
    counting = DelegatingEmbedder(HashEmbedder())
    before = indexed.engine.status()
    with Engine(indexed.settings, embedder=counting) as again:
        reports = {r.vault: r for r in again.index()}
        after = again.status()
    assert (reports["dendron"].unchanged, reports["foam"].unchanged) == (
        DENDRON_NOTES,
        FOAM_NOTES,
    )
    for report in reports.values():
        assert (report.added, report.updated, report.removed, report.failed) == (0, 0, 0, 0)
        assert report.chunks_embedded == 0
    assert counting.documents == []
    # the index is the same (the caches' counters are the engines' own, not the index's);
    # only the time of the last run moved on
    assert all(
        a.indexed_at is not None and b.indexed_at is not None and a.indexed_at >= b.indexed_at
        for a, b in zip(after.vaults, before.vaults, strict=True)
    )
    unstamped = [dataclasses.replace(v, indexed_at=None) for v in after.vaults]
    assert (unstamped, after.embedder_model, after.embedder_dimensions) == (
        [dataclasses.replace(v, indexed_at=None) for v in before.vaults],
        before.embedder_model,
        before.embedder_dimensions,
    )


# -- incremental runs on a copy -------------------------------------------------------------


@pytest.fixture
def foam_copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FOAM_VAULT, tmp_path / "foam"))


def _bump_mtime(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def test_incremental_add_edit_rename_delete(settings: Settings, foam_copy: Path) -> None:
    with Engine(settings) as engine:
        engine.add_vault("foam", foam_copy)
        (first,) = engine.index()
    assert first.added == FOAM_NOTES

    (foam_copy / "user" / "new-note.md").write_text("# New note\nzebra quokka marker\n")
    edited = foam_copy / "user" / "features" / "tags.md"
    with edited.open("a", encoding="utf-8") as fh:
        fh.write("\n## Appended section\nplatypus marker text\n")
    _bump_mtime(edited)
    # moved into a year's folder: the words of its path ("dev devcontainers") stay the same
    (foam_copy / "dev" / "2024").mkdir()
    (foam_copy / "dev" / "devcontainers.md").rename(foam_copy / "dev" / "2024" / "devcontainers.md")
    (foam_copy / "inbox.md").unlink()

    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(settings, embedder=counting) as engine:
        (report,) = engine.index()
        status = engine.status().vaults[0]
        paths = {r.rel_path for r in engine.search("marker", k=50)}
    assert (report.added, report.updated, report.unchanged, report.removed, report.failed) == (
        2,
        1,
        FOAM_NOTES - 3,
        2,
        0,
    )
    # Only the new note's chunk and the appended section were embedded: the rename and the
    # untouched sections of the edited note reused their stored vectors.
    assert len(counting.documents) == 2
    assert any("zebra quokka" in t for t in counting.documents)
    assert any("platypus" in t for t in counting.documents)
    assert report.chunks_embedded == 2
    assert status.notes == FOAM_NOTES
    assert {"user/new-note.md", "user/features/tags.md"} <= paths


def test_a_note_moved_among_other_words_is_embedded_again(
    settings: Settings, foam_copy: Path
) -> None:
    with Engine(settings) as engine:
        engine.add_vault("foam", foam_copy)
        engine.index()
    (foam_copy / "dev" / "devcontainers.md").rename(foam_copy / "user" / "containers.md")
    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(settings, embedder=counting) as engine:
        (report,) = engine.index()
    # the words of its path are embedded with each chunk: "user containers" is another text
    assert (report.added, report.removed) == (1, 1)
    assert report.chunks_embedded > 0
    assert all(t.startswith("user containers\n") for t in counting.documents)


def test_renamed_note_is_found_at_its_new_path(settings: Settings, foam_copy: Path) -> None:
    with Engine(settings) as engine:
        engine.add_vault("foam", foam_copy)
        engine.index()
        (foam_copy / "principles.md").rename(foam_copy / "dev" / "principles-moved.md")
        engine.index()
        hits = engine.search("Foam principles", vaults=["foam"], k=20)
    rel_paths = {h.rel_path for h in hits}
    assert "dev/principles-moved.md" in rel_paths
    assert "principles.md" not in rel_paths


def test_touched_but_unchanged_file_is_not_re_embedded(settings: Settings, foam_copy: Path) -> None:
    with Engine(settings) as engine:
        engine.add_vault("foam", foam_copy)
        engine.index()
    _bump_mtime(foam_copy / "index.md")
    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(settings, embedder=counting) as engine:
        (report,) = engine.index()
        (again,) = engine.index()
    assert (report.unchanged, report.updated, again.unchanged) == (FOAM_NOTES, 0, FOAM_NOTES)
    assert counting.documents == []


def test_edit_back_to_old_text_reuses_embeddings(settings: Settings, make_vault: MakeVault) -> None:
    vault = make_vault({"a.md": "# A\nfirst version of the text\n"})
    with Engine(settings) as engine:
        engine.add_vault("v", vault)
        engine.index()
    (vault / "a.md").write_text("# A\nsecond version of the text\n")
    _bump_mtime(vault / "a.md")
    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(settings, embedder=counting) as engine:
        engine.index()
        assert len(counting.documents) == 1
        (vault / "a.md").write_text("# A\nfirst version of the text\n")
        _bump_mtime(vault / "a.md")
        _bump_mtime(vault / "a.md")
        (report,) = engine.index()
    assert report.updated == 1
    assert report.chunks_reused == 1
    assert len(counting.documents) == 1


def test_removing_a_vault_forgets_its_notes(settings: Settings, make_vault: MakeVault) -> None:
    keep = make_vault({"k.md": "# K\nkept alpha\n"}, name="keep")
    gone = make_vault({"g.md": "# G\ngone alpha\n"}, name="gone")
    with Engine(settings) as engine:
        engine.add_vault("keep", keep)
        engine.add_vault("gone", gone)
        engine.index()
        engine.remove_vault("gone")
        assert [v.name for v in engine.vaults()] == ["keep"]
        assert {r.rel_path for r in engine.search("alpha")} == {"k.md"}
    assert gone.joinpath("g.md").exists()


# -- embedding model changes ----------------------------------------------------------------


def test_another_model_needs_rebuild(
    settings: Settings, make_vault: MakeVault, tmp_path: Path
) -> None:
    vault = make_vault({"a.md": "# A\nalpha beta\n", "b/c.md": "# C\ngamma\n"})
    with Engine(settings) as engine:
        engine.add_vault("v", vault)
        engine.index()
    other = hash_settings(settings.home, embedder={"name": "hash", "dimensions": 64})
    with Engine(other) as engine:
        with pytest.raises(EmbedderMismatchError, match="--rebuild") as excinfo:
            engine.index()
        assert "hash-256" in str(excinfo.value)
        assert "hash-64" in str(excinfo.value)
        with pytest.raises(EmbedderMismatchError):
            engine.search("alpha")
        (report,) = engine.index(rebuild=True)
        assert (report.added, report.failed) == (2, 0)
        status = engine.status()
        assert (status.embedder_model, status.embedder_dimensions) == ("hash-64", 64)
        assert status.vaults[0].notes == 2
        assert engine.search("alpha")[0].rel_path == "a.md"


@pytest.mark.parametrize(
    ("built_with", "activations", "searched_with"),
    [
        (None, None, MINILM_INT8_MODEL_ID),  # a new index: int8 activations
        (MINILM_MODEL_ID, None, MINILM_MODEL_ID),  # an older float index keeps its variant
        (MINILM_INT8_MODEL_ID, None, MINILM_INT8_MODEL_ID),
        (MINILM_MODEL_ID, "float", MINILM_MODEL_ID),
        (None, "float", MINILM_MODEL_ID),
    ],
)
def test_the_index_keeps_the_minilm_variant_it_was_built_with(
    tmp_path: Path, built_with: str | None, activations: str | None, searched_with: str
) -> None:
    settings = load_settings(home=tmp_path, llm="extractive", embedder={"activations": activations})
    with Engine(settings) as engine:
        if built_with is not None:
            engine.store.set_embedder_info(built_with, 384)
        assert engine.embedder.model_id == searched_with
        engine.check_embedder()


def test_a_chosen_minilm_variant_needs_a_rebuild_of_an_index_of_the_other(
    tmp_path: Path,
) -> None:
    """Asking for int8 activations over a float index is refused, like any other model,
    and a rebuild gives the index the configured variant (here and by default)."""
    for activations in ("int8", None):
        home = tmp_path / str(activations)
        settings = load_settings(home=home, llm="extractive", embedder={"activations": activations})
        with Engine(settings) as engine:
            engine.store.set_embedder_info(MINILM_MODEL_ID, 384)
            if activations == "int8":
                with pytest.raises(EmbedderMismatchError, match=r"embedder\.activations"):
                    engine.check_embedder()
            assert engine.index(rebuild=True) == []
            assert engine.embedder.model_id == MINILM_INT8_MODEL_ID


def test_rebuild_from_the_cache_keeps_the_model_record(
    settings: Settings, make_vault: MakeVault
) -> None:
    """A rebuild whose every text is cached embeds nothing, and still records the model."""
    vault = make_vault({"a.md": "# A\nalpha beta\n"})
    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(settings, embedder=counting) as engine:
        engine.add_vault("v", vault)
        engine.index()
        embedded = len(counting.documents)
        (report,) = engine.index(rebuild=True)
        assert (report.added, report.chunks_embedded) == (1, 0)
        assert len(counting.documents) == embedded
        status = engine.status()
        assert (status.embedder_model, status.embedder_dimensions) == ("hash-256", 256)


def test_upgrade_to_sentence_vectors_embeds_only_sentences(tmp_path: Path) -> None:
    """An index written before migration 6 is re-chunked once on the next run: chunk vectors
    come from the cache, only the new sentence windows are embedded, and search uses them."""
    foam_copy = tmp_path / "foam"
    shutil.copytree(FOAM_VAULT, foam_copy)
    old = hash_settings(tmp_path / "home", index={"sentence_vectors": False})
    with Engine(old) as engine:
        engine.add_vault("foam", foam_copy)
        (first,) = engine.index()
    db = old.db_path
    assert read_rows(db, "SELECT COUNT(*) FROM chunks WHERE sentence_hashes != '[]'") == [(0,)]
    # Take the file back to schema 5, as an index written by the previous release.
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("ALTER TABLE chunks DROP COLUMN sentence_hashes")
        conn.execute("DROP TABLE sentence_embeddings")
        conn.execute("DELETE FROM schema_migrations WHERE version = 6")
    conn.close()

    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(hash_settings(tmp_path / "home"), embedder=counting) as engine:
        (report,) = engine.index()
        (again,) = engine.index()
    assert (report.updated, report.unchanged, report.chunks_embedded) == (first.added, 0, 0)
    assert report.chunks_reused == first.chunks_embedded
    assert report.sentences_embedded == len(counting.documents) > 0
    assert (again.unchanged, again.sentences_embedded) == (first.added, 0)
    with_sentences = read_rows(db, "SELECT COUNT(*) FROM chunks WHERE sentence_hashes != '[]'")
    assert with_sentences[0][0] > 0


def test_notes_read_by_an_older_parser_are_parsed_again_once(
    settings: Settings, make_vault: MakeVault
) -> None:
    vault = make_vault({"a.md": "# A\nSee [[Calendar View|dendron://site/calendar]] daily.\n"})
    with Engine(settings) as engine:
        engine.add_vault("v", vault)
        engine.index()
    bare = hashlib.sha256((vault / "a.md").read_bytes()).hexdigest()
    with sqlite3.connect(settings.db_path) as db:  # as an older parser left them
        db.execute("UPDATE notes SET content_hash = ?", (bare,))
        db.execute("UPDATE chunks SET text = 'stale text of an older parser'")
    counting = DelegatingEmbedder(HashEmbedder())
    with Engine(settings, embedder=counting) as engine:
        (report,) = engine.index()
        (again,) = engine.index()
    assert (report.reparsed, report.updated, report.added) == (1, 0, 0)
    assert "read again by a newer parser" in report.summary()
    assert (again.reparsed, again.unchanged) == (0, 1)
    (text,) = (str(r[0]) for r in read_rows(settings.db_path, "SELECT text FROM chunks", ()))
    assert "stale" not in text
    assert "Calendar View" in text
    assert counting.documents == []  # the same chunk text: its vector is reused
    (stored,) = read_rows(settings.db_path, "SELECT content_hash FROM notes", ())
    assert stored[0] == note_hash((vault / "a.md").read_bytes())
