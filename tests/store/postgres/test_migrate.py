"""`notecite store migrate`: SQLite -> PostgreSQL -> a fresh SQLite file, with real notes.

The Foam vault and the chat test vault are indexed into SQLite with the hash embedder and
two chat sessions are held; the index then goes to PostgreSQL and back to a new SQLite
file through the CLI. Searches and sessions must come out the same, and a second run must
copy nothing.
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner, Result

from notecite import Engine
from notecite.chat import ChatRequest
from notecite.cli.main import cli
from notecite.store.migrate import Location, migrate_index
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings, write_files
from notecite.types import SearchFilter
from tests.chat.notes import index_notes
from tests.helpers import FOAM_VAULT

pytestmark = pytest.mark.postgres

QUESTIONS = ("How do I create a new note from a template?", "Apollo budget", "graph view")
TABLES = ("vaults", "notes", "chunks", "embeddings", "sentence_vectors", "sessions", "messages")


@dataclass
class Source:
    home: Path
    db: Path
    session_ids: list[str]


@pytest.fixture
def source(tmp_path: Path) -> Source:
    """A SQLite index of two vaults (one with a file that fails) and two chat sessions."""
    home = tmp_path / "src"
    with Engine(hash_settings(home)) as engine:
        engine.add_vault("foam", FOAM_VAULT)
        write_files(tmp_path / "notes", {"scan.pdf": b"%PDF-1.4 not really a pdf"})
        index_notes(engine, tmp_path / "notes")  # vault "notes", indexes every vault
        assert [f.rel_path for v in engine.status().vaults for f in v.failed] == ["scan.pdf"]
        first = engine.chat(ChatRequest(message="What is the Apollo budget?"))
        engine.chat(ChatRequest(message="Who approved it?", session_id=first.session_id))
        second = engine.chat(ChatRequest(message="When do I water the tomatoes?"))
        return Source(home, engine.settings.db_path, [first.session_id, second.session_id])


def _migrate(home: Path, *args: str) -> Result:
    result = CliRunner().invoke(
        cli, ["--home", str(home), "--embedder", "hash", "store", "migrate", *args]
    )
    assert result.exit_code == 0, result.output
    return result


def _counts(output: str) -> dict[str, tuple[int, int, int]]:
    """table -> (copied, source, target) from the command's table."""
    found = {}
    for table in TABLES:
        match = re.search(rf"^\s+{table}\s+(\d+)\s+(\d+)\s+(\d+)$", output, re.M)
        assert match, output
        found[table] = (int(match[1]), int(match[2]), int(match[3]))
    return found


def _searches(engine: Engine) -> list[list[tuple[str, str, int, float, float]]]:
    return [
        [
            (r.vault, r.rel_path, r.chunk_index, round(r.score_vector, 5), round(r.score, 5))
            for r in engine.search(q, k=8)
        ]
        for q in QUESTIONS
    ]


def _vector_hits(
    engine: Engine, sentence_weight: float = 0.0
) -> list[list[tuple[str, int, float]]]:
    hits = []
    for question in QUESTIONS:
        query = engine.embedder.embed_query(question)
        found = engine.store.vector_search(
            engine.embedder.model_id, query, SearchFilter(), 10, sentence_weight
        )
        chunks = engine.store.fetch_chunks([h.chunk_rowid for h in found])
        hits.append(
            [
                (
                    chunks[h.chunk_rowid].rel_path,
                    chunks[h.chunk_rowid].chunk_index,
                    h.dense if sentence_weight else h.score,
                )
                for h in found
            ]
        )
    return hits


def test_sqlite_to_postgres_and_back_keeps_search_and_sessions(
    source: Source, pg_url: str, tmp_path: Path
) -> None:
    first = _counts(_migrate(source.home, "--to", pg_url).output)
    assert all(copied == src == dst for copied, src, dst in first.values()), first
    assert first["vaults"][0] == 2
    assert first["sessions"][0] == 2
    assert first["messages"][0] == 6
    assert first["chunks"][0] > 100
    assert first["sentence_vectors"][0] > 100

    # a second run copies nothing and the counts still match
    again = _migrate(source.home, "--to", pg_url)
    assert "counts match" in again.output
    assert {t: c[0] for t, c in _counts(again.output).items()} == dict.fromkeys(TABLES, 0)

    back = tmp_path / "back" / "index.db"
    home = tmp_path / "back"
    result = _migrate(home, "--from", pg_url, "--to", str(back))
    assert all(copied == src == dst for copied, src, dst in _counts(result.output).values())

    pg_settings = hash_settings(tmp_path / "pg", store={"backend": "postgres", "url": pg_url})
    # Chunk and sentence vectors were copied, not recomputed: the same dense scores
    # everywhere, and the same searches (sentence weight on) without a rebuild.
    with (
        Engine(hash_settings(source.home)) as before,
        Engine(pg_settings) as postgres,
        Engine(hash_settings(home, store={"path": back})) as after,
    ):
        assert isinstance(postgres.store, PostgresStore)
        weight = before.settings.retrieval.sentence_weight
        assert weight > 0
        # (SQLite keeps sentence vectors as float16 in memory: their cosines move by ~1e-4)
        for w, tolerance in ((0.0, 1e-5), (weight, 2e-4)):
            expected = _vector_hits(before, w)
            assert _vector_hits(postgres, w) == [
                [(p, i, pytest.approx(s, abs=tolerance)) for p, i, s in q] for q in expected
            ]
        assert _searches(after) == _searches(before)
        assert after.status() == before.status()
        for engine in (postgres, after):
            sessions, original = engine.open_sessions(), before.open_sessions()
            try:
                assert [s.id for s in sessions.list_sessions()] == [
                    s.id for s in original.list_sessions()
                ]
                for session_id in source.session_ids:
                    assert sessions.get_session(session_id) == original.get_session(session_id)
                    copied = [replace(m, id=0) for m in sessions.messages(session_id)]
                    assert copied == [replace(m, id=0) for m in original.messages(session_id)]
            finally:
                sessions.close()
                original.close()


def test_a_rerun_copies_only_what_changed(source: Source, pg_url: str) -> None:
    target = Location(url=pg_url)
    (first,) = migrate_index(Location(path=source.db), target)
    with Engine(hash_settings(source.home)) as engine:
        notes = engine.vault("notes").path
        write_files(notes, {"projects/zeus.md": "# Zeus\n\nZeus ships in May.\n"})
        (notes / "home" / "garden.md").unlink()
        engine.index("notes")
        engine.chat(ChatRequest(message="When does Zeus ship?", session_id=source.session_ids[1]))
    (second,) = migrate_index(Location(path=source.db), target)
    assert second.mismatches() == []
    assert (second.copied.vaults, second.copied.notes, second.copied.sessions) == (0, 1, 0)
    assert second.copied.messages == 2
    assert second.target.notes == first.target.notes  # one added, one deleted
    with Engine(
        hash_settings(source.home, store={"backend": "postgres", "url": pg_url})
    ) as postgres:
        (hit,) = postgres.search("Zeus ships", k=1)
        assert hit.rel_path == "projects/zeus.md"
        assert not [r for r in postgres.search("tomatoes compost", k=5) if "garden" in r.rel_path]


def test_counts_that_differ_fail_the_command(source: Source, pg_url: str, tmp_path: Path) -> None:
    with Engine(hash_settings(tmp_path / "pg", store={"backend": "postgres", "url": pg_url})) as pg:
        pg.add_vault("other", tmp_path)
    result = CliRunner().invoke(
        cli, ["--home", str(source.home), "--embedder", "hash", "store", "migrate", "--to", pg_url]
    )
    assert result.exit_code == 1
    assert "counts differ: vaults" in result.output
    assert "row counts differ for tenant(s) [1]" in result.output


MINE = "# Garden\n\nThe tomatoes go north. The beans climb the fence. Water them at dawn.\n"
SECRET = "# Vault\n\nThe combination is four two nine. Only the night guard knows it.\n"


def _pg_hashes(url: str, tenant_id: int, query: str) -> set[str]:
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('notecite.tenant_id', %s, true)", (str(tenant_id),))
        return {str(r[0]) for r in conn.execute(query.encode())}


def test_each_tenant_gets_the_vectors_of_its_own_chunks_only(pg_url: str, tmp_path: Path) -> None:
    """A two-tenant SQLite file shares its vectors between tenants; after the copy, each
    tenant's rows in PostgreSQL hold the chunk and sentence vectors of its chunks alone."""
    home = tmp_path / "src"
    with Engine(hash_settings(home)) as engine:
        engine.add_vault("mine", write_files(tmp_path / "mine", {"garden.md": MINE}))
        engine.index("mine")
        with engine.for_tenant("acme") as acme:
            acme.add_vault("theirs", write_files(tmp_path / "theirs", {"vault.md": SECRET}))
            acme.index("theirs")
        db = engine.settings.db_path
    said: list[str] = []
    reports = migrate_index(Location(path=db), Location(url=pg_url), progress=said.append)
    assert [r.tenant.name for r in reports] == ["default", "acme"]
    assert all(r.mismatches() == [] for r in reports)
    chunks = "FROM chunks c JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ?"
    conn = sqlite3.connect(db)
    try:
        own = {
            r.tenant.id: (
                {h for (h,) in conn.execute(f"SELECT c.content_hash {chunks}", (r.tenant.id,))},
                {
                    h
                    for (h,) in conn.execute(
                        f"SELECT j.value {chunks}, json_each(c.sentence_hashes) j", (r.tenant.id,)
                    )
                },
            )
            for r in reports
        }
    finally:
        conn.close()
    mine, theirs = (own[r.tenant.id] for r in reports)
    assert all(mine)
    assert all(theirs)
    assert not (mine[0] | mine[1]) & (theirs[0] | theirs[1])
    for report in reports:
        chunk_hashes, sentence_hashes = own[report.tenant.id]
        tenant = report.tenant.id
        assert _pg_hashes(pg_url, tenant, "SELECT content_hash FROM embeddings") == chunk_hashes
        assert (
            _pg_hashes(pg_url, tenant, "SELECT content_hash FROM sentence_embeddings")
            == sentence_hashes
        )
        assert _pg_hashes(pg_url, tenant, "SELECT unnest(sentence_hashes) FROM chunks") == (
            sentence_hashes
        )
        assert report.copied.sentence_vectors == len(sentence_hashes)
    # a re-run copies nothing, and says so
    said.clear()
    again = migrate_index(Location(path=db), Location(url=pg_url), progress=said.append)
    assert all(dataclasses.astuple(r.copied) == (0,) * 7 for r in again)
    assert "tenant 1: vault mine: 0 notes (0 chunks) copied, 1 unchanged, 0 deleted" in said


def test_status_names_the_command_that_adds_missing_sentence_vectors(
    pg_url: str, tmp_path: Path
) -> None:
    """An index copied by an older `store migrate` has chunks that list no sentence windows
    and no sentence vectors: `status` says so and names `index --rebuild`, which adds them."""
    long_note = "# Long\n\n" + " ".join(f"Sentence number {i} says little." for i in range(30))
    home = tmp_path / "home"
    notes = write_files(tmp_path / "notes", {"long.md": long_note + "\n"})
    with Engine(hash_settings(home, store={"backend": "postgres", "url": pg_url})) as engine:
        engine.add_vault("notes", notes)
        engine.index("notes")
    with psycopg.connect(pg_url) as conn:  # as the older copy left it
        conn.execute("SELECT set_config('notecite.tenant_id', '1', true)")
        conn.execute("UPDATE chunks SET sentence_hashes = '{}'")
        conn.execute("DELETE FROM sentence_embeddings")
    base = ["--home", str(home), "--embedder", "hash"]
    env = {"NOTECITE_STORE__BACKEND": "postgres", "NOTECITE_STORE__URL": pg_url}
    status = CliRunner().invoke(cli, [*base, "status"], env=env)
    assert status.exit_code == 0, status.output
    assert "chunks have no sentence vectors: run `notecite index --rebuild`" in status.output
    rebuilt = CliRunner().invoke(cli, [*base, "index", "--rebuild"], env=env)
    assert rebuilt.exit_code == 0, rebuilt.output
    again = CliRunner().invoke(cli, [*base, "status"], env=env)
    assert "notecite index --rebuild" not in again.output
    assert _pg_hashes(pg_url, 1, "SELECT content_hash FROM sentence_embeddings")
