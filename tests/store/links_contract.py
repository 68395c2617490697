"""The links of notes (``Store.linking_notes``, ``Store.notes_named``), written once and run
against every store (SQLite and PostgreSQL).

A subclass provides ``store_factory`` as for :class:`tests.store.contract.StoreContract`.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest

from notecite.store.base import Store
from notecite.types import NoteLink, SearchFilter, Vault
from tests.store.contract import OpenedStore, StoreFactory, make_chunk, make_record

TARGETS = ("pg16-upgrade", "work/pg16-upgrade")
"""The targets that name ``work/pg16-upgrade.md`` in these tests (its file and its path)."""


def write(
    store: Store,
    vault: Vault,
    rel_path: str,
    day: int | None,
    links: list[tuple[str, int]],
    lines: int = 3,
    first_line: int = 1,
    title: str = "",
) -> None:
    """A note of ``lines`` one-line chunks from ``first_line`` on, with ``links`` (target,
    line), dated the ``day`` of March 2026 (undated when None)."""
    when = datetime(2026, 3, day, tzinfo=UTC) if day else None
    record = dataclasses.replace(
        make_record(vault, rel_path, when=when, title=title),
        links=tuple(NoteLink(target, line, f"see {target}") for target, line in links),
    )
    chunks = [
        dataclasses.replace(
            make_chunk(rel_path, i, f"{rel_path} line {first_line + i}"),
            line_start=first_line + i,
            line_end=first_line + i,
        )
        for i in range(lines)
    ]
    store.replace_note(record, chunks)


class LinksContract(OpenedStore):
    """Links kept with their note and found by their targets, in every store."""

    @pytest.fixture
    def vaults(self, store: Store, tmp_path: Path) -> dict[str, Vault]:
        vaults = {name: store.add_vault(name, tmp_path / name) for name in ("main", "other")}
        main = vaults["main"]
        write(store, main, "work/pg16-upgrade.md", 1, [], title="PG16 upgrade")
        write(store, main, "daily/a.md", 5, [("pg16-upgrade", 2), ("lisbon", 1)])
        write(store, main, "daily/b.md", 9, [("work/pg16-upgrade", 1), ("pg16-upgrade", 3)])
        # a frontmatter link: above the note's first chunk, which stands for it
        write(store, main, "notes/related.md", None, [("pg16-upgrade", 2)], first_line=5)
        write(store, vaults["other"], "x.md", 7, [("pg16-upgrade", 1)])
        return vaults

    @staticmethod
    def found(
        store: Store, targets: tuple[str, ...], flt: SearchFilter, limit: int = 10
    ) -> list[tuple[str, int, int]]:
        lines = store.linking_notes(targets, flt, limit)
        chunks = store.fetch_chunks([line.chunk_rowid for line in lines])
        return [
            (chunks[line.chunk_rowid].rel_path, line.line, chunks[line.chunk_rowid].line_start)
            for line in lines
        ]

    def test_linking_lines_newest_notes_first_each_with_the_chunk_holding_it(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        main = SearchFilter(vault_ids=(vaults["main"].id,))
        assert self.found(store, TARGETS, main) == [
            ("daily/b.md", 1, 1),
            ("daily/b.md", 3, 3),
            ("daily/a.md", 2, 2),
            ("notes/related.md", 2, 5),  # undated last; no chunk holds line 2: the first
        ]
        (line,) = store.linking_notes(["lisbon"], main, 10)
        assert (line.line, line.line_text, line.target) == (1, "see lisbon", "lisbon")
        assert len(store.linking_notes(TARGETS, main, 2)) == 2
        assert store.linking_notes([], main, 10) == []
        assert store.linking_notes(["nowhere"], main, 10) == []

    def test_the_filter_scopes_the_linking_notes(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        daily = SearchFilter(vault_ids=(vaults["main"].id,), folders=("daily",))
        assert [path for path, _, _ in self.found(store, TARGETS, daily)] == [
            "daily/b.md",
            "daily/b.md",
            "daily/a.md",
        ]
        other = SearchFilter(vault_ids=(vaults["other"].id,))
        assert self.found(store, TARGETS, other) == [("x.md", 1, 1)]
        dated = SearchFilter(since=datetime(2026, 3, 6, tzinfo=UTC))
        assert {path for path, _, _ in self.found(store, TARGETS, dated)} == {"daily/b.md", "x.md"}

    def test_a_rewritten_note_replaces_its_links_and_a_deleted_one_takes_them_along(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        main = vaults["main"]
        flt = SearchFilter(vault_ids=(main.id,))
        write(store, main, "daily/a.md", 5, [("pg16-upgrade", 3)])
        store.delete_notes(main.id, ["daily/b.md"])
        store.record_failure(main.id, "notes/related.md", "broken", 1, 1)
        assert self.found(store, TARGETS, flt) == [("daily/a.md", 3, 3)]
        assert store.linking_notes(["lisbon"], flt, 10) == []

    def test_links_outlive_a_reopen(
        self, store_factory: StoreFactory, vaults: dict[str, Vault]
    ) -> None:
        again = store_factory()
        try:
            main = SearchFilter(vault_ids=(vaults["main"].id,))
            assert len(again.linking_notes(TARGETS, main, 10)) == 4
        finally:
            again.close()

    @pytest.mark.parametrize(
        "names",
        [
            ["pg16-upgrade"],
            ["work/pg16-upgrade"],
            ["pg16 upgrade"],  # its title, lower case
            ["nothing", "pg16-upgrade"],
        ],
    )
    def test_a_note_is_named_by_its_file_name_path_or_title(
        self, store: Store, vaults: dict[str, Vault], names: list[str]
    ) -> None:
        flt = SearchFilter(vault_ids=(vaults["main"].id,))
        rowids = store.notes_named(names, flt, 5)
        chunks = store.fetch_chunks(rowids)
        assert [chunks[r].rel_path for r in rowids] == ["work/pg16-upgrade.md"]

    def test_a_name_matches_whole_folders_and_file_names_only(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        main = vaults["main"]
        write(store, main, "dendron.topic.lookup.md", 2, [])
        flt = SearchFilter(vault_ids=(main.id,))
        assert store.notes_named(["rk/pg16-upgrade"], flt, 5) == []
        assert store.notes_named(["upgrade"], flt, 5) == []
        assert store.notes_named(["dendron.topic"], flt, 5) == []
        assert len(store.notes_named(["dendron.topic.lookup"], flt, 5)) == 1
        assert store.notes_named(["pg16-upgrade"], SearchFilter(folders=("daily",)), 5) == []
        assert store.notes_named([], flt, 5) == []
