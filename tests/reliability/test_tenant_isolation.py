"""Tenant isolation, as a property: random tenants, vaults, notes and queries on both stores.

hypothesis draws 2-3 tenants, each with 1-2 vaults (names collide across tenants on purpose)
holding notes of random words plus the owner's marker word, chat sessions, and queries that
mix everyone's words and markers. On a real SQLite file and on a real PostgreSQL (pgserver,
a role under row-level security), no search hit, fetched chunk, vector score, vault, note
state, folder, status row, session, message or citation origin of one tenant is ever seen
by another, and no write reaches another tenant's vault or session.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notecite.embed.hashing import HashEmbedder
from notecite.errors import NotecitError
from notecite.records import NewMessageRecord
from notecite.store.base import Store
from notecite.store.sessions import SessionStore
from notecite.store.sqlite import SQLiteStore
from notecite.store.sqlite.sessions import SQLiteSessionStore
from notecite.types import SearchFilter, Vault
from tests.postgres_server import PgCluster
from tests.store.contract import make_chunk, make_record

pytestmark = pytest.mark.reliability

MODEL = "hash-64"
EMBED = HashEmbedder(dimensions=64)
WORDS = ("launch", "budget", "garden", "invoice", "orbit", "tomato", "meeting", "secret")
VAULT_NAMES = ("notes", "work", "home")
FOLDERS = ("", "projects", "journal/2026")


def marker(tenant: int) -> str:
    return f"owner{tenant}mark"


@dataclass(frozen=True)
class NoteSpec:
    folder: str
    words: tuple[str, ...]


@dataclass(frozen=True)
class TenantSpec:
    vaults: dict[str, tuple[NoteSpec, ...]]
    sessions: int


@dataclass(frozen=True)
class World:
    tenants: tuple[TenantSpec, ...]
    queries: tuple[str, ...]


notes = st.builds(
    NoteSpec,
    st.sampled_from(FOLDERS),
    st.lists(st.sampled_from(WORDS), min_size=2, max_size=10).map(tuple),
)
tenant_specs = st.builds(
    TenantSpec,
    st.dictionaries(
        st.sampled_from(VAULT_NAMES),
        st.lists(notes, min_size=1, max_size=4).map(tuple),
        min_size=1,
        max_size=2,
    ),
    st.integers(0, 2),
)


@st.composite
def worlds(draw: st.DrawFn) -> World:
    tenants = tuple(draw(st.lists(tenant_specs, min_size=2, max_size=3)))
    vocabulary = list(WORDS) + [marker(t) for t in range(1, len(tenants) + 1)]
    queries = draw(
        st.lists(
            st.lists(st.sampled_from(vocabulary), min_size=1, max_size=3).map(" ".join),
            min_size=1,
            max_size=4,
        )
    )
    return World(tenants, tuple(queries))


@dataclass
class Built:
    """What one tenant owns once the world is written."""

    store: Store
    sessions: SessionStore
    vaults: list[Vault] = field(default_factory=list)
    rowids: set[int] = field(default_factory=set)
    chunk_ids: set[str] = field(default_factory=set)
    session_ids: set[str] = field(default_factory=set)


Opener = Callable[[int], tuple[Store, SessionStore]]


def _build(world: World, open_tenant: Opener, root: Path) -> dict[int, Built]:
    built: dict[int, Built] = {}
    for number, spec in enumerate(world.tenants, start=1):
        store, sessions = open_tenant(number)
        mine = built[number] = Built(store, sessions)
        for name, specs in spec.vaults.items():
            vault = store.add_vault(name, root / f"t{number}" / name)
            mine.vaults.append(vault)
            for index, note in enumerate(specs):
                rel_path = f"{note.folder}/n{index}.md".lstrip("/")
                text = " ".join((*note.words, marker(number)))
                chunk = make_chunk(f"t{number}/{name}/{rel_path}", 0, text)
                store.put_embeddings(MODEL, {chunk.content_hash: EMBED.embed_query(text)})
                store.replace_note(make_record(vault, rel_path, title=name), [chunk])
                mine.chunk_ids.add(chunk.chunk_id)
        for _ in range(spec.sessions):
            session = sessions.create_session("chat", {})
            sessions.add_messages(
                session.id, [NewMessageRecord(role="user", content=marker(number))]
            )
            mine.session_ids.add(session.id)
        everything = SearchFilter()
        hits = store.lexical_search(marker(number), everything, 1000)
        mine.rowids = {h.chunk_rowid for h in hits}
        assert len(mine.rowids) == sum(len(s) for s in spec.vaults.values())
    return built


def _check(world: World, built: dict[int, Built]) -> None:
    everyone = SearchFilter()
    all_rowids = set().union(*(b.rowids for b in built.values()))
    for number, mine in built.items():
        store, own = mine.store, marker(number)
        others = [b for t, b in built.items() if t != number]
        other_vault_ids = tuple(v.id for b in others for v in b.vaults)

        for query in world.queries:
            vector = EMBED.embed_query(query)
            for hits in (
                store.lexical_search(query, everyone, 100),
                store.vector_search(MODEL, vector, everyone, 100),
            ):
                assert {h.chunk_rowid for h in hits} <= mine.rowids
                for chunk in store.fetch_chunks([h.chunk_rowid for h in hits]).values():
                    assert own in chunk.text.split()
            if other_vault_ids:
                theirs = SearchFilter(vault_ids=other_vault_ids)
                assert store.lexical_search(query, theirs, 100) == []
                assert store.vector_search(MODEL, vector, theirs, 100) == []
            scores = store.vector_scores(MODEL, vector, sorted(all_rowids))
            assert set(scores) <= mine.rowids

        assert set(store.fetch_chunks(sorted(all_rowids))) == mine.rowids
        assert {v.id for v in store.list_vaults()} == {v.id for v in mine.vaults}
        assert {s.name for s in store.vault_status()} == {v.name for v in mine.vaults}
        for other in others:
            for vault in other.vaults:
                assert store.note_states(vault.id) == {}
                assert store.folders(vault.id) == []
                with pytest.raises(NotecitError):
                    store.replace_note(make_record(vault, "intruder.md"), [])
                with contextlib.suppress(NotecitError):  # refused (SQLite) or a no-op (RLS)
                    store.delete_notes(vault.id, ["n0.md"])
            for session_id in other.session_ids:
                assert mine.sessions.get_session(session_id) is None
                assert mine.sessions.messages(session_id) == []
                assert mine.sessions.delete_session(session_id) is False
                with pytest.raises(NotecitError):
                    mine.sessions.add_messages(
                        session_id, [NewMessageRecord(role="user", content="intruder")]
                    )
            assert mine.sessions.chunk_origins(sorted(other.chunk_ids)) == {}
        assert {s.id for s in mine.sessions.list_sessions()} == mine.session_ids
        assert set(mine.sessions.chunk_origins(sorted(mine.chunk_ids))) == mine.chunk_ids

    for number, mine in built.items():  # every write attempt above left the owners intact
        for session_id in mine.session_ids:
            assert [m.content for m in mine.sessions.messages(session_id)] == [marker(number)]
        assert sum(len(mine.store.note_states(v.id)) for v in mine.vaults) == len(mine.rowids)


_PROPERTY = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@_PROPERTY
@given(world=worlds())
def test_no_tenant_sees_another_on_sqlite(world: World) -> None:
    root = Path(tempfile.mkdtemp(prefix="notecite-tenants-"))
    opened: list[tuple[Store, SessionStore]] = []

    def open_tenant(number: int) -> tuple[Store, SessionStore]:
        db = root / "index.db"
        tenant_id = SQLiteStore(db).tenant_id_of(f"tenant{number}")
        pair = (SQLiteStore(db, tenant_id=tenant_id), SQLiteSessionStore(db, tenant_id=tenant_id))
        opened.append(pair)
        return pair

    try:
        _check(world, _build(world, open_tenant, root))
    finally:
        for store, sessions in opened:
            sessions.close()
            store.close()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def _database(cluster: PgCluster) -> Iterator[str]:
    name = cluster.create_database()
    try:
        yield cluster.url(name)
    finally:
        cluster.drop_database(name)


@pytest.mark.postgres
@_PROPERTY
@given(world=worlds())
def test_no_tenant_sees_another_on_postgres(pg_cluster: PgCluster, world: World) -> None:
    from notecite.store.postgres.sessions import PostgresSessionStore
    from notecite.store.postgres.store import PostgresStore

    root = Path(tempfile.mkdtemp(prefix="notecite-tenants-"))
    opened: list[tuple[Store, SessionStore]] = []

    def open_tenant(number: int) -> tuple[Store, SessionStore]:
        pair: tuple[Store, SessionStore] = (
            PostgresStore(url, tenant_id=number, pool_size=2),
            PostgresSessionStore(url, tenant_id=number),
        )
        opened.append(pair)
        return pair

    with _database(pg_cluster) as url:
        try:
            _check(world, _build(world, open_tenant, root))
        finally:
            for store, sessions in opened:
                sessions.close()
                store.close()
            shutil.rmtree(root, ignore_errors=True)
