"""What ``vault_status`` says a vault's chunks lack, the same in every store.

Mixed into each store's contract test class (which provides the ``store`` fixture).
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

from notecite.store.base import Store
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
