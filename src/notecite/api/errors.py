"""The one set of HTTP exception handlers: every error is ``{"error": {"type", "message"}}``."""

from __future__ import annotations

import json
import logging
from typing import Any, ClassVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Send

from notecite.chat.errors import ChatError, SessionNotFoundError, TenantNotFoundError
from notecite.errors import (
    ConfigError,
    EmbedderMismatchError,
    FilterError,
    IndexBusyError,
    LLMError,
    NotecitError,
    StoreError,
    VaultError,
)
from notecite.generate.failures import LLM_TIMEOUT, failure_type

logger = logging.getLogger(__name__)


class ApiError(Exception):
    """An error of the HTTP interface itself, with its status code."""

    status_code: ClassVar[int] = 400
    headers: ClassVar[dict[str, str] | None] = None


class NotFoundError(ApiError):
    """The path names a vault (or other thing) that does not exist."""

    status_code: ClassVar[int] = 404


class ConflictError(ApiError):
    """The request clashes with what exists (a vault name taken, an index run going on)."""

    status_code: ClassVar[int] = 409


class UnauthorizedError(ApiError):
    """No API key, or a wrong one."""

    status_code: ClassVar[int] = 401
    headers: ClassVar[dict[str, str] | None] = {"WWW-Authenticate": "Bearer"}


class ForbiddenError(ApiError):
    """The key is valid but the request asks for another tenant's data."""

    status_code: ClassVar[int] = 403


class InvalidRequestError(ApiError):
    """The request is well-formed JSON but asks for something invalid."""

    status_code: ClassVar[int] = 422


_LIBRARY_STATUS: tuple[tuple[type[NotecitError], int], ...] = (
    (SessionNotFoundError, 404),
    (TenantNotFoundError, 404),
    (ChatError, 400),
    (EmbedderMismatchError, 409),
    (IndexBusyError, 409),
    (StoreError, 503),
    (VaultError, 400),
    (FilterError, 400),
    (ConfigError, 400),
    (LLMError, 502),
)


def error_body(type_: str, message: str) -> dict[str, Any]:
    """``{"error": {"type": ..., "message": ...}}``."""
    return {"error": {"type": type_, "message": message}}


async def send_error(
    send: Send,
    status: int,
    type_: str,
    message: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    """Send an error response from ASGI middleware (outside the exception handlers)."""
    body = json.dumps(error_body(type_, message)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                *(headers or []),
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body, "more_body": False})


def llm_failure_status(error_type: str) -> int:
    """504 for an LLM timeout (``error_type`` ``LLMTimeoutError``), 502 for any other LLM
    failure."""
    return 504 if error_type == LLM_TIMEOUT else 502


def describe(exc: BaseException) -> tuple[int, dict[str, Any]]:
    """Status code and error body for any exception (used by the handlers and by SSE)."""
    if isinstance(exc, ApiError):
        return exc.status_code, error_body(type(exc).__name__, str(exc))
    if isinstance(exc, LLMError):
        type_ = failure_type(exc)
        return llm_failure_status(type_), error_body(type_, str(exc))
    if isinstance(exc, NotecitError):
        status = next((s for kind, s in _LIBRARY_STATUS if isinstance(exc, kind)), 500)
        return status, error_body(type(exc).__name__, str(exc))
    logger.error("unexpected error", exc_info=exc)
    return 500, error_body("InternalError", "internal server error; see the server log")


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors()[:5]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        if error.get("type") == "json_invalid":
            parts.append("the request body is not valid JSON")
        else:
            parts.append(f"{where or 'body'}: {error.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on ``app``."""

    async def on_library_error(request: Request, exc: Exception) -> JSONResponse:
        status, body = describe(exc)
        headers = exc.headers if isinstance(exc, ApiError) else None
        return JSONResponse(body, status_code=status, headers=headers)

    async def on_validation_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return JSONResponse(
            error_body("ValidationError", _validation_message(exc)), status_code=422
        )

    async def on_http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        kind = "NotFoundError" if exc.status_code == 404 else "HTTPError"
        return JSONResponse(
            error_body(kind, str(exc.detail)),
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    app.add_exception_handler(ApiError, on_library_error)
    app.add_exception_handler(NotecitError, on_library_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
