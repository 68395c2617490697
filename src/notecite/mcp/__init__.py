"""notecite as an MCP server: tools (search, ask, get_note, list_vaults) and notes as
resources, over stdio (``notecite mcp``) or streamable HTTP (``/mcp`` of ``notecite serve``)."""

from notecite.mcp.server import build_server
from notecite.mcp.tools import EngineFor

__all__ = ["EngineFor", "build_server"]
