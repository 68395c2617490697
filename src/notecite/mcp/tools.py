"""The tools: ``search``, ``ask``, ``get_note`` and ``list_vaults``, each a call on the Engine.

Their descriptions are written for the model that chooses among them; their input schemas
come from the annotated parameters, their output schemas from :mod:`notecite.schemas.mcp`.
Every tool only reads: none changes a vault or the index.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from notecite.engine import Engine
from notecite.errors import VaultError
from notecite.mcp.errors import tool_errors
from notecite.schemas.ask import MAX_QUESTION_CHARS, AskRequest, Detail
from notecite.schemas.mcp import (
    Answer,
    NoteText,
    SearchHit,
    SearchResults,
    VaultList,
    VaultSummary,
    note_uri,
)

EngineFor = Callable[[Context[Any, Any]], Engine]
"""The engine of the request's tenant (stdio: the one engine; HTTP: the bearer key's)."""

MAX_K = 50
MAX_VAULTS = 50  # the HTTP API's caps on a request's scope
MAX_FOLDERS = 200
MAX_NOTE_LINES = 2000  # get_note returns at most this many lines a call

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

Vaults = Annotated[
    list[str] | None,
    Field(
        max_length=MAX_VAULTS,
        description="Only these vaults (names from list_vaults); omit to use every vault.",
    ),
]
Folders = Annotated[
    list[str] | None,
    Field(
        max_length=MAX_FOLDERS,
        description="Only notes under these folder prefixes ('a/b', from list_vaults).",
    ),
]

Filters = Annotated[
    list[str] | None,
    Field(
        max_length=20,
        description="Frontmatter filters a note must all meet, e.g. 'tags=atlas', "
        "'tags in [atlas, launch]', 'tags^=projects/', 'status!=draft', 'has:due', "
        "'created>=2024-01-01'.",
    ),
]

SEARCH = """Find passages in the user's notes (personal knowledge base) that match a query.

Use it to locate notes or to read raw passages; to get an answer, prefer `ask`. Returns hits,
best first, each with vault, path, section (heading path), line span, a snippet, a score and
the note's resource URI. An empty list means nothing matched."""

ASK = """Answer a question from the user's notes, with citations that notecite has checked.

The answer cites notes with markers like [N1]; `references` maps each marker to a vault,
path, section, line span and, when found, the note's line that supports the claim. When the
notes do not answer the question, `abstained` is true with a reason and the answer says so:
report that rather than guessing. Quote the markers or the references when you relay it."""

GET_NOTE = """Read a note of the user's notes: its lines, numbered from 1 as citations number
them. Give the vault and the path as `search` or `ask` returned them; `start_line` and
`end_line` (inclusive) select a span, e.g. a reference's line span. Paths outside the vault
are refused."""

LIST_VAULTS = """List the user's vaults (folders of notes): name, how many notes and chunks are
indexed, and their folders. Use the names and folders to scope `search` and `ask`."""


def require_notes(engine: Engine, vaults: Sequence[str]) -> None:
    """VaultError when the scope holds no indexed note (unknown names fail in the engine)."""
    statuses = engine.status().vaults
    if not statuses:
        raise VaultError(
            "no vaults yet: add one with `notecite vault add NAME PATH`, then `notecite index`"
        )
    scoped = [s for s in statuses if not vaults or s.name in vaults]
    if scoped and not any(s.notes for s in scoped):
        names = ", ".join(s.name for s in scoped)
        raise VaultError(f"nothing indexed yet in {names}: run `notecite index`")


def search_notes(
    engine: Engine,
    query: str,
    vaults: Sequence[str] = (),
    folders: Sequence[str] = (),
    k: int | None = None,
    filters: Sequence[str] = (),
) -> SearchResults:
    """The ``search`` tool on ``engine``."""
    with tool_errors():
        for name in vaults:
            engine.vault(name)
        require_notes(engine, vaults)
        results = engine.search(query, vaults=vaults, folders=folders, k=k, filters=filters)
    return SearchResults(hits=[SearchHit.of(r) for r in results])


def ask_notes(
    engine: Engine,
    question: str,
    vaults: Sequence[str] = (),
    folders: Sequence[str] = (),
    detail: Detail = "normal",
    filters: Sequence[str] = (),
) -> Answer:
    """The ``ask`` tool on ``engine``."""
    with tool_errors():
        request = AskRequest(
            question=question,
            vaults=list(vaults),
            folders=list(folders),
            detail=detail,
            filters=list(filters),
        )
        for name in vaults:
            engine.vault(name)
        require_notes(engine, vaults)
        return Answer.of(engine.ask(request))


def read_note(
    engine: Engine,
    vault: str,
    path: str,
    start_line: int | None = None,
    end_line: int | None = None,
) -> NoteText:
    """The ``get_note`` tool on ``engine``."""
    with tool_errors():
        lines = engine.note_text(vault, path).split("\n")
        first = start_line or 1
        last = min(end_line or len(lines), len(lines), first + MAX_NOTE_LINES - 1)
        if first > len(lines):
            raise ValueError(f"start_line {first} is past the end of {path} ({len(lines)} lines)")
        if last < first:
            raise ValueError(f"end_line {end_line} is before start_line {first}")
    return NoteText(
        vault=vault,
        path=path,
        start_line=first,
        end_line=last,
        total_lines=len(lines),
        text="\n".join(lines[first - 1 : last]),
        uri=note_uri(vault, path),
    )


def vault_list(engine: Engine) -> VaultList:
    """The ``list_vaults`` tool on ``engine``."""
    with tool_errors():
        return VaultList(
            vaults=[VaultSummary.of(s, engine.folders(s.name)) for s in engine.status().vaults]
        )


def register_tools(server: MCPServer[Any], engine_for: EngineFor) -> None:
    """Add the four tools to ``server``, each on the engine of the request's tenant."""

    def search(
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS)],
        ctx: Context[Any, Any],
        vaults: Vaults = None,
        folders: Folders = None,
        k: Annotated[
            int | None, Field(ge=1, le=MAX_K, description="How many hits (default 8).")
        ] = None,
        filters: Filters = None,
    ) -> SearchResults:
        return search_notes(engine_for(ctx), query, vaults or (), folders or (), k, filters or ())

    def ask(
        question: Annotated[str, Field(min_length=1, max_length=MAX_QUESTION_CHARS)],
        ctx: Context[Any, Any],
        vaults: Vaults = None,
        folders: Folders = None,
        detail: Annotated[
            Detail, Field(description="How long an answer: brief, normal or detailed.")
        ] = "normal",
        filters: Filters = None,
    ) -> Answer:
        return ask_notes(
            engine_for(ctx), question, vaults or (), folders or (), detail, filters or ()
        )

    def get_note(
        vault: Annotated[str, Field(min_length=1, description="The vault's name.")],
        path: Annotated[str, Field(min_length=1, description="The note's path in its vault.")],
        ctx: Context[Any, Any],
        start_line: Annotated[int | None, Field(ge=1, description="First line (1-based).")] = None,
        end_line: Annotated[int | None, Field(ge=1, description="Last line, inclusive.")] = None,
    ) -> NoteText:
        return read_note(engine_for(ctx), vault, path, start_line, end_line)

    def list_vaults(ctx: Context[Any, Any]) -> VaultList:
        return vault_list(engine_for(ctx))

    for fn, title, description in (
        (search, "Search notes", SEARCH),
        (ask, "Ask the notes", ASK),
        (get_note, "Read a note", GET_NOTE),
        (list_vaults, "List vaults", LIST_VAULTS),
    ):
        server.add_tool(fn, title=title, description=description, annotations=READ_ONLY)
