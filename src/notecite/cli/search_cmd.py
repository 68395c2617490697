"""`notecite search`."""

from __future__ import annotations

import json

import click

from notecite.cli.checks import filter_option, non_empty, require_notes
from notecite.cli.state import CliState, pass_state


@click.command("search")
@click.argument("query", callback=non_empty)
@click.option("--vault", "vaults", multiple=True, help="Search only this vault (repeatable).")
@click.option("--folder", "folders", multiple=True, help="Folder prefix to search (repeatable).")
@click.option("-k", "k", type=click.IntRange(1, 200), help="How many chunks to show.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@filter_option
@pass_state
def search_command(
    state: CliState,
    query: str,
    vaults: tuple[str, ...],
    folders: tuple[str, ...],
    k: int | None,
    as_json: bool,
    filters: tuple[str, ...],
) -> None:
    """Show the chunks that best match QUERY, with file, section and scores."""
    require_notes(state.engine, vaults, folders)
    results = state.engine.search(query, vaults=vaults, folders=folders, k=k, filters=filters)
    if as_json:
        payload = {
            "results": [
                {
                    "vault": r.vault,
                    "rel_path": r.rel_path,
                    "heading_path": r.heading_path,
                    "chunk_index": r.chunk_index,
                    "chunk_id": r.chunk_id,
                    "text": r.text,
                    "score_vector": round(r.score_vector, 4),
                    "score_bm25": round(r.score_bm25, 4),
                    "score": round(r.score, 4),
                }
                for r in results
            ]
        }
        click.echo(json.dumps(payload, indent=2))
        return
    if not results:
        click.echo("no matching notes")
    for rank, r in enumerate(results, start=1):
        section = f" > {r.heading_path}" if r.heading_path else ""
        click.secho(f"[{rank}] {r.vault}/{r.rel_path}{section}", bold=True)
        click.echo(
            f"    lines {r.line_start}-{r.line_end}  score {r.score:.3f} "
            f"(vector {r.score_vector:.3f}, bm25 {r.score_bm25:.2f})"
        )
        snippet = " ".join(r.text.split())
        click.echo("    " + (snippet[:240] + "..." if len(snippet) > 240 else snippet))
