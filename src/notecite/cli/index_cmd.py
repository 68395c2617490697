"""`notecite index`, `notecite watch` and `notecite status`."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import click
from rich.console import Console

from notecite.cli.index_progress import PlainProgress, TerminalProgress, stop_on_signals
from notecite.cli.state import CliState, pass_state
from notecite.engine import Engine
from notecite.types import IndexReport, VaultStatus


def _ensure_vault(engine: Engine, path: Path, name: str | None) -> str:
    """The vault for PATH: an existing one at that path or name, else a new one."""
    resolved = path.expanduser().resolve()
    for vault in engine.vaults():
        if vault.path == resolved and (name is None or vault.name == name):
            return vault.name
    vault_name = name or resolved.name
    if engine.store.get_vault(vault_name) is None:
        engine.add_vault(vault_name, resolved)
    return vault_name


def run_index(
    engine: Engine,
    vault: str | None,
    rebuild: bool = False,
    progress_every: float = 5.0,
) -> list[IndexReport]:
    """Index with a progress bar (rate, time left) on a terminal, else a plain line every
    ``progress_every`` seconds on stderr; Ctrl+C or SIGTERM stops after the note at hand."""
    if not sys.stderr.isatty():
        with stop_on_signals() as stop:
            plain = PlainProgress(sys.stderr, progress_every)
            return engine.index(vault, progress=plain, rebuild=rebuild, stop=stop)
    console = Console(stderr=True)
    with stop_on_signals(console.print) as stop, TerminalProgress(console) as bar:
        return engine.index(vault, progress=bar, rebuild=rebuild, stop=stop)


@click.command("index")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--vault", "vault_name", help="Vault to index (default: all; with PATH: its name).")
@click.option("--rebuild", is_flag=True, help="Drop the whole index first (after a model change).")
@click.option(
    "--progress-every",
    type=click.FloatRange(min=0),
    default=5.0,
    show_default=True,
    help="Seconds between progress lines when output is not a terminal.",
)
@pass_state
def index_command(
    state: CliState,
    path: Path | None,
    vault_name: str | None,
    rebuild: bool,
    progress_every: float,
) -> None:
    """Index new and changed notes; remove deleted ones. PATH adds or updates that vault.

    Notes are searchable by keyword as soon as they are written; vectors follow. Ctrl+C
    keeps every note written so far, and the next run continues from there.
    """
    engine = state.engine
    if path is not None:
        vault_name = _ensure_vault(engine, path, vault_name)
    reports = run_index(engine, vault_name, rebuild, progress_every)
    for report in reports:
        click.echo(report.summary())
        for failure in report.failures:
            click.echo(f"  failed {failure.rel_path}: {failure.reason}")
    if any(r.interrupted for r in reports):
        written = sum(r.added + r.updated + r.reparsed for r in reports)
        embedded = sum(r.chunks_embedded for r in reports)
        click.echo(
            f"interrupted: kept {written} notes written and {embedded} chunks embedded in this "
            "run; run `notecite index` again to continue"
        )
        raise SystemExit(130)


@click.command("watch")
@click.option("--vault", "vault_name", help="Vault to watch (default: all).")
@pass_state
def watch_command(state: CliState, vault_name: str | None) -> None:
    """Index, then re-index whenever a note changes (Ctrl+C stops)."""
    from watchfiles import watch

    engine = state.engine
    vaults = [engine.vault(vault_name)] if vault_name else engine.vaults()
    if not vaults:
        raise click.UsageError("no vaults to watch: notecite vault add NAME PATH")
    for report in engine.index(vault_name):
        click.echo(report.summary())
    roots = {str(v.path): v.name for v in vaults}
    click.echo("watching " + ", ".join(roots.values()) + " (Ctrl+C stops)")
    for changes in watch(*roots):
        touched = {name for root, name in roots.items() for _, p in changes if p.startswith(root)}
        for name in sorted(touched):
            for report in engine.index(name):
                click.echo(report.summary())


@click.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("-v", "--verbose", is_flag=True, help="Also this process's retrieval caches.")
@pass_state
def status_command(state: CliState, as_json: bool, verbose: bool) -> None:
    """Notes, chunks and failed files per vault, and the embedding model of the index."""
    status = state.engine.status()
    if as_json:
        payload = {
            "vaults": [
                {
                    "name": v.name,
                    "path": v.path,
                    "notes": v.notes,
                    "chunks": v.chunks,
                    "waiting_for_vectors": v.waiting_for_vectors,
                    "failed": [asdict(f) for f in v.failed],
                    "missing_vectors": v.missing_vectors,
                    "unsplit_chunks": v.unsplit_chunks,
                    "missing_sentence_vectors": v.missing_sentence_vectors,
                    "gaps": v.gaps(state.settings.index.sentence_vectors),
                    "indexed_at": v.indexed_at.isoformat() if v.indexed_at else None,
                    "indexing": v.indexing,
                }
                for v in status.vaults
            ],
            "embedder": {
                "model": status.embedder_model,
                "dimensions": status.embedder_dimensions,
            },
            "caches": [{**asdict(c), "hit_rate": round(c.hit_rate, 4)} for c in status.caches],
        }
        click.echo(json.dumps(payload, indent=2))
        return
    model = status.embedder_model or "(nothing embedded yet)"
    dims = f", {status.embedder_dimensions} dimensions" if status.embedder_dimensions else ""
    click.echo(f"embedding model: {model}{dims}")
    for vault in status.vaults:
        waiting = (
            f", {vault.waiting_for_vectors} waiting for vectors"
            if vault.waiting_for_vectors
            else ""
        )
        click.echo(
            f"{vault.name}: {vault.notes} notes{waiting}, {vault.chunks} chunks  ({vault.path})"
        )
        click.echo(f"  {_index_runs(vault)}")
        for failure in vault.failed:
            click.echo(f"  failed {failure.rel_path}: {failure.reason}")
        for gap in vault.gaps(state.settings.index.sentence_vectors):
            click.echo(f"  {gap}")
    if not status.vaults:
        click.echo("no vaults yet: notecite vault add NAME PATH, then notecite index")
    # this process's caches; `notecite serve` keeps them warm
    for cache in status.caches if verbose else ():
        click.echo(
            f"cache {cache.name}: {cache.entries}/{cache.max_entries} entries, "
            f"{cache.hits} hits, {cache.misses} misses ({cache.hit_rate:.0%} hit rate)"
        )


def _index_runs(vault: VaultStatus) -> str:
    """One line: when the vault was last indexed, and whether a run indexes it now."""
    when = (
        vault.indexed_at.astimezone().strftime("%Y-%m-%d %H:%M")
        if vault.indexed_at
        else "never completely"
    )
    line = f"last indexed: {when}"
    if vault.indexing:
        line += f"; being indexed now ({vault.indexing})"
    return line
