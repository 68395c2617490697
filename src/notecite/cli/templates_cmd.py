"""`notecite templates index|search|list|add`: the reasoning-template library."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from notecite.cli.state import CliState, pass_state
from notecite.templates import TemplateRetriever, open_template_retriever, rag_config

F = TypeVar("F", bound=Callable[..., Any])


_STORE_OPTIONS = (
    click.option(
        "--dir",
        "dirs",
        multiple=True,
        type=click.Path(file_okay=False, path_type=Path),
        help="Template folder (repeatable; default data/bot-buffer and data/templates, "
        "else the bundled library).",
    ),
    click.option(
        "--chroma-url",
        help="Keep templates in a Chroma server, e.g. http://127.0.0.1:8000 (chroma extra).",
    ),
    click.option(
        "--chroma-path",
        type=click.Path(file_okay=False, path_type=Path),
        help="Keep templates in a local Chroma folder (needs the chroma extra).",
    ),
)


def _store_options(func: F) -> F:
    """Where templates come from and where they are kept (shared by every subcommand)."""
    for option in reversed(_STORE_OPTIONS):
        func = option(func)
    return func


def _retriever(
    state: CliState,
    dirs: tuple[Path, ...],
    chroma_url: str | None,
    chroma_path: Path | None,
    **config: Any,
) -> TemplateRetriever:
    if chroma_url and chroma_path:
        raise click.UsageError("give --chroma-url or --chroma-path, not both")
    if dirs:
        config["template_dirs"] = dirs
    rag = rag_config(state.settings, chroma_url=chroma_url, chroma_path=chroma_path, **config)
    retriever = open_template_retriever(state.settings, state.engine.embedder, rag)
    click.get_current_context().call_on_close(retriever.close)
    return retriever


def _dump(value: Any) -> Any:
    return value.model_dump(mode="json", by_alias=True)


@click.group("templates")
def templates_group() -> None:
    """Reasoning templates: index the library and find the right one for a problem."""


@templates_group.command("index")
@_store_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def templates_index(
    state: CliState,
    dirs: tuple[Path, ...],
    chroma_url: str | None,
    chroma_path: Path | None,
    as_json: bool,
) -> None:
    """Embed every template file and store it (unchanged ones are skipped)."""
    retriever = _retriever(state, dirs, chroma_url, chroma_path)
    count = retriever.index_templates()
    if as_json:
        click.echo(json.dumps({"indexed": count}))
        return
    folders = ", ".join(str(d) for d in retriever.template_dirs())
    click.echo(f"indexed {count} templates from {folders}")


@templates_group.command("search")
@click.argument("query")
@_store_options
@click.option("-k", "--top-k", type=click.IntRange(1, 50), help="How many templates (default 3).")
@click.option(
    "--threshold",
    type=click.FloatRange(-1.0, 1.0),
    help="Lowest similarity kept (default: calibrated for the embedder).",
)
@click.option("--content", "show_content", is_flag=True, help="Print each template's text.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def templates_search(
    state: CliState,
    query: str,
    dirs: tuple[Path, ...],
    chroma_url: str | None,
    chroma_path: Path | None,
    top_k: int | None,
    threshold: float | None,
    show_content: bool,
    as_json: bool,
) -> None:
    """Show the templates that best fit the problem QUERY (chain of thought if none does).

    The library is indexed first when the store holds none for this embedder.
    """
    retriever = _retriever(state, dirs, chroma_url, chroma_path, similarity_threshold=threshold)
    if not retriever.is_ready():
        retriever.index_templates()
    matches = retriever.search(query, top_k)
    if as_json:
        click.echo(json.dumps({"matches": [_dump(m) for m in matches]}, indent=2))
        return
    for rank, match in enumerate(matches, start=1):
        click.secho(f"[{rank}] {match.name} ({match.id})  score {match.score:.3f}", bold=True)
        if match.description:
            click.echo(f"    {match.description}")
        if show_content:
            click.echo("\n" + match.content + "\n")


@templates_group.command("list")
@_store_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@pass_state
def templates_list(
    state: CliState,
    dirs: tuple[Path, ...],
    chroma_url: str | None,
    chroma_path: Path | None,
    as_json: bool,
) -> None:
    """List the stored templates."""
    templates = _retriever(state, dirs, chroma_url, chroma_path).list_templates()
    if as_json:
        click.echo(json.dumps({"templates": [_dump(t) for t in templates]}, indent=2))
        return
    if not templates:
        click.echo("no templates yet: notecite templates index")
    for t in templates:
        click.echo(f"{t.id}\t{t.name}\t{t.domain}\t{t.complexity}\t{t.methodology}")


@templates_group.command("add")
@click.argument("path", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@_store_options
@pass_state
def templates_add(
    state: CliState,
    path: Path,
    dirs: tuple[Path, ...],
    chroma_url: str | None,
    chroma_path: Path | None,
) -> None:
    """Add or update one template from the markdown file PATH (its id is the file name)."""
    retriever = _retriever(state, dirs, chroma_url, chroma_path)
    existed = retriever.store.get(path.stem) is not None
    template = retriever.add_template(path)
    click.echo(f"{'updated' if existed else 'added'} template {template.id} ({template.name})")
