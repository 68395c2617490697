"""`notecite store migrate` between two SQLite files, and its refusals (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from notecite import Engine
from notecite.cli.main import cli
from notecite.errors import ConfigError
from notecite.store.migrate import Location, migrate_index
from notecite.testing import hash_settings
from tests.chat.notes import index_notes


def test_a_copy_between_files_keeps_search_results(tmp_path: Path) -> None:
    with Engine(hash_settings(tmp_path / "a")) as engine:
        index_notes(engine, tmp_path / "notes")
        expected = [(r.rel_path, r.score) for r in engine.search("Apollo budget", k=3)]
        source = engine.settings.db_path
    target = tmp_path / "b" / "copy.db"
    (report,) = migrate_index(Location(path=source), Location(path=target))
    assert report.mismatches() == []
    assert report.copied.notes == report.source.notes == 3
    (again,) = migrate_index(Location(path=source), Location(path=target))
    assert (again.copied.notes, again.copied.chunks, again.copied.embeddings) == (0, 0, 0)
    with Engine(hash_settings(tmp_path / "b", store={"path": target})) as copy:
        found = [(r.rel_path, r.score) for r in copy.search("Apollo budget", k=3)]
        assert [path for path, _ in found] == [path for path, _ in expected]
        # scores carry recency, which ages between the two searches by a hair
        assert [score for _, score in found] == pytest.approx([s for _, s in expected], abs=1e-6)


def test_locations_are_urls_or_files(tmp_path: Path) -> None:
    assert Location.parse("postgresql://u@h/db").url == "postgresql://u@h/db"
    assert Location.parse("postgres://u@h/db").url == "postgres://u@h/db"
    assert Location.parse(str(tmp_path / "x.db")).path == tmp_path / "x.db"
    assert "secret" not in Location.parse("postgresql://u:secret@h:5/db").describe()
    with pytest.raises(ConfigError, match="unknown index location scheme"):
        Location.parse("mysql://u@h/db")


def test_migrating_an_index_onto_itself_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = CliRunner().invoke(
        cli,
        ["--home", str(home), "store", "migrate", "--to", str(home / "notecite.db")],
    )
    assert result.exit_code == 1
    assert "source and target are the same index" in result.output
