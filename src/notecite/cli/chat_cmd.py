"""`notecite chat` (an interactive chat that keeps one session) and `notecite sessions`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from notecite.chat.errors import SessionNotFoundError
from notecite.chat.sessions import Sessions
from notecite.cli.checks import filter_option, require_notes
from notecite.cli.models_cmd import prepare_llm
from notecite.cli.state import CliState, pass_state
from notecite.cli.streaming import streamed_answer, streams_to_terminal
from notecite.errors import FilterError, LLMError
from notecite.filters import parse_filter
from notecite.schemas.chat import (
    ChatRequest,
    ChatResponse,
    ChatSession,
    SessionDetail,
    SessionSettings,
)
from notecite.store.sessions import SessionStore

EXIT_COMMANDS = {"/exit", "/quit"}
HELP_COMMANDS = {"/help", "/?"}
FILTER_COMMAND = "/filter"
HELP_TEXT = """Type a question and press Enter; follow-ups are read with the conversation.
  /help          this text
  /filter EXPR   search only notes whose frontmatter matches EXPR (/filter alone clears)
  /exit          end the chat (also /quit or Ctrl+D); resume later with --session ID"""


def _cid_order(cid: str) -> tuple[int, str]:
    digits = "".join(c for c in cid if c.isdigit())
    return (int(digits) if digits else 0, cid)


def _filter_command(message: str, active: list[str]) -> list[str]:
    """``/filter EXPR`` adds EXPR (checked now) to the active filters; ``/filter`` clears."""
    expression = message[len(FILTER_COMMAND) :].strip()
    if not expression:
        click.echo("(filters cleared)")
        return []
    try:
        parse_filter(expression)
    except FilterError as exc:
        click.secho(f"({exc})", fg="red", err=True)
        return active
    active = [*active, expression]
    click.echo(f"(filters: {' and '.join(active)})")
    return active


def print_citations(response: ChatResponse) -> None:
    """``[N1] vault/path.md:12 > Section`` for each cited source, in the order of its id."""
    if not response.citations:
        return
    click.echo("\nReferences:")
    for citation in sorted(response.citations, key=lambda c: _cid_order(c.cid)):
        line = citation.quote_line or citation.line_start
        where = f"{citation.note_id}:{line}" if line else citation.note_id
        section = f" > {citation.section}" if citation.section else ""
        click.echo(f"[{citation.cid}] {where}{section}")


def _banner(state: CliState, vaults: tuple[str, ...], folders: tuple[str, ...]) -> str:
    names = ", ".join(vaults) or ", ".join(v.name for v in state.engine.vaults())
    scope = f"{names}" + (f" (folders: {', '.join(folders)})" if folders else "")
    llm = state.settings.llm or "default"
    return f"notecite chat over {scope}; LLM: {llm}. /help for commands, /exit to end."


class _CliSessions(Sessions):
    """Sessions whose "not found" names the command that lists them."""

    def get(self, session_id: str) -> ChatSession:
        with _cli_hint():
            return super().get(session_id)

    def detail(self, session_id: str) -> SessionDetail:
        with _cli_hint():
            return super().detail(session_id)

    def delete(self, session_id: str) -> None:
        with _cli_hint():
            super().delete(session_id)


@contextmanager
def _cli_hint() -> Iterator[None]:
    try:
        yield
    except SessionNotFoundError as exc:
        raise SessionNotFoundError(
            f"{str(exc).split(';')[0]}; list them with: notecite sessions list"
        ) from exc


def _sessions(state: CliState, store: SessionStore) -> Sessions:
    return _CliSessions(store, SessionSettings.defaults(state.settings.ask))


def _answer(
    state: CliState, store: SessionStore, request: ChatRequest, streamed: bool
) -> ChatResponse:
    """One turn, printed as the model writes it when stdout is a terminal."""
    with streamed_answer() as printer:
        response = state.engine.chat(
            request, sessions=store, on_token=printer.on_token if streamed else None
        )
        printer.finish(response.answer, note="(after citation checks) ")
    return response


@click.command("chat")
@click.option("--session", "session_id", help="Resume this session (see: notecite sessions list).")
@click.option("--vault", "vaults", multiple=True, help="Search only this vault (repeatable).")
@click.option("--folder", "folders", multiple=True, help="Folder prefix to search (repeatable).")
@filter_option
@pass_state
def chat_command(
    state: CliState,
    session_id: str | None,
    vaults: tuple[str, ...],
    folders: tuple[str, ...],
    filters: tuple[str, ...],
) -> None:
    """Chat with your notes; every answer cites them and the session keeps the history.

    Type a message and press Enter. Follow-up questions ("and the second one?") are read
    in the light of the conversation. End with /exit or Ctrl+D; resume later with
    --session ID. "/filter EXPR" adds a frontmatter filter for the messages after it,
    "/filter" alone drops them all; "#atlas" or "type:meeting" in a message filters that one.
    """
    require_notes(state.engine, vaults, folders)
    active = list(filters)
    store = state.engine.open_sessions()
    try:
        prepare_llm(state.engine, first_use="chat")  # the model loads now, not on the first message
    except LLMError as exc:
        click.secho(f"the model is not ready ({exc}); answers will list notes only", err=True)
    try:
        click.echo(_banner(state, vaults, folders))
        if session_id is not None:
            session = _sessions(state, store).get(session_id)
            click.echo(f"Resuming {session.title!r} ({session.message_count} messages).")
        streamed = streams_to_terminal()
        while True:
            try:
                line = click.prompt("you", default="", show_default=False, prompt_suffix="> ")
            except click.Abort:  # end of input
                click.echo()
                break
            message = line.strip()
            if message in EXIT_COMMANDS:
                break
            if message in HELP_COMMANDS:
                click.echo(HELP_TEXT)
                continue
            if message == FILTER_COMMAND or message.startswith(FILTER_COMMAND + " "):
                active = _filter_command(message, active)
                continue
            if message.startswith("/") and " " not in message:
                click.echo(f"unknown command {message}; /help lists them")
                continue
            if not message:
                continue
            request = ChatRequest(
                message=message,
                session_id=session_id,
                vaults=list(vaults),
                folders=list(folders),
                filters=active,
            )
            response = _answer(state, store, request, streamed)
            session_id = response.session_id
            if response.error is not None:
                click.secho(f"(LLM error: {response.error.message})", fg="red", err=True)
            print_citations(response)
            click.echo()
    finally:
        store.close()
    if session_id is not None:
        click.echo(f"Session {session_id}; resume with: notecite chat --session {session_id}")


@click.group("sessions")
def sessions_group() -> None:
    """List, show and delete chat sessions."""


@sessions_group.command("list")
@click.option(
    "--limit",
    type=click.IntRange(1, 1000),
    default=50,
    show_default=True,
    help="At most this many.",
)
@pass_state
def sessions_list(state: CliState, limit: int) -> None:
    """Sessions, most recently active first: id, last activity, messages, title."""
    store = state.engine.open_sessions()
    try:
        found = _sessions(state, store).recent(limit)
    finally:
        store.close()
    if not found:
        click.echo("No chat sessions yet; start one with: notecite chat")
        return
    for session in found:
        when = session.updated_at.strftime("%Y-%m-%d %H:%M")
        click.echo(f"{session.id}  {when}  {session.message_count:>4}  {session.title}")


@sessions_group.command("show")
@click.argument("session_id")
@click.option("--json", "as_json", is_flag=True, help="Print the session and its messages as JSON.")
@pass_state
def sessions_show(state: CliState, session_id: str, as_json: bool) -> None:
    """Show SESSION_ID: its settings and every message, oldest first."""
    store = state.engine.open_sessions()
    try:
        detail = _sessions(state, store).detail(session_id)
    finally:
        store.close()
    if as_json:
        click.echo(detail.model_dump_json(indent=2, by_alias=True))
        return
    s = detail.settings
    click.echo(f"{detail.title}  ({detail.id})")
    click.echo(
        f"enable_rag={s.enable_rag} rag_top_k={s.rag_top_k} rag_threshold={s.rag_threshold:g} "
        f"include_citations={s.include_citations} model={s.model or 'default'}"
    )
    for message in detail.messages:
        click.echo(f"\n[{message.role}] {message.created_at:%Y-%m-%d %H:%M}")
        click.echo(message.content)


@sessions_group.command("delete")
@click.argument("session_id")
@pass_state
def sessions_delete(state: CliState, session_id: str) -> None:
    """Delete SESSION_ID and its messages."""
    store = state.engine.open_sessions()
    try:
        _sessions(state, store).delete(session_id)
    finally:
        store.close()
    click.echo(f"Deleted session {session_id}.")
