"""The GraphQL schema and its router: queries ``sessions``, ``session(id)``; mutations
``createSession``, ``updateSessionSettings``, ``sendMessage``.

Requests are held to the limits of :mod:`notecite.api.graphql.limits` (size, depth, aliases,
one model turn). Only POST is served: no GraphiQL page (it loads its scripts from a CDN, which
the page's Content-Security-Policy forbids), no queries over GET, no subscriptions.

Resolvers run the blocking service calls in a worker thread. Errors of notecite (unknown
session, invalid settings) are reported with their message; any other is masked.
"""

from __future__ import annotations

import logging
from functools import partial

import anyio.to_thread
import strawberry
from graphql import GraphQLError
from pydantic import ValidationError
from strawberry.extensions import MaskErrors
from strawberry.fastapi import BaseContext, GraphQLRouter
from strawberry.types import ExecutionContext

from notecite.api.errors import ApiError, InvalidRequestError
from notecite.api.graphql.limits import limit_extensions
from notecite.api.graphql.types import ChatReply, ChatSessionType, RagOptions
from notecite.api.services import MAX_OFFSET, Services, ServicesDep
from notecite.errors import NotecitError
from notecite.generate.registry import available_llms
from notecite.schemas.ask import MAX_QUESTION_CHARS
from notecite.schemas.chat import ChatRequest, SessionSettingsPatch


class Context(BaseContext):
    """The request's tenant services."""

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services


def get_context(services: ServicesDep) -> Context:
    """The context of one GraphQL request (the bearer key picks the tenant)."""
    return Context(services)


logger = logging.getLogger(__name__)

Info = strawberry.Info[Context, None]


def _check(patch: SessionSettingsPatch) -> SessionSettingsPatch:
    if patch.model is not None and patch.model not in available_llms():
        raise InvalidRequestError(
            f"unknown model {patch.model!r}; available: {', '.join(available_llms())}"
        )
    return patch


async def resolve_sessions(info: Info, limit: int = 100, offset: int = 0) -> list[ChatSessionType]:
    """Sessions, most recently active first."""
    if not 1 <= limit <= 1000 or not 0 <= offset <= MAX_OFFSET:
        raise InvalidRequestError(f"limit must be 1-1000 and offset 0-{MAX_OFFSET}")
    services = info.context.services
    found = await anyio.to_thread.run_sync(services.sessions.recent, limit, offset)
    return [ChatSessionType.of(s) for s in found]


async def resolve_session(info: Info, id: strawberry.ID) -> ChatSessionType | None:
    """One session with its messages, or null when unknown."""
    sessions = info.context.services.sessions

    def read() -> ChatSessionType | None:
        session = sessions.find(str(id))
        if session is None:
            return None
        return ChatSessionType.of(session, sessions.messages(session.id))

    return await anyio.to_thread.run_sync(read)


async def create_session(
    info: Info, title: str | None = None, rag_options: RagOptions | None = None
) -> ChatSessionType:
    """Start a session; ragOptions change the defaults."""
    patch = _check(rag_options.patch()) if rag_options else None
    sessions = info.context.services.sessions
    created = await anyio.to_thread.run_sync(sessions.create, title, patch)
    return ChatSessionType.of(created)


async def update_session_settings(
    info: Info, id: strawberry.ID, rag_options: RagOptions
) -> ChatSessionType:
    """Change some RAG settings of a session (a field sent as null: back to its default)."""
    patch = _check(rag_options.patch())
    services = info.context.services

    def update() -> ChatSessionType:
        services.sessions.update_settings(str(id), patch)
        return ChatSessionType.of(services.sessions.get(str(id)))

    return await anyio.to_thread.run_sync(update)


async def send_message(
    info: Info,
    message: str,
    session_id: strawberry.ID | None = None,
    vaults: list[str] | None = None,
    folders: list[str] | None = None,
    tenant_id: str | None = None,
    filters: list[str] | None = None,
) -> ChatReply:
    """Send a message and get the validated, cited answer; without sessionId a session is
    started."""
    services = info.context.services
    services.require_tenant(tenant_id)
    if not message.strip() or len(message) > MAX_QUESTION_CHARS:
        raise InvalidRequestError(f"message must be 1-{MAX_QUESTION_CHARS} characters")
    services.check_scope_size(vaults or [], folders or [])
    request = ChatRequest(
        message=message,
        session_id=str(session_id) if session_id is not None else None,
        vaults=vaults or [],
        folders=folders or [],
        filters=filters or [],
    )

    def send() -> ChatReply:
        if request.session_id is not None:
            services.sessions.get(request.session_id)
        services.check_scope(request.vaults, request.folders)
        return ChatReply.of(services.engine.chat(request, sessions=services.session_store))

    return await anyio.to_thread.run_sync(send)


@strawberry.type
class Query:
    sessions: list[ChatSessionType] = strawberry.field(
        resolver=resolve_sessions, description="Sessions, most recently active first."
    )
    session: ChatSessionType | None = strawberry.field(
        resolver=resolve_session, description="One session with its messages, or null when unknown."
    )


@strawberry.type
class Mutation:
    create_session: ChatSessionType = strawberry.mutation(
        resolver=create_session, description="Start a session; ragOptions change the defaults."
    )
    update_session_settings: ChatSessionType = strawberry.mutation(
        resolver=update_session_settings, description="Change some RAG settings of a session."
    )
    send_message: ChatReply = strawberry.mutation(
        resolver=send_message,
        description="Send a message; the answer cites the notes. No sessionId: a new session.",
    )


def _masked(error: GraphQLError) -> bool:
    """Hide the message of anything but notecite's own and validation errors."""
    original = error.original_error
    if original is None:
        return False
    return not isinstance(original, NotecitError | ApiError | ValidationError)


class _Schema(strawberry.Schema):
    """Expected errors (unknown session, invalid settings) are the client's: DEBUG only."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            if error.original_error is not None and _masked(error):
                logger.error("GraphQL resolver failed", exc_info=error.original_error)
            else:
                logger.debug("GraphQL error: %s", error.message)


schema = _Schema(
    query=Query,
    mutation=Mutation,
    extensions=[*limit_extensions(), partial(MaskErrors, should_mask_error=_masked)],
)


def graphql_router() -> GraphQLRouter[Context, None]:
    """The ``/graphql`` router (POST only)."""
    return GraphQLRouter(
        schema,
        path="/graphql",
        context_getter=get_context,
        graphql_ide=None,
        allow_queries_via_get=False,
        subscription_protocols=(),
    )


__all__ = ["Context", "graphql_router", "schema"]
