"""Root of the `notecite` command: settings, logging, and the one error boundary."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import click

from notecite.cli.ask_cmd import ask_command
from notecite.cli.chat_cmd import chat_command, sessions_group
from notecite.cli.config_cmd import config_group
from notecite.cli.eval_cmd import eval_group
from notecite.cli.index_cmd import index_command, status_command, watch_command
from notecite.cli.log_cmd import log_group
from notecite.cli.mcp_cmd import mcp_command
from notecite.cli.models_cmd import models_group
from notecite.cli.search_cmd import search_command
from notecite.cli.serve_cmd import serve_command
from notecite.cli.state import CliState
from notecite.cli.store_cmd import store_group
from notecite.cli.templates_cmd import templates_group
from notecite.cli.vault_cmd import vault_group
from notecite.config import DEFAULT_TENANT, TENANT_NAME, config_file_path, load_settings
from notecite.errors import NotecitError


class _Root(click.Group):
    """Turns notecite errors into one line and exit code 1 (traceback only with --debug)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NotecitError as exc:
            if ctx.params.get("debug"):
                raise
            click.echo(f"error: {exc}", err=True)
            ctx.exit(1)


def _tenant_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not TENANT_NAME.fullmatch(value):
        raise click.BadParameter("use letters, digits, '_', '.', '-' (at most 100)")
    return value


@click.group(cls=_Root)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML settings file (default: $NOTECITE_CONFIG or <home>/config.toml).",
)
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Data directory (default: $NOTECITE_HOME or the platform user data dir).",
)
@click.option("--embedder", help="Embedding provider: minilm (default), openai, ollama, hash.")
@click.option(
    "--llm", help="LLM provider: local (default if installed), openai, ollama, extractive."
)
@click.option(
    "--tenant",
    default=DEFAULT_TENANT,
    show_default=True,
    callback=_tenant_name,
    help="Work on this tenant's vaults, notes and chat sessions.",
)
@click.option("--debug", is_flag=True, help="Log at DEBUG level and show tracebacks.")
@click.version_option(package_name="notecite")
@click.pass_context
def cli(
    ctx: click.Context,
    config_file: Path | None,
    home: Path | None,
    embedder: str | None,
    llm: str | None,
    tenant: str,
    debug: bool,
) -> None:
    """notecite: answers from your notes, citing the exact file and section."""
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    overrides: dict[str, Any] = {}
    if home is not None:
        overrides["home"] = home
    if embedder:
        overrides["embedder"] = {"name": embedder}
    if llm:
        overrides["llm"] = llm
    settings = load_settings(config_file, **overrides)
    state = CliState(
        debug=debug,
        tenant=tenant,
        settings=settings,
        config_file=config_file_path(config_file, settings.home),
    )
    ctx.obj = state
    ctx.call_on_close(state.close)


cli.add_command(vault_group)
cli.add_command(index_command)
cli.add_command(watch_command)
cli.add_command(status_command)
cli.add_command(search_command)
cli.add_command(ask_command)
cli.add_command(chat_command)
cli.add_command(sessions_group)
cli.add_command(eval_group)
cli.add_command(config_group)
cli.add_command(serve_command)
cli.add_command(mcp_command)
cli.add_command(templates_group)
cli.add_command(log_group)
cli.add_command(store_group)
cli.add_command(models_group)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="notecite")
