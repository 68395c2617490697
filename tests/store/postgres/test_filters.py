"""Frontmatter filters on PostgreSQL: the shared filter contract."""

from __future__ import annotations

import pytest

from notecite.store.postgres.store import PostgresStore
from tests.store.contract import StoreFactory
from tests.store.filter_contract import FrontmatterFilterContract

pytestmark = pytest.mark.postgres


class TestPostgresFilters(FrontmatterFilterContract):
    @pytest.fixture
    def store_factory(self, pg_url: str) -> StoreFactory:
        return lambda: PostgresStore(pg_url)
