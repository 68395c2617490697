"""What the query log keeps of one ``ask``: a plain record made from the ask response."""

from __future__ import annotations

from notecite.records import QueryLogRecord
from notecite.schemas.ask import AskResponse


def query_log_record(
    question: str, response: AskResponse, llm: str, total_ms: float | None = None
) -> QueryLogRecord:
    """The query-log record of ``question`` and its answer.

    Args:
        question: the question as asked.
        response: the answer given (its references are kept as ``vault/path``).
        llm: the name of the LLM provider that answered.
        total_ms: the wall time of the answer, in milliseconds.
    """
    return QueryLogRecord(
        question=question,
        answer=response.answer,
        abstained=response.abstained,
        references=tuple(f"{r.vault}/{r.rel_path}" for r in response.references),
        llm=llm,
        total_ms=total_ms,
    )
