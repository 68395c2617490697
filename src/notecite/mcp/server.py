"""The MCP server of notecite, built on the official SDK (``mcp``).

:func:`build_server` makes one server for both transports: ``notecite mcp`` runs it over
stdio on the engine of ``--tenant``; ``notecite serve`` mounts it at ``/mcp`` (streamable
HTTP), where each request is served on the engine of its bearer key's tenant.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer

from notecite import __version__
from notecite.mcp.resources import register_resources
from notecite.mcp.tools import EngineFor, register_tools

INSTRUCTIONS = """notecite answers from the user's own notes (Markdown vaults), citing the
exact file, section and lines. Use `ask` for questions: its answers cite notes as [N1] and
it abstains, saying so, when the notes do not hold the answer. Use `search` to find notes,
`get_note` to read one (or a cited line span), `list_vaults` to learn the vaults and folders
that scope both. Everything is read-only."""


@contextmanager
def _logging_left_alone() -> Iterator[None]:
    """``MCPServer()`` calls ``logging.basicConfig`` (a handler on the root logger) when the
    root has none; the library configures no logging (the CLI and server do), so the root
    holds a handler for the call."""
    root = logging.getLogger()
    guard = logging.NullHandler()
    root.addHandler(guard)
    try:
        yield
    finally:
        root.removeHandler(guard)


def build_server(engine_for: EngineFor) -> MCPServer[Any]:
    """The notecite MCP server; ``engine_for(ctx)`` gives the engine a request runs on."""
    with _logging_left_alone():
        server: MCPServer[Any] = MCPServer(
            "notecite", title="notecite", instructions=INSTRUCTIONS, version=__version__
        )
    register_tools(server, engine_for)
    register_resources(server, engine_for)
    return server
