"""Naming LLM failures for clients: a timeout is told apart from other failures."""

from __future__ import annotations

import re

_TIMEOUT = re.compile(r"timed out|timeout|took longer than", re.IGNORECASE)

LLM_TIMEOUT = "LLMTimeoutError"
LLM_FAILURE = "LLMError"


def failure_type(message: str) -> str:
    """``LLMTimeoutError`` when an LLM failure message says it ran out of time, else ``LLMError``.

    The providers raise :class:`notecite.errors.LLMError` for every failure; their messages
    say "timed out" (HTTP providers) or "took longer than" (the local model) for timeouts.
    """
    return LLM_TIMEOUT if _TIMEOUT.search(message) else LLM_FAILURE
