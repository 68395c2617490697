"""What an error may say about a provider's reply: its status and a short code, never its body.

A provider (LLM, embedding server, reranker) receives note text and prompts, and some echo
the request back in their error replies. Errors reach API responses, the web page and logs,
so the reply body goes to the DEBUG log only; the message keeps the status code, its standard
reason phrase, and an OpenAI-style error code such as ``context_length_exceeded`` when the
reply has one (a snake_case identifier, which cannot carry a sentence of a note).
"""

from __future__ import annotations

import json
import logging
import re
from http import HTTPStatus

logger = logging.getLogger(__name__)

_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_MAX_CODE = 64
_MAX_LOGGED = 2000


def _error_code(body: str) -> str | None:
    """``error.code`` or ``error.type`` of an OpenAI-style JSON reply, when identifier-like."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        return None
    for key in ("code", "type"):
        value = error.get(key)
        if isinstance(value, str) and len(value) <= _MAX_CODE and _CODE.fullmatch(value):
            return value
    return None


def status_text(status: int) -> str:
    """``503 Service Unavailable`` (the standard phrase, not the server's)."""
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def failed_reply(what: str, url: str, status: int, body: str) -> str:
    """The message of an error for a failed HTTP reply; logs the body at DEBUG.

    Args:
        what: who answered, e.g. ``"LLM server"``.
        url: the URL that was called.
        status: the reply's status code.
        body: the reply's text (logged at DEBUG only, never returned).

    Returns:
        e.g. ``LLM server at http://h/v1/chat/completions answered 400 Bad Request
        (context_length_exceeded)``.
    """
    logger.debug("%s at %s answered %s: %s", what, url, status, body[:_MAX_LOGGED])
    code = _error_code(body)
    reason = f" ({code})" if code else ""
    return f"{what} at {url} answered {status_text(status)}{reason}"


def without_body(message: str, part: str) -> str:
    """``message`` for an unreadable piece of a reply (a stream event); the piece is logged at
    DEBUG instead of quoted."""
    logger.debug("%s: %s", message, part[:_MAX_LOGGED])
    return message
