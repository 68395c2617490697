"""Chat sessions: create, list, read (with messages), rename, delete; read and change settings."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response, status

from notecite.api.errors import InvalidRequestError
from notecite.api.schemas import SessionCreate, SessionList, SessionRename
from notecite.api.services import MAX_OFFSET, ServicesDep
from notecite.generate.registry import available_llms
from notecite.schemas.chat import ChatSession, SessionDetail, SessionSettings, SessionSettingsPatch

router = APIRouter(prefix="/sessions", tags=["sessions"])


def _check_model(patch: SessionSettingsPatch | None) -> None:
    if patch is not None and patch.model is not None and patch.model not in available_llms():
        raise InvalidRequestError(
            f"unknown model {patch.model!r}; available: {', '.join(available_llms())}"
        )


@router.post("", status_code=status.HTTP_201_CREATED)
def create_session(body: SessionCreate, services: ServicesDep) -> ChatSession:
    """Start a session; ``settings`` overrides the defaults."""
    _check_model(body.settings)
    return services.sessions.create(body.title, body.settings)


@router.get("")
def list_sessions(
    services: ServicesDep,
    limit: int = Query(default=100, ge=1, le=1000),
    offset: int = Query(default=0, ge=0, le=MAX_OFFSET),
) -> SessionList:
    """Sessions, most recently active first."""
    return SessionList(sessions=services.sessions.recent(limit, offset))


@router.get("/{session_id}")
def get_session(session_id: str, services: ServicesDep) -> SessionDetail:
    """A session with all its messages, oldest first."""
    return services.sessions.detail(session_id)


@router.patch("/{session_id}")
def rename_session(session_id: str, body: SessionRename, services: ServicesDep) -> ChatSession:
    """Rename a session."""
    if not body.title.strip():
        raise InvalidRequestError("a session title cannot be blank")
    return services.sessions.rename(session_id, body.title)


@router.delete("/{session_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_session(session_id: str, services: ServicesDep) -> Response:
    """Delete a session and its messages."""
    services.sessions.delete(session_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/{session_id}/messages")
def truncate_session(
    session_id: str,
    services: ServicesDep,
    from_id: int = Query(
        alias="from", ge=1, le=2**63 - 1, description="the first message id to delete"
    ),
) -> SessionDetail:
    """Delete the message ``from`` and every later one (to edit a question and ask it again,
    or regenerate the last answer); the session as it is left. 404 when the message is not
    one of the session's."""
    return services.sessions.truncate(session_id, from_id)


@router.get("/{session_id}/settings")
def get_settings(session_id: str, services: ServicesDep) -> SessionSettings:
    """The session's settings."""
    return services.sessions.get(session_id).settings


@router.patch("/{session_id}/settings")
def update_settings(
    session_id: str, body: SessionSettingsPatch, services: ServicesDep
) -> SessionSettings:
    """Change some settings; a field sent as null goes back to its default."""
    _check_model(body)
    return services.sessions.update_settings(session_id, body)
