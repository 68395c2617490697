"""`notecite vault add|list|remove`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from notecite.cli.state import CliState, pass_state


@click.group("vault")
def vault_group() -> None:
    """Register, list and remove vaults (folders of notes)."""


@vault_group.command("add")
@click.argument("name")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@pass_state
def vault_add(state: CliState, name: str, path: Path) -> None:
    """Register the folder PATH as vault NAME (index it with `notecite index`)."""
    vault = state.engine.add_vault(name, path)
    click.echo(f"added vault {vault.name} -> {vault.path}")
    click.echo(f"next: notecite index --vault {vault.name}")


@vault_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def vault_list(state: CliState, as_json: bool) -> None:
    """List registered vaults."""
    vaults = state.engine.vaults()
    if as_json:
        click.echo(json.dumps({"vaults": [{"name": v.name, "path": str(v.path)} for v in vaults]}))
        return
    if not vaults:
        click.echo("no vaults yet: notecite vault add NAME PATH, then notecite index")
    for vault in vaults:
        click.echo(f"{vault.name}\t{vault.path}")


@vault_group.command("remove")
@click.argument("name")
@pass_state
def vault_remove(state: CliState, name: str) -> None:
    """Forget vault NAME and its index (the files are not touched)."""
    state.engine.remove_vault(name)
    click.echo(f"removed vault {name}")
