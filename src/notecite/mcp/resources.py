"""Notes as MCP resources: ``notecite://VAULT/PATH``, one template for every note.

A client attaches a note a search hit or a citation names (each carries its ``uri``); the
note is read through the Engine, so it must be an indexed note that lies inside its vault.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from notecite.mcp.errors import resource_errors
from notecite.mcp.tools import EngineFor

NOTE_TEMPLATE = "notecite://{vault}/{+path}"

NOTE_DESCRIPTION = (
    "A note of the user's notes, by vault and path (the `uri` of a search hit or a citation)."
)


def register_resources(server: MCPServer[Any], engine_for: EngineFor) -> None:
    """Add the note template to ``server``, read on the engine of the request's tenant."""

    def note(vault: str, path: str, ctx: Context[Any, Any]) -> str:
        with resource_errors():
            return engine_for(ctx).note_text(vault, path)

    server.resource(
        NOTE_TEMPLATE,
        name="note",
        title="Note",
        description=NOTE_DESCRIPTION,
        mime_type="text/markdown",
    )(note)
