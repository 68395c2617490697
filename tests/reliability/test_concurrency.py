"""Indexing while serving, two indexers on one store, and many chat writers on one file.

Real SQLite files, real ``notecite index`` processes, real threads; nothing is mocked.
"""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from pathlib import Path

import pytest

from notecite import Engine
from notecite.chat import ChatRequest
from notecite.errors import IndexBusyError
from notecite.ingest.progress import IndexProgress
from notecite.store.sqlite.connection import open_index
from notecite.store.sqlite.lock import index_locks, lock_dir
from notecite.testing import hash_settings
from tests.reliability.vaults import (
    ChunkRow,
    clean_env,
    note_text,
    notecite_command,
    snapshot,
    write_vault,
)

pytestmark = pytest.mark.reliability


def test_a_second_indexer_on_the_same_vault_stops_with_the_holders_pid(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, 40, seed=2)
    settings = hash_settings(tmp_path / "home")
    inside = threading.Event()
    release = threading.Event()

    def progress(report: IndexProgress) -> None:
        if report.phase == "keyword" and report.done == 5:  # an index run in progress: hold it here
            inside.set()
            release.wait(60)

    with Engine(settings) as first:
        first.add_vault("v", vault)
        thread = threading.Thread(target=lambda: first.index("v", progress=progress))
        thread.start()
        try:
            assert inside.wait(30)
            second = subprocess.run(
                notecite_command(settings.home, "index", "--vault", "v"),
                capture_output=True,
                text=True,
                env={**clean_env(), "NOTECITE_INDEX__LOCK_WAIT_S": "0.2"},
                check=False,
            )
        finally:
            release.set()
            thread.join()
        status = first.status()

    assert second.returncode == 1
    assert "another index run is in progress on vault 'v'" in second.stderr
    assert f"(pid {os.getpid()})" in second.stderr
    assert "Traceback" not in second.stderr
    assert [v.notes for v in status.vaults] == [40]


def test_a_second_indexer_waits_for_the_first_within_the_bound(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, 10, seed=3)
    settings = hash_settings(tmp_path / "home")
    with Engine(settings) as engine:
        v = engine.add_vault("v", vault)
    holder_done = threading.Event()

    def hold() -> None:
        with index_locks(lock_dir(settings.db_path), [(v.id, "v")], 0):
            time.sleep(1.0)
        holder_done.set()

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.1)
    waited = subprocess.run(
        notecite_command(settings.home, "index", "--vault", "v"),
        capture_output=True,
        text=True,
        env={**clean_env(), "NOTECITE_INDEX__LOCK_WAIT_S": "30"},
        check=False,
    )
    holder.join()
    assert waited.returncode == 0, waited.stderr
    assert "added 10" in waited.stdout
    assert holder_done.is_set()


def test_a_killed_indexer_leaves_no_stale_lock(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, 200, seed=4)
    home = tmp_path / "home"
    first = subprocess.Popen(
        notecite_command(home, "index", str(vault), "--vault", "v"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=clean_env(),
    )
    locks = lock_dir(home / "notecite.db")
    deadline = time.monotonic() + 60
    while not any(locks.glob("*.lock")) and time.monotonic() < deadline:
        time.sleep(0.01)
    first.kill()
    first.wait()
    second = subprocess.run(
        notecite_command(home, "index", "--vault", "v"),
        capture_output=True,
        text=True,
        env={**clean_env(), "NOTECITE_INDEX__LOCK_WAIT_S": "0"},
        check=False,
    )
    assert second.returncode == 0, second.stderr


def test_readers_never_see_a_partial_note_and_are_not_blocked(tmp_path: Path) -> None:
    notes = 150
    vault = tmp_path / "vault"
    write_vault(vault, notes, seed=5)
    expected: dict[tuple[str, str], tuple[ChunkRow, ...]] = {}
    reference_settings = hash_settings(tmp_path / "reference")
    settings = hash_settings(tmp_path / "home")

    with Engine(reference_settings) as reference, Engine(settings) as writer:
        reference.add_vault("v", vault)
        writer.add_vault("v", vault)
        writer.index("v")
        reference.index("v")
        expected.update(
            ((p, h), c) for p, (h, c) in snapshot(reference_settings.db_path).notes.items()
        )
        rng = random.Random(5)
        for path in sorted(vault.rglob("*.md")):  # a second version of every note
            path.write_text(note_text(rng, int(path.stem[1:]), 1), encoding="utf-8")
        reference.index("v")
        expected.update(
            ((p, h), c) for p, (h, c) in snapshot(reference_settings.db_path).notes.items()
        )

        indexing = threading.Event()
        indexing.set()
        failures: list[str] = []
        latencies: list[float] = []
        reads = [0]

        def read() -> None:
            with Engine(settings) as reader:
                while indexing.is_set():
                    started = time.perf_counter()
                    results = reader.search("garden launch budget", k=5)
                    latencies.append(time.perf_counter() - started)
                    if not results:
                        failures.append("a search found nothing mid-index")
                    snap = snapshot(settings.db_path)
                    for rel_path, (content_hash, chunks) in snap.notes.items():
                        if expected.get((rel_path, content_hash)) != chunks:
                            failures.append(f"{rel_path} seen half-written")
                    reads[0] += 1

        readers = [threading.Thread(target=read) for _ in range(2)]
        for thread in readers:
            thread.start()
        try:
            (report,) = writer.index("v")
        finally:
            indexing.clear()
            for thread in readers:
                thread.join()

    assert report.updated == notes
    assert not failures, failures[:5]
    assert reads[0] >= 4, "the readers did not overlap the index run"
    assert max(latencies) < 5.0, f"a search waited {max(latencies):.2f} s for the writer"


def test_concurrent_chat_writers_lose_no_message(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, 12, seed=6)
    settings = hash_settings(tmp_path / "home")
    threads, turns = 4, 5
    with Engine(settings) as engine:
        engine.add_vault("v", vault)
        engine.index("v")
        shared = engine.chat(ChatRequest(message="What about the garden budget?")).session_id
        errors: list[BaseException] = []

        def talk(number: int) -> None:
            try:
                with Engine(settings) as own:  # its own connections, like another process
                    mine = None
                    for turn in range(turns):
                        own.chat(
                            ChatRequest(message=f"t{number} turn {turn} garden?", session_id=shared)
                        )
                        reply = own.chat(
                            ChatRequest(message=f"t{number} launch {turn}?", session_id=mine)
                        )
                        mine = reply.session_id
            except BaseException as exc:
                errors.append(exc)

        workers = [threading.Thread(target=talk, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert not errors, errors
        store = engine.open_sessions()
        try:
            shared_messages = store.messages(shared)
            sessions = store.list_sessions()
            per_session = {s.id: len(store.messages(s.id)) for s in sessions}
        finally:
            store.close()

    assert len(shared_messages) == 2 * (1 + threads * turns)
    questions = [m.content for m in shared_messages if m.role == "user"]
    for number in range(threads):  # each writer's turns are in its order
        own = [q for q in questions if q.startswith(f"t{number} ")]
        assert own == [f"t{number} turn {t} garden?" for t in range(turns)]
    assert len(sessions) == 1 + threads
    assert sorted(per_session.values()) == [2 * turns] * threads + [2 * (1 + threads * turns)]


def test_first_opens_of_a_new_index_race_safely(tmp_path: Path) -> None:
    """Two processes starting on a fresh home (``serve`` and ``index``) both migrate it."""
    failures: list[BaseException] = []
    for trial in range(30):
        db = tmp_path / f"trial{trial}" / "notecite.db"
        barrier = threading.Barrier(4)

        def open_it(path: Path = db, start: threading.Barrier = barrier) -> None:
            start.wait()
            try:
                open_index(path, "the index").close()
            except BaseException as exc:
                failures.append(exc)

        openers = [threading.Thread(target=open_it) for _ in range(4)]
        for thread in openers:
            thread.start()
        for thread in openers:
            thread.join()
    assert not failures, failures[:2]


@pytest.mark.postgres
def test_a_second_indexer_on_postgres_stops_with_the_holders_pid(
    pg_url: str, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, 20, seed=7)
    settings = hash_settings(
        tmp_path / "home",
        store={"backend": "postgres", "url": pg_url},
        index={"lock_wait_s": 0.2},
    )
    inside, release = threading.Event(), threading.Event()

    def progress(report: IndexProgress) -> None:
        if report.phase == "keyword" and report.done == 5:
            inside.set()
            release.wait(60)

    with Engine(settings) as first, Engine(settings) as second:
        first.add_vault("v", vault)
        thread = threading.Thread(target=lambda: first.index("v", progress=progress))
        thread.start()
        try:
            assert inside.wait(30)
            with pytest.raises(IndexBusyError, match=rf"vault 'v' \(pid {os.getpid()}\)"):
                second.index("v")
        finally:
            release.set()
            thread.join()
        (report,) = second.index("v")  # the first run is over: its lock went with it

    assert report.unchanged == 20
