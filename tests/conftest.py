"""Shared fixtures: settings in a temporary home, an Engine, a vault builder, shared data."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from notecite import Engine, Settings
from notecite.testing import hash_settings, write_files
from tests.helpers import SHARED_DATA, MakeVault
from tests.postgres_server import pg_cluster, pg_database, pg_url, pytest_runtest_makereport

__all__ = ["pg_cluster", "pg_database", "pg_url", "pytest_runtest_makereport"]

# notecite's own pytest plugin (notecite_engines, notecite_cli, provider_server), loaded the
# way a third party's conftest.py would load it.
pytest_plugins = ["notecite.testing.fixtures"]


@pytest.fixture(scope="session")
def _empty_user_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("user-home")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, _empty_user_home: Path) -> None:
    """No test sees the developer's own notecite settings, data dir or config.toml."""
    for key in list(os.environ):
        if key.startswith("NOTECITE_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("HOME", str(_empty_user_home))
    monkeypatch.setenv("XDG_DATA_HOME", str(_empty_user_home / ".local" / "share"))


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """The CLI root configures logging (to the runner's temporary stderr); undo that after
    every test, whichever test ran a command."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_options(request: pytest.FixtureRequest) -> dict[str, str]:
    """The ``store`` settings of each backend in turn: the embedded SQLite file, then a
    fresh PostgreSQL database (a test that takes it runs once on each)."""
    if request.param == "postgres":
        return {"backend": "postgres", "url": request.getfixturevalue("pg_url")}
    return {}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """``load_settings(home=tmp_path / "home", embedder={"name": "hash"})``."""
    return hash_settings(tmp_path / "home")


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    with Engine(settings) as eng:
        yield eng


@pytest.fixture
def make_vault(tmp_path: Path) -> MakeVault:
    """``make_vault({"a.md": "..."}, name="vault")`` writes a folder of notes."""

    def make(files: dict[str, str | bytes], name: str = "vault") -> Path:
        return write_files(tmp_path / name, files)

    return make


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` next to the repository."""
    assert SHARED_DATA.is_dir(), f"shared data missing at {SHARED_DATA}"
    return SHARED_DATA
