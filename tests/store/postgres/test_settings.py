"""Choosing the PostgreSQL store in settings (no server needed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from notecite import Engine
from notecite.config import StoreSettings, masked_settings
from notecite.errors import ConfigError
from notecite.store.postgres import create_store
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings

URL = "postgresql://notes:hunter2@db.example/notes"


def test_settings_build_a_postgres_store_without_connecting(tmp_path: Path) -> None:
    settings = hash_settings(
        tmp_path, store={"backend": "postgres", "url": URL, "hnsw_ef_search": 123}
    )
    with Engine(settings) as engine:
        store = engine.store
        assert isinstance(store, PostgresStore)
        assert (store.tenant_id, store.ef_search) == (1, 123)
        assert "hunter2" not in repr(store)
    assert masked_settings(settings)["store"]["url"] == "**********"


def test_postgres_without_a_url_is_a_config_error(tmp_path: Path) -> None:
    with (
        Engine(hash_settings(tmp_path, store={"backend": "postgres"})) as engine,
        pytest.raises(ConfigError, match=r"needs store\.url"),
    ):
        engine.store.list_vaults()


def test_missing_psycopg_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(sys.modules):
        if name.startswith(("psycopg", "notecite.store.postgres.")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # what `import psycopg` finds
    with pytest.raises(ConfigError, match=r"pip install 'notecite\[postgres\]'"):
        create_store(StoreSettings(backend="postgres", url=SecretStr(URL)))
