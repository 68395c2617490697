"""Shared HTTP plumbing of the remote embedding providers: bounded retries on 429/5xx."""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx

from notecite.errors import EmbeddingError
from notecite.provider_replies import failed_reply

logger = logging.getLogger(__name__)

RETRY_STATUS = {429, 500, 502, 503, 504}


def post_json(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    *,
    retries: int = 3,
    timeout_s: float | None = None,
) -> Any:
    """POST ``payload``; retry 429/5xx and connection errors with backoff; return the JSON.

    ``timeout_s`` overrides the client's timeout for this call.
    """
    delay = 0.5
    timeout: Any = timeout_s if timeout_s is not None else httpx.USE_CLIENT_DEFAULT
    for attempt in range(retries + 1):
        try:
            response = client.post(url, json=payload, timeout=timeout)
        except httpx.HTTPError as exc:
            if attempt == retries:
                raise EmbeddingError(f"embedding server at {url} unreachable: {exc}") from exc
            logger.warning("embedding request to %s failed (%s); retrying", url, exc)
        else:
            if response.status_code not in RETRY_STATUS or attempt == retries:
                if response.status_code >= 400:
                    raise EmbeddingError(
                        failed_reply("embedding server", url, response.status_code, response.text)
                    )
                try:
                    return response.json()
                except ValueError as exc:
                    raise EmbeddingError(f"embedding server at {url} sent invalid JSON") from exc
            logger.warning("embedding server %s answered %s; retrying", url, response.status_code)
        time.sleep(delay)
        delay *= 2
    raise AssertionError("unreachable")
