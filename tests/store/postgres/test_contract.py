"""The shared store contract, run against PostgreSQL."""

from __future__ import annotations

import pytest

from notecite.store.postgres.store import PostgresStore
from tests.store.contract import StoreContract, StoreFactory
from tests.store.ranking_contract import RankingContract
from tests.store.status_contract import IndexRunsContract, VectorGapsContract

pytestmark = pytest.mark.postgres


class TestPostgresStore(StoreContract, RankingContract, VectorGapsContract, IndexRunsContract):
    @pytest.fixture
    def store_factory(self, pg_url: str) -> StoreFactory:
        return lambda: PostgresStore(pg_url)
