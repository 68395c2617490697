"""`notecite mcp`: the MCP server over stdio, for assistants that launch it (Claude Desktop,
VS Code, Cursor)."""

from __future__ import annotations

import click

from notecite.cli.state import CliState, pass_state
from notecite.config import TENANT_NAME


def _tenant(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not TENANT_NAME.fullmatch(value):
        raise click.BadParameter("use letters, digits, '_', '.', '-' (at most 100)")
    return value


@click.command("mcp")
@click.option(
    "--tenant",
    callback=_tenant,
    help="Serve this tenant's vaults (default: the root --tenant, i.e. 'default').",
)
@pass_state
def mcp_command(state: CliState, tenant: str | None) -> None:
    """Serve your notes to an assistant over MCP (stdio) until the client closes it.

    Tools: search, ask (cited answers, or an abstention), get_note, list_vaults; notes are
    resources at notecite://VAULT/PATH. The client starts this command itself: see the
    README for Claude Desktop and VS Code. Over HTTP, `notecite serve` answers MCP at /mcp.
    """
    from notecite.mcp import build_server

    if tenant is not None:
        state.tenant = tenant
    engine = state.engine
    build_server(lambda ctx: engine).run("stdio")
