"""HTTP calls to LLM servers with bounded retries on 429/5xx and connection errors."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import httpx

from notecite.errors import LLMError
from notecite.provider_replies import failed_reply

logger = logging.getLogger(__name__)

RETRY_STATUS = {429, 500, 502, 503, 504}


def _backoff(attempt: int, response: httpx.Response | None) -> float:
    if response is not None:
        after = response.headers.get("retry-after", "")
        if after.replace(".", "", 1).isdigit():
            return min(float(after), 10.0)
    return float(min(0.5 * 2**attempt, 8.0))


def post_with_retries(
    client: httpx.Client, url: str, payload: dict[str, Any], *, retries: int
) -> Any:
    """POST JSON and return the decoded reply, retrying transient failures."""
    for attempt in range(retries + 1):
        response: httpx.Response | None = None
        try:
            response = client.post(url, json=payload)
        except httpx.TimeoutException as exc:
            if attempt == retries:
                raise LLMError(f"LLM server at {url} timed out") from exc
        except httpx.HTTPError as exc:
            if attempt == retries:
                raise LLMError(f"LLM server at {url} unreachable: {exc}") from exc
        else:
            if response.status_code < 400:
                try:
                    return response.json()
                except ValueError as exc:
                    raise LLMError(f"LLM server at {url} sent invalid JSON") from exc
            if response.status_code not in RETRY_STATUS or attempt == retries:
                raise LLMError(failed_reply("LLM server", url, response.status_code, response.text))
        logger.warning("LLM request to %s failed; retry %d of %d", url, attempt + 1, retries)
        time.sleep(_backoff(attempt, response))
    raise AssertionError("unreachable")


def stream_with_retries(
    client: httpx.Client, url: str, payload: dict[str, Any], *, retries: int
) -> Iterator[str]:
    """POST JSON and yield the reply's lines; retries only before the first line arrives."""
    for attempt in range(retries + 1):
        status = 0
        started = False  # once a line is out, a retry would repeat it: fail instead
        try:
            with client.stream("POST", url, json=payload) as response:
                status = response.status_code
                if status < 400:
                    for line in response.iter_lines():
                        started = True
                        yield line
                    return
                body = response.read().decode("utf-8", "replace")
                if status not in RETRY_STATUS or attempt == retries:
                    raise LLMError(failed_reply("LLM server", url, status, body))
        except httpx.TimeoutException as exc:
            if started or attempt == retries:
                raise LLMError(f"LLM server at {url} timed out") from exc
        except httpx.HTTPError as exc:
            if started or attempt == retries:
                raise LLMError(f"LLM server at {url} unreachable: {exc}") from exc
        logger.warning("LLM stream to %s failed (%s); retry %d", url, status, attempt + 1)
        time.sleep(_backoff(attempt, None))
