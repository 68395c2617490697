"""The QueryLog contract, written once and run against the query log of every store.

A subclass provides ``logs``: the query logs of two tenants of one fresh database.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from notecite.records import QueryLogRecord
from notecite.store.query_log import QueryLog

Logs = tuple[QueryLog, QueryLog]


def entry(question: str, **fields: object) -> QueryLogRecord:
    values: dict[str, object] = {
        "answer": f"answer to {question}",
        "abstained": False,
        "references": ("notes/a.md", "notes/b.md"),
        "llm": "echo",
        "total_ms": 12.5,
    }
    values.update(fields)
    return QueryLogRecord(question=question, **values)  # type: ignore[arg-type]


class QueryLogContract:
    """Behaviour every :class:`~notecite.store.query_log.QueryLog` must have."""

    @pytest.fixture
    def logs(self) -> Logs:
        raise NotImplementedError("a query log test class provides logs")

    def test_entries_come_back_newest_first_as_written(self, logs: Logs) -> None:
        log, _ = logs
        start = datetime.now(UTC) - timedelta(seconds=1)
        log.record(entry("first?"))
        log.record(entry("second?", abstained=True, references=(), total_ms=None))
        first, second = reversed(log.entries())
        assert (first.question, first.answer, first.abstained) == (
            "first?",
            "answer to first?",
            False,
        )
        assert (first.references, first.llm, first.total_ms) == (
            ("notes/a.md", "notes/b.md"),
            "echo",
            12.5,
        )
        assert (second.abstained, second.references, second.total_ms) == (True, (), None)
        assert second.id > first.id
        assert (
            start <= first.asked_at <= second.asked_at <= datetime.now(UTC) + timedelta(seconds=1)
        )
        assert [e.question for e in log.entries(limit=1)] == ["second?"]

    def test_each_tenant_sees_and_purges_only_its_own_entries(self, logs: Logs) -> None:
        mine, theirs = logs
        mine.record(entry("mine?"))
        theirs.record(entry("theirs?"))
        assert [e.question for e in mine.entries()] == ["mine?"]
        assert theirs.purge() == 1
        assert theirs.entries() == []
        assert [e.question for e in mine.entries()] == ["mine?"]

    def test_purge_before_deletes_only_older_entries(self, logs: Logs) -> None:
        log, _ = logs
        log.record(entry("old?"))
        time.sleep(0.01)
        cutoff = datetime.now(UTC)
        time.sleep(0.01)
        log.record(entry("new?"))
        assert log.purge(cutoff) == 1
        assert [e.question for e in log.entries()] == ["new?"]
        assert log.purge() == 1
        assert log.entries() == []
        assert log.purge() == 0
