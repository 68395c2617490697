"""One retry policy and one reading of provider replies for every remote call.

Every HTTP call to a provider (an LLM server, an embedding server, a rerank endpoint) goes
through :func:`post_json` or :func:`stream_lines`:

- A reply with a status in :data:`RETRY_STATUS` (429 and the transient 5xx) and a transport
  failure (refused, reset, timed out) are retried, up to ``retries`` more attempts; any other
  status is final at once.
- The wait before retry *n* (from 1) is ``0.5 * 2**(n-1)`` seconds, at most 8, unless the
  reply says ``Retry-After`` (seconds or an HTTP date), which is honoured up to 10 seconds.
- A stream is retried only until its first line arrives: once a line is out, a retry would
  repeat it, so a later failure ends the stream with an error.
- The last failure becomes the caller's error (:class:`Provider`): a status becomes
  ``<what> at <url> answered 503 Service Unavailable (code)``, a timeout ``<what> at <url>
  timed out`` (:class:`~notecite.errors.LLMTimeoutError` for an LLM), any other transport
  failure ``<what> at <url> unreachable: <why>``.

A provider receives note text and prompts, and some echo the request back in their error
replies. Errors reach API responses, the web page and logs, so a reply's body goes to the
DEBUG log only; a message keeps the status code, its standard reason phrase, and an
OpenAI-style error code such as ``context_length_exceeded`` when the reply has one (a
snake_case identifier, which cannot carry a sentence of a note).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt
from tenacity import wait_exponential as _wait_exponential

from notecite.errors import EmbeddingError, LLMError, LLMTimeoutError, NotecitError, RerankError

logger = logging.getLogger(__name__)

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
"""Statuses worth another attempt: rate limited, or a server that may recover."""

BACKOFF_FIRST_S = 0.5
BACKOFF_MAX_S = 8.0
RETRY_AFTER_MAX_S = 10.0

_CODE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
_MAX_CODE = 64
_MAX_LOGGED = 2000


@dataclass(frozen=True)
class Provider:
    """Who answers a call: how its errors name it and which errors they are.

    Attributes:
        what: the name in messages, e.g. ``"LLM server"``.
        error: raised for a failed status, an unreachable server, or a bad reply.
        timeout_error: raised when the server does not answer in time.
    """

    what: str
    error: type[NotecitError]
    timeout_error: type[NotecitError]

    def failed(self, url: str, status: int, body: str) -> NotecitError:
        """The error for a failed reply (the body is logged at DEBUG, never quoted)."""
        return self.error(failed_reply(self.what, url, status, body))

    def timed_out(self, url: str) -> NotecitError:
        """The error for a call that ran out of time."""
        return self.timeout_error(f"{self.what} at {url} timed out")

    def unreachable(self, url: str, exc: BaseException) -> NotecitError:
        """The error for any other transport failure."""
        return self.error(f"{self.what} at {url} unreachable: {exc}")

    def invalid_json(self, url: str) -> NotecitError:
        """The error for a successful reply that is not JSON."""
        return self.error(f"{self.what} at {url} sent invalid JSON")


LLM_SERVER = Provider("LLM server", LLMError, LLMTimeoutError)
EMBEDDING_SERVER = Provider("embedding server", EmbeddingError, EmbeddingError)
RERANK_ENDPOINT = Provider("rerank endpoint", RerankError, RerankError)


def post_json(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    *,
    provider: Provider,
    retries: int,
    timeout_s: float | None = None,
) -> Any:
    """POST ``payload`` as JSON and return the decoded reply, retrying transient failures.

    Args:
        client: the provider's client (base headers, default timeout).
        url: the full URL.
        payload: the JSON body.
        provider: who answers, for the errors.
        retries: attempts after the first one.
        timeout_s: overrides the client's timeout for this call.

    Raises:
        NotecitError: ``provider``'s error (or its timeout error) once the retries are spent.
    """
    timeout: Any = timeout_s if timeout_s is not None else httpx.USE_CLIENT_DEFAULT

    def attempt() -> httpx.Response:
        response = client.post(url, json=payload, timeout=timeout)
        _raise_if_retryable(response)
        return response

    with _provider_errors(provider, url):
        response = _retrying(provider, url, retries)(attempt)
    if response.status_code >= 400:
        raise provider.failed(url, response.status_code, response.text)
    try:
        return response.json()
    except ValueError as exc:
        raise provider.invalid_json(url) from exc


def stream_lines(
    client: httpx.Client,
    url: str,
    payload: dict[str, Any],
    *,
    provider: Provider,
    retries: int,
) -> Iterator[str]:
    """POST ``payload`` as JSON and yield the reply's lines (SSE or NDJSON).

    Transient failures are retried until the first line arrives, never after.

    Raises:
        NotecitError: ``provider``'s error (or its timeout error), before or during the stream.
    """

    def attempt() -> tuple[httpx.Response, Iterator[str], str | None]:
        response = client.send(client.build_request("POST", url, json=payload), stream=True)
        try:
            if response.status_code >= 400:
                response.read()
                _raise_if_retryable(response)
                raise provider.failed(url, response.status_code, response.text)
            lines = response.iter_lines()
            first = next(lines, None)
        except BaseException:
            response.close()
            raise
        return response, lines, first

    with _provider_errors(provider, url):
        response, lines, first = _retrying(provider, url, retries)(attempt)
    try:
        if first is None:
            return
        yield first
        with _provider_errors(provider, url):
            yield from lines
    finally:
        response.close()


class _RetryableStatus(Exception):
    """A reply whose status is in RETRY_STATUS (its body is kept for the final error)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"answered {response.status_code}")
        self.status = response.status_code
        self.body = response.text
        self.retry_after = retry_after_s(response.headers.get("retry-after"))


def _raise_if_retryable(response: httpx.Response) -> None:
    if response.status_code in RETRY_STATUS:
        raise _RetryableStatus(response)


@contextlib.contextmanager
def _provider_errors(provider: Provider, url: str) -> Iterator[None]:
    """Turn the last transient failure into ``provider``'s error."""
    try:
        yield
    except _RetryableStatus as exc:
        raise provider.failed(url, exc.status, exc.body) from None
    except httpx.TimeoutException as exc:
        raise provider.timed_out(url) from exc
    except httpx.HTTPError as exc:
        raise provider.unreachable(url, exc) from exc


_exponential = _wait_exponential(multiplier=BACKOFF_FIRST_S, max=BACKOFF_MAX_S)


def _wait(state: RetryCallState) -> float:
    """Exponential back-off, or the reply's ``Retry-After`` (bounded) when it has one."""
    failure = state.outcome.exception() if state.outcome is not None else None
    if isinstance(failure, _RetryableStatus) and failure.retry_after is not None:
        return min(failure.retry_after, RETRY_AFTER_MAX_S)
    return float(_exponential(state))


def _retrying(provider: Provider, url: str, retries: int) -> Retrying:
    def log_retry(state: RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        logger.warning(
            "%s at %s failed (%s); retry %d of %d in %.1f s",
            provider.what,
            url,
            failure if isinstance(failure, _RetryableStatus) else type(failure).__name__,
            state.attempt_number,
            retries,
            wait,
        )

    return Retrying(
        stop=stop_after_attempt(retries + 1),
        wait=_wait,
        retry=retry_if_exception_type((_RetryableStatus, httpx.HTTPError)),
        before_sleep=log_retry,
        reraise=True,
    )


def retry_after_s(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


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
