"""notecite's errors as MCP errors, with the messages the command line prints.

A tool's failure becomes a tool error (``isError: true``, the message as its text) that the
model reads and can act on: an unknown vault lists the known ones, a path that leaves its
vault says so. A resource read that fails becomes the protocol error the SDK sends for a
:class:`ResourceError`. Anything else is a crash: the SDK logs it and tells the client only
that the tool failed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from pydantic import ValidationError

from notecite.errors import NotecitError


def message(exc: Exception) -> str:
    """What the command line would print after ``error:`` (one line for a bad value)."""
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ()))
        return f"{where}: {first.get('msg', 'invalid value')}" if where else str(first["msg"])
    return str(exc)


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turn notecite errors (and a refused value) raised inside into a ToolError."""
    try:
        yield
    except (NotecitError, ValueError) as exc:
        raise ToolError(message(exc)) from exc


@contextmanager
def resource_errors() -> Iterator[None]:
    """Turn notecite errors raised inside into a ResourceError."""
    try:
        yield
    except (NotecitError, ValueError) as exc:
        raise ResourceError(message(exc)) from exc
