"""`notecite log`: list and purge the query log (questions and answers of `ask`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import click

from notecite.cli.state import CliState, pass_state


@click.group("log")
def log_group() -> None:
    """The query log: questions and answers of `ask` (off with ask.log_queries = false)."""


@log_group.command("list")
@click.option(
    "--limit",
    type=click.IntRange(1, 10_000),
    default=20,
    show_default=True,
    help="How many entries to show.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def list_command(state: CliState, limit: int, as_json: bool) -> None:
    """The newest entries, newest first."""
    entries = state.engine.query_log().entries(limit)
    if as_json:
        payload = [
            {
                "id": e.id,
                "asked_at": e.asked_at.isoformat(),
                "question": e.question,
                "answer": e.answer,
                "abstained": e.abstained,
                "references": list(e.references),
                "llm": e.llm,
            }
            for e in entries
        ]
        click.echo(json.dumps(payload, indent=2))
        return
    if not entries:
        click.echo("the query log is empty")
    for entry in entries:
        click.echo(f"{entry.asked_at:%Y-%m-%d %H:%M} [{entry.llm}] {entry.question}")


@log_group.command("purge")
@click.option(
    "--before",
    type=click.DateTime(formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"]),
    help="Delete only entries asked before this date (UTC); default: all.",
)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_state
def purge_command(state: CliState, before: datetime | None, yes: bool) -> None:
    """Delete logged questions and answers (their pages are overwritten in the file)."""
    what = f"entries asked before {before:%Y-%m-%d %H:%M:%S}" if before else "every entry"
    if not yes:
        click.confirm(f"Delete {what} of the query log?", abort=True)
    cutoff = before.replace(tzinfo=UTC) if before else None
    deleted = state.engine.query_log().purge(cutoff)
    click.echo(f"deleted {deleted} entr{'y' if deleted == 1 else 'ies'} from the query log")
