"""`notecite config show`."""

from __future__ import annotations

import json

import click

from notecite.cli.state import CliState, pass_state
from notecite.config import masked_settings
from notecite.embed.registry import available_embedders


@click.group("config")
def config_group() -> None:
    """Inspect settings."""


@config_group.command("show")
@pass_state
def config_show(state: CliState) -> None:
    """Print the merged settings (secrets masked) and the available embedders."""
    data = masked_settings(state.settings)
    data["available_embedders"] = available_embedders()
    click.echo(json.dumps(data, indent=2))
