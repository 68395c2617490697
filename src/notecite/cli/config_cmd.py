"""`notecite config show|path`."""

from __future__ import annotations

import json
from typing import Any

import click

from notecite.cli.state import CliState, pass_state
from notecite.config import Settings, masked_settings
from notecite.embed.registry import available_embedders
from notecite.generate.registry import available_llms, default_llm_name

_SHOWN_APART = {"home", "llm", "embedder.name"}


def effective_llm(settings: Settings) -> str:
    """The LLM provider a question goes to: ``llm``, else the default, with its model."""
    name = settings.llm or default_llm_name()
    how = "" if settings.llm else " (default)"
    model = settings.generation.model or settings.generation.model_path
    return f"{name}{how}" + (f", model {model}" if model else "")


def _changed(current: Any, default: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``(dotted key, value)`` for every value that differs from its default."""
    if isinstance(current, dict) and isinstance(default, dict):
        found: list[tuple[str, Any]] = []
        for key, value in current.items():
            found += _changed(value, default.get(key), f"{prefix}{key}.")
        return found
    return [] if current == default else [(prefix.rstrip("."), current)]


def _defaults(settings: Settings) -> dict[str, Any]:
    data = masked_settings(Settings.model_construct())
    data["home"] = str(settings.home)
    return data


@click.group("config")
def config_group() -> None:
    """Inspect settings and find the config file."""


@config_group.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print every setting as JSON.")
@pass_state
def config_show(state: CliState, as_json: bool) -> None:
    """Print the config file, the LLM and embedder in use, and the settings changed from
    their defaults (secrets masked); --json prints them all."""
    settings = state.settings
    data = masked_settings(settings)
    file = str(state.config_file) if state.config_file else None
    if as_json:
        data["config_file"] = file
        data["effective_llm"] = settings.llm or default_llm_name()
        data["available_embedders"] = available_embedders()
        data["available_llms"] = available_llms()
        click.echo(json.dumps(data, indent=2))
        return
    store = settings.store
    where = "postgres (store.url)" if store.backend == "postgres" else f"sqlite {settings.db_path}"
    would_be = settings.home / "config.toml"
    click.echo(f"config file: {file or f'none (would be {would_be})'}")
    click.echo(f"home:        {settings.home}")
    click.echo(f"store:       {where}")
    click.echo(f"embedder:    {settings.embedder.name}")
    click.echo(f"llm:         {effective_llm(settings)}")
    changed = [(k, v) for k, v in _changed(data, _defaults(settings)) if k not in _SHOWN_APART]
    if changed:
        click.echo("changed from the defaults:")
        for key, value in changed:
            click.echo(f"  {key} = {json.dumps(value)}")
    click.echo("every setting: notecite config show --json")


@config_group.command("path")
@pass_state
def config_path(state: CliState) -> None:
    """Print the path of the config file in use (or of the one that would be read)."""
    click.echo(str(state.config_file or state.settings.home / "config.toml"))
