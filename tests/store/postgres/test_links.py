"""Links on the PostgreSQL store: the shared contract, on a real server (pgserver)."""

from __future__ import annotations

import pytest

from notecite.store.postgres.store import PostgresStore
from tests.store.contract import StoreFactory
from tests.store.links_contract import LinksContract

pytestmark = pytest.mark.postgres


class TestPostgresLinks(LinksContract):
    @pytest.fixture
    def store_factory(self, pg_url: str) -> StoreFactory:
        return lambda: PostgresStore(pg_url)
