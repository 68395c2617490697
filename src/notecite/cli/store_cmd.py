"""`notecite store migrate`: copy the index between SQLite and PostgreSQL."""

from __future__ import annotations

import click

from notecite.cli.state import CliState, pass_state
from notecite.config import Settings
from notecite.errors import StoreError
from notecite.store.migrate import Location, TenantReport, migrate_index


def configured_location(settings: Settings) -> Location:
    """The index the settings point at (``store.backend``, ``store.path``/``store.url``)."""
    if settings.store.backend == "postgres" and settings.store.url is not None:
        return Location(url=settings.store.url.get_secret_value())
    return Location(path=settings.db_path.expanduser().resolve())


def format_report(report: TenantReport) -> str:
    """The per-table counts of one tenant's copy, as a small text table."""
    lines = [
        f"tenant {report.tenant.id} ({report.tenant.name})",
        f"  {'table':<16} {'copied':>8} {'source':>8} {'target':>8}",
    ]
    copied, source, target = (c.as_dict() for c in (report.copied, report.source, report.target))
    lines.extend(
        f"  {table:<16} {copied[table]:>8} {source[table]:>8} {target[table]:>8}"
        for table in source
    )
    mismatches = report.mismatches()
    lines.append("  counts differ: " + ", ".join(mismatches) if mismatches else "  counts match")
    return "\n".join(lines)


@click.group("store")
def store_group() -> None:
    """Maintain the index database (SQLite file or PostgreSQL)."""


@store_group.command("migrate")
@click.option(
    "--to",
    "target",
    required=True,
    metavar="TARGET",
    help="postgresql://user@host/db, or the path of a SQLite file.",
)
@click.option(
    "--from",
    "source",
    metavar="SOURCE",
    help="Where to copy from (default: the configured index).",
)
@click.option(
    "--tenant",
    "tenants",
    type=int,
    multiple=True,
    help="Tenant id to copy (repeatable; default: every tenant the source shows).",
)
@pass_state
def store_migrate(
    state: CliState, target: str, source: str | None, tenants: tuple[int, ...]
) -> None:
    """Copy vaults, notes, chunks, vectors (no re-embedding), chat sessions and settings
    to TARGET, then compare row counts per table. Safe to re-run: a second run copies only
    what changed."""
    origin = Location.parse(source) if source else configured_location(state.settings)
    destination = Location.parse(target)
    click.echo(f"copying {origin.describe()} -> {destination.describe()}", err=True)
    reports = migrate_index(
        origin, destination, tenants=tenants, progress=lambda m: click.echo(m, err=True)
    )
    for report in reports:
        click.echo(format_report(report))
    failed = [r.tenant.id for r in reports if r.mismatches()]
    if failed:
        raise StoreError(
            f"row counts differ for tenant(s) {failed}: the target held other data; "
            "migrate into an empty database or file"
        )
