"""Checks the commands share before they search: a non-empty query, and a scope that holds
indexed notes (else one line and exit 1, not "nothing found")."""

from __future__ import annotations

from collections.abc import Sequence

import click

from notecite.engine import Engine
from notecite.errors import VaultError
from notecite.readiness import nothing_to_search

FILTER_HELP = (
    "Only notes whose frontmatter matches, e.g. 'tags=atlas', 'tags in [a, b]', "
    "'tags^=projects/', 'status!=draft', 'has:due', 'created>=2024-01-01' (repeatable: all "
    "must hold). #tag and key:value in the text work too."
)
filter_option = click.option("--filter", "filters", multiple=True, metavar="EXPR", help=FILTER_HELP)
"""The ``--filter`` option of search, ask and chat."""


def non_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A click callback: the argument must hold more than white space."""
    if value is not None and not value.strip():
        raise click.BadParameter("is empty; write what to look for")
    return value


def require_notes(engine: Engine, vaults: Sequence[str], folders: Sequence[str]) -> None:
    """Raise a VaultError when there is nothing to search in the scope.

    Raises:
        VaultError: no vaults yet, none of them indexed, a vault or a folder unknown.
    """
    problem = nothing_to_search(engine, vaults, folders)
    if problem is not None:
        raise VaultError(problem.message)
