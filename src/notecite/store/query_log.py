"""The QueryLog protocol: questions and answers of ``ask`` kept as rows (never as log lines)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from notecite.records import QueryLogEntry, QueryLogRecord


class QueryLog(Protocol):
    """The query log of one tenant.

    Contract:
    - ``record`` appends one entry, stamped with the time it was written.
    - ``entries`` returns the newest ``limit`` entries of the tenant, newest first.
    - ``purge`` deletes the tenant's entries (those asked before ``before`` when given) so
      that their text does not linger in the database, and returns how many went.
    - Safe to call from several threads.
    """

    def record(self, entry: QueryLogRecord) -> None: ...

    def entries(self, limit: int = 50) -> list[QueryLogEntry]: ...

    def purge(self, before: datetime | None = None) -> int: ...

    def close(self) -> None: ...
