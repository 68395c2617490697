"""What ``vault_status`` says a vault's chunks lack, the same in every store.

Mixed into each store's contract test class (which provides the ``store`` fixture).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from notecite.store.base import IndexLockable, IndexRuns, Store
from tests.store.contract import DIMS, MODEL, make_chunk, make_record, unit

LONG = " ".join(f"word{i}" for i in range(90))  # more than 80 words: two windows or more


class VectorGapsContract:
    """Chunks without vectors, long chunks listing no sentence window, windows without one."""

    def test_vault_status_counts_what_the_chunks_lack(self, store: Store, tmp_path: Path) -> None:
        vault = store.add_vault("v", tmp_path / "v")
        windows = ("First window of the note here.", "Second window of the note here.")
        split = dataclasses.replace(make_chunk("a.md", 0, "split text"), sentence_texts=windows)
        unsplit = make_chunk("a.md", 1, LONG)
        short = make_chunk("a.md", 2, "one short sentence")
        store.replace_note(make_record(vault, "a.md"), [split, unsplit, short])
        (before,) = store.vault_status()
        assert (before.missing_vectors, before.unsplit_chunks) == (0, 0)  # nothing embedded
        store.set_embedder_info(MODEL, DIMS)
        store.put_embeddings(MODEL, {split.content_hash: unit(1, 0, 0, 0)})
        (status,) = store.vault_status()
        assert (status.missing_vectors, status.unsplit_chunks) == (2, 1)
        assert status.missing_sentence_vectors == 2
        vectors, *sentences = status.gaps()
        assert vectors.endswith("run `notecite index`")  # an index run embeds what waits
        assert all("notecite index --rebuild" in gap for gap in sentences)
        assert len(status.gaps()) == 3
        assert len(status.gaps(sentence_vectors=False)) == 1
        store.put_embeddings(MODEL, {c.content_hash: unit(1, 1, 0, 0) for c in (unsplit, short)})
        store.put_sentence_vectors(
            MODEL, {hashlib.sha256(w.encode()).hexdigest(): unit(0, 1, 0, 0) for w in windows}
        )
        store.replace_note(make_record(vault, "a.md"), [split, short])
        (after,) = store.vault_status()
        assert (after.missing_vectors, after.unsplit_chunks, after.missing_sentence_vectors) == (
            0,
            0,
            0,
        )
        assert after.gaps() == []


class IndexRunsContract:
    """When each vault was last indexed, and which vaults a run holds now."""

    def test_index_times_are_kept_per_vault_and_forgotten_with_it(
        self, store: Store, tmp_path: Path
    ) -> None:
        assert isinstance(store, IndexRuns)
        first = store.add_vault("first", tmp_path / "first")
        second = store.add_vault("second", tmp_path / "second")
        assert store.last_indexed() == {}
        when = datetime(2026, 11, 23, 21, 30, tzinfo=UTC)
        store.mark_indexed(first.id, when)
        store.mark_indexed(second.id, when)
        later = when + timedelta(minutes=5)
        store.mark_indexed(first.id, later)
        assert store.last_indexed() == {first.id: later, second.id: when}

        store.remove_vault("second")
        assert store.last_indexed() == {first.id: later}
        again = store.add_vault("second", tmp_path / "second")  # may reuse the id
        assert store.last_indexed() == {first.id: later}
        store.clear_index()  # an index cleared for a rebuild is not "indexed" any more
        assert store.last_indexed() == {}
        assert again.id not in store.index_holders()

    def test_a_held_index_lock_is_seen_without_waiting(self, store: Store, tmp_path: Path) -> None:
        assert isinstance(store, IndexRuns)
        assert isinstance(store, IndexLockable)
        busy = store.add_vault("busy", tmp_path / "busy")
        idle = store.add_vault("idle", tmp_path / "idle")
        assert store.index_holders() == {}
        with store.index_lock([(busy.id, "busy")], 0):
            holders = store.index_holders()
            assert set(holders) == {busy.id}
            assert holders[busy.id] in {f"pid {os.getpid()}", "unknown"}
            # looking took nothing a run needs: the other vault can be locked at once
            with store.index_lock([(idle.id, "idle")], 0):
                assert set(store.index_holders()) == {busy.id, idle.id}
        assert store.index_holders() == {}
        with store.index_lock([(busy.id, "busy")], 0):  # and the lock is free again
            pass
