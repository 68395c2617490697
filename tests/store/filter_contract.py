"""Frontmatter filters, written once and run against every store (SQLite and PostgreSQL).

A subclass provides ``store_factory`` as for :class:`tests.store.contract.StoreContract`.
Every case checks both candidate paths (vector and BM25) and ``recent_chunks``: a filter
narrows what is searched, not what is shown.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from notecite.filters import parse_filters
from notecite.store.base import FrontmatterFacets, Store, TenantStores
from notecite.types import SearchFilter, Vault
from tests.store.contract import (
    DIMS,
    MODEL,
    OpenedStore,
    make_chunk,
    make_record,
    unit,
)

NOTES: dict[str, tuple[str, dict[str, Any]]] = {
    # rel_path: (vault, frontmatter)
    "meetings/kickoff.md": (
        "main",
        {
            "type": "meeting",
            "tags": ["atlas", "launch"],
            "status": "final",
            "created": "2024-03-01",
            "due": "2024-04-01",
        },
    ),
    "projects/atlas.md": (
        "main",
        {"type": "Project", "tags": ["projects/atlas", "Atlas"], "status": "draft"},
    ),
    "projects/beacon.md": (
        "main",
        {
            "type": "project",
            "tags": "projects/beacon, #launch",
            "created": 1704153600000,  # 2024-01-02 in epoch milliseconds (Dendron)
            "priority": 2,
        },
    ),
    "journal/day.md": (
        "main",
        {"type": "journal", "tags": ["projects-old"], "priority": 5, "created": "2023-06-01"},
    ),
    "other/x.md": ("other", {"type": "meeting", "tags": ["atlas"], "status": "draft"}),
}
MAIN = {p for p, (v, _) in NOTES.items() if v == "main"}


class FrontmatterFilterContract(OpenedStore):
    """Filters on frontmatter that every store must push down to both search paths."""

    @pytest.fixture
    def vaults(self, store: Store, tmp_path: Path) -> dict[str, Vault]:
        vaults = {name: store.add_vault(name, tmp_path / name) for name in ("main", "other")}
        for i, (rel_path, (vault, front)) in enumerate(sorted(NOTES.items())):
            chunk = make_chunk(rel_path, 0, f"budget review number {i}")
            record = make_record(vaults[vault], rel_path, when=datetime(2025, 1, i + 1, tzinfo=UTC))
            store.replace_note(dataclasses.replace(record, frontmatter=front), [chunk])
            store.put_embeddings(MODEL, {chunk.content_hash: unit(1, 0.1 * (i + 1), 0, 0)})
        store.set_embedder_info(MODEL, DIMS)
        return vaults

    @staticmethod
    def found(store: Store, flt: SearchFilter) -> set[str]:
        """Paths found by vector search, checked equal to BM25's and the recent notes'."""
        vector = store.vector_search(MODEL, unit(1, 0, 0, 0), flt, 20)
        lexical = store.lexical_search("budget", flt, 20)
        recent = store.recent_chunks(flt, 20)
        paths = []
        for rowids in ([h.chunk_rowid for h in vector], [h.chunk_rowid for h in lexical], recent):
            chunks = store.fetch_chunks(rowids)
            paths.append({chunks[r].rel_path for r in rowids})
        assert paths[0] == paths[1] == paths[2]
        return paths[0]

    @pytest.mark.parametrize(
        ("expression", "expected"),
        [
            ("tags=atlas", {"meetings/kickoff.md", "projects/atlas.md"}),
            ("TAGS=ATLAS", {"meetings/kickoff.md", "projects/atlas.md"}),
            ("tags=launch", {"meetings/kickoff.md", "projects/beacon.md"}),  # list or string
            (
                "tags in [launch, projects-old]",
                {"meetings/kickoff.md", "projects/beacon.md", "journal/day.md"},
            ),
            ("tags^=projects/", {"projects/atlas.md", "projects/beacon.md"}),
            ("tags^=projects/atlas", {"projects/atlas.md"}),
            ("tags^=project", set()),  # hierarchical: not a string prefix
            ("type=project", {"projects/atlas.md", "projects/beacon.md"}),  # scalar, any case
            ("type:meeting", {"meetings/kickoff.md"}),
            ("status!=draft", {"meetings/kickoff.md", "projects/beacon.md", "journal/day.md"}),
            ("tags not in [atlas, launch]", {"journal/day.md"}),
            ("has:due", {"meetings/kickoff.md"}),
            ("has:status", {"meetings/kickoff.md", "projects/atlas.md"}),
            ("!has:status", {"projects/beacon.md", "journal/day.md"}),
            ("created>=2024-01-01", {"meetings/kickoff.md", "projects/beacon.md"}),
            ("created<2024-01-02", {"journal/day.md"}),
            ("created<=2024-01-02", {"journal/day.md", "projects/beacon.md"}),
            ("created>2024-01-02", {"meetings/kickoff.md"}),
            ("priority>=2 and priority<5", {"projects/beacon.md"}),
            ("type=project tags=launch", {"projects/beacon.md"}),
            ("persona=pirate", set()),  # a key no note has matches nothing
            ("tags=atlas status=final type=journal", set()),
        ],
    )
    def test_operator(
        self, store: Store, vaults: dict[str, Vault], expression: str, expected: set[str]
    ) -> None:
        flt = SearchFilter(vault_ids=(vaults["main"].id,), frontmatter=parse_filters([expression]))
        assert self.found(store, flt) == expected

    def test_filters_add_to_folder_and_vault_scopes(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        conditions = parse_filters(["tags=atlas"])
        assert self.found(store, SearchFilter(frontmatter=conditions)) == {
            "meetings/kickoff.md",
            "projects/atlas.md",
            "other/x.md",
        }
        in_folder = SearchFilter(folders=("projects",), frontmatter=conditions)
        assert self.found(store, in_folder) == {"projects/atlas.md"}

    def test_filters_follow_rewritten_frontmatter(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        flt = SearchFilter(frontmatter=parse_filters(["status=draft"]))
        assert self.found(store, flt) == {"projects/atlas.md", "other/x.md"}
        chunk = make_chunk("projects/atlas.md", 0, "budget rewritten")
        record = make_record(vaults["main"], "projects/atlas.md")
        store.replace_note(dataclasses.replace(record, frontmatter={"status": "done"}), [chunk])
        store.put_embeddings(MODEL, {chunk.content_hash: unit(1, 0, 0, 0)})
        assert self.found(store, flt) == {"other/x.md"}
        store.delete_notes(vaults["other"].id, ["other/x.md"])
        assert self.found(store, flt) == set()

    def test_tenant_isolation_under_filters(
        self, store: Store, vaults: dict[str, Vault], tmp_path: Path
    ) -> None:
        assert isinstance(store, TenantStores)
        other = store.for_tenant("beta")
        try:
            vault = other.add_vault("main", tmp_path / "beta")
            chunk = make_chunk("beta/secret.md", 0, "budget of beta")
            record = make_record(vault, "beta/secret.md")
            other.replace_note(
                dataclasses.replace(record, frontmatter={"tags": ["atlas"]}), [chunk]
            )
            other.put_embeddings(MODEL, {chunk.content_hash: unit(1, 0, 0, 0)})
            flt = SearchFilter(frontmatter=parse_filters(["tags=atlas"]))
            assert self.found(other, flt) == {"beta/secret.md"}
            assert "beta/secret.md" not in self.found(store, flt)
            assert isinstance(other, FrontmatterFacets)
            assert other.frontmatter_facets([], ["tags"]) == {"tags": {"atlas": 1}}
        finally:
            other.close()

    def test_facets_count_notes_per_value(self, store: Store, vaults: dict[str, Vault]) -> None:
        assert isinstance(store, FrontmatterFacets)
        facets = store.frontmatter_facets
        found = facets([vaults["main"].id], ["type", "tags"])
        assert found["type"] == {"project": 2, "journal": 1, "meeting": 1}
        assert found["tags"]["atlas"] == 2
        assert found["tags"]["projects/beacon"] == 1
        assert facets([], ["type"])["type"]["meeting"] == 2
        assert facets([vaults["main"].id], ["persona"]) == {"persona": {}}

    def test_chunk_fields_are_the_values_a_chunks_note_holds(
        self, store: Store, vaults: dict[str, Vault]
    ) -> None:
        assert isinstance(store, FrontmatterFacets)
        hits = store.lexical_search("budget", SearchFilter(), 20)
        by_path = {
            c.rel_path: r for r, c in store.fetch_chunks([h.chunk_rowid for h in hits]).items()
        }
        found = store.chunk_fields(list(by_path.values()), ["Tags", "status", "persona"])
        kickoff = found[by_path["meetings/kickoff.md"]]
        assert {k: sorted(v) for k, v in kickoff.items()} == {
            "tags": ["atlas", "launch"],
            "status": ["final"],
        }
        assert by_path["journal/day.md"] in found  # tags only
        assert "status" not in found[by_path["journal/day.md"]]
        assert store.chunk_fields([], ["tags"]) == {}
