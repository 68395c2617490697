"""Naming LLM failures for clients: a timeout is told apart from other failures."""

from __future__ import annotations

from notecite.errors import LLMError, LLMTimeoutError

LLM_TIMEOUT = "LLMTimeoutError"
LLM_FAILURE = "LLMError"


def failure_type(exc: LLMError | None) -> str:
    """The ``error.type`` clients see for an LLM failure (``exc``, the provider's error).

    Returns:
        ``LLMTimeoutError`` when the model did not answer in time (the providers raise
        :class:`~notecite.errors.LLMTimeoutError`), else ``LLMError``.
    """
    return LLM_TIMEOUT if isinstance(exc, LLMTimeoutError) else LLM_FAILURE
