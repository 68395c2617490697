"""`notecite ask`."""

from __future__ import annotations

import click

from notecite.cli.checks import filter_option, non_empty, require_notes
from notecite.cli.models_cmd import report_model_loading
from notecite.cli.state import CliState, pass_state
from notecite.cli.streaming import streamed_answer, streams_to_terminal
from notecite.schemas.ask import AskRequest, AskResponse


def print_references(response: AskResponse) -> None:
    """``[N1] vault/path.md > Section`` for each reference, under the id the answer cites it
    by, with the line that supports it. Two chunks of a note that touch are one source with
    one id: the second is listed under the first, not under its id again."""
    if not response.references:
        return
    click.echo("\nReferences:")
    labelled: set[str] = set()
    for number, ref in enumerate(response.references, start=1):
        section = f" > {ref.heading_path}" if ref.heading_path else ""
        line = f":{ref.quote_line}" if ref.quote_line else ""
        cid = ref.cid or f"N{number}"
        label = "    " if cid in labelled else f"[{cid}]"
        labelled.add(cid)
        click.echo(f"{label} {ref.vault}/{ref.rel_path}{line}{section}")
        if ref.quote:
            click.secho(f"     \u201c{ref.quote}\u201d", dim=True)


@click.command("ask")
@click.argument("question", callback=non_empty)
@click.option("--vault", "vaults", multiple=True, help="Ask only this vault (repeatable).")
@click.option("--folder", "folders", multiple=True, help="Folder prefix to search (repeatable).")
@click.option(
    "--detail",
    type=click.Choice(["brief", "normal", "detailed"]),
    default="normal",
    show_default=True,
    help="How long an answer.",
)
@click.option("-k", "k", type=int, help="Chunks of context (clamped to 3-8; default automatic).")
@click.option("--debug", "show_debug", is_flag=True, help="Include every candidate's scores.")
@click.option("--json", "as_json", is_flag=True, help="Print the AskResponse as JSON.")
@click.option("--llm", help="LLM provider: local, openai, ollama, extractive.")
@click.option(
    "--citation-style",
    type=click.Choice(["numbered", "file_section"]),
    default="numbered",
    show_default=True,
    help="How the model cites its sources.",
)
@click.option(
    "--auto-rag",
    type=click.Choice(["off", "auto", "always"]),
    help="HyDE + rewrite + second pass: on weak retrieval (auto), always, or off "
    "(default: ask.auto_rag).",
)
@click.option("--multi-query", is_flag=True, default=None, help="Auto-RAG searches rewrites.")
@filter_option
@pass_state
def ask_command(
    state: CliState,
    question: str,
    vaults: tuple[str, ...],
    folders: tuple[str, ...],
    detail: str,
    k: int | None,
    show_debug: bool,
    as_json: bool,
    llm: str | None,
    citation_style: str,
    auto_rag: str | None,
    multi_query: bool | None,
    filters: tuple[str, ...],
) -> None:
    """Answer QUESTION from your notes, citing the file and section of each fact."""
    try:
        request = AskRequest.model_validate(
            {
                "question": question,
                "vaults": list(vaults),
                "folders": list(folders),
                "k": k,
                "detail": detail,
                "debug": show_debug,
                "citation_style": citation_style,
                "llm": llm,
                "auto_rag": auto_rag,
                "multi_query": multi_query,
                "filters": list(filters),
            }
        )
    except ValueError as exc:
        raise click.BadParameter(str(exc).split("\n")[-1], param_hint="QUESTION") from exc
    require_notes(state.engine, vaults, folders)
    report_model_loading(state.engine, llm)  # a line while the model loads, if it must
    if as_json:
        response = state.engine.ask(request)
        click.echo(response.model_dump_json(indent=2, exclude_none=True))
        return
    streamed = streams_to_terminal()
    with streamed_answer() as printer:
        response = state.engine.ask(request, on_token=printer.on_token if streamed else None)
        printer.finish(response.answer)
    if response.abstained:
        click.secho(f"(abstained: {response.abstain_reason})", dim=True)
    if response.error is not None:
        click.secho(f"(LLM error: {response.error.message})", fg="red", err=True)
    print_references(response)
    if show_debug and response.debug is not None:
        click.echo("\nCandidates (rank, final, vector, lexical, kept, cited):")
        for item in response.debug.retrieved_chunks:
            click.echo(
                f"  {item.rank:>3} {item.score_final:.3f} {item.score_vector:.3f} "
                f"{item.score_lexical:.3f} {'K' if item.kept else '-'}{'C' if item.cited else '-'} "
                f"{item.vault}/{item.rel_path} > {item.heading_path}"
            )
        t = response.debug.timings_ms
        click.echo(
            f"timings ms: embed {t.embed:.0f}, folder ranking {t.folder_ranking:.0f}, "
            f"retrieve {t.retrieve:.0f}, rerank {t.rerank:.0f}, auto-RAG {t.auto_rag:.0f}, "
            f"generate {t.generate:.0f}, total {t.total:.0f}"
        )
        debug = response.debug
        if debug.filters:
            click.echo(f"filters: {', '.join(debug.filters)}")
        if debug.generation is not None:
            g = debug.generation
            first = f"first text {t.first_token:.0f} ms, " if t.first_token is not None else ""
            if t.first_text is not None:
                first += f"{t.first_text:.0f} ms after the question, "
            rates = (
                f", reads {g.prompt_tokens_per_s:.0f} tok/s" if g.prompt_tokens_per_s else ""
            ) + (f", writes {g.output_tokens_per_s:.0f} tok/s" if g.output_tokens_per_s else "")
            click.echo(
                f"model: {first}prompt {g.prompt_tokens} tokens ({g.cached_tokens} cached, "
                f"context {g.context_tokens}), wrote {g.output_tokens}{rates}"
            )
        if debug.question_parts:
            click.echo(f"question parts: {' | '.join(debug.question_parts)}")
        if debug.answerability is not None:
            click.echo(f"answerability: {debug.answerability:.3f}")
        if debug.missing_terms or debug.absent_from_context:
            click.echo(
                f"not in the notes: {', '.join(debug.missing_terms) or '-'}; "
                f"not in the context: {', '.join(debug.absent_from_context) or '-'}"
            )
        for claim in debug.claims:
            click.echo(f"  claim {claim.status:<11} {claim.score:.2f} {claim.text[:90]}")
        auto = response.debug.auto_rag
        if auto.triggered:
            steps = ", ".join(f"{s.name} {s.status} {s.ms:.0f} ms" for s in auto.steps)
            click.echo(
                f"auto-RAG ({auto.reason}): {steps}; winner {auto.winner} "
                f"({auto.base_strength:.3f} base, {auto.auto_strength:.3f} auto)"
            )
