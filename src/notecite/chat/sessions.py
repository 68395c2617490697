"""Session management over a SessionStore: defaults, titles, not-found errors, and the
wire models of the chat contract (the store keeps plain records; ``chat/records.py``
converts them)."""

from __future__ import annotations

from collections.abc import Sequence

from notecite.chat.errors import SessionNotFoundError, TenantNotFoundError
from notecite.chat.records import message_of, message_record, session_of, settings_record
from notecite.config import DEFAULT_TENANT
from notecite.schemas.chat import (
    MAX_TITLE_CHARS,
    ChatSession,
    NewMessage,
    SessionDetail,
    SessionSettings,
    SessionSettingsPatch,
    StoredMessage,
)
from notecite.store.sessions import SessionStore

DEFAULT_TITLE = "New chat"


def check_tenant(tenant_id: str | None, served: str = DEFAULT_TENANT) -> None:
    """A request may name only the tenant it is served as (or none): any other raises
    TenantNotFoundError, so that a guessed tenant name reads like an unknown one."""
    if tenant_id not in (None, served):
        raise TenantNotFoundError(f"unknown tenant {tenant_id!r}; this request serves {served!r}")


def title_from(message: str) -> str:
    """A session title from its first message: one line, at most 60 characters, cut at a
    word and ended with an ellipsis when longer."""
    line = " ".join(message.split())
    if len(line) <= 60:
        return line
    cut = line[:59]
    if " " in cut[20:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.-") + "\u2026"


class Sessions:
    """Create, read, rename, configure and delete the sessions of one store, and read and
    append their messages, as the chat contract shows them."""

    def __init__(self, store: SessionStore, defaults: SessionSettings) -> None:
        self.store = store
        self.defaults = defaults

    def create(
        self, title: str | None = None, settings: SessionSettingsPatch | None = None
    ) -> ChatSession:
        """A new session; ``settings`` changes the defaults."""
        chosen = settings.apply(self.defaults, self.defaults) if settings else self.defaults
        name = (title or "").strip()[:MAX_TITLE_CHARS] or DEFAULT_TITLE
        return session_of(self.store.create_session(name, settings_record(chosen)))

    def find(self, session_id: str) -> ChatSession | None:
        """The session, or None when there is none of that id."""
        record = self.store.get_session(session_id)
        return session_of(record) if record is not None else None

    def get(self, session_id: str) -> ChatSession:
        """The session, or SessionNotFoundError."""
        session = self.find(session_id)
        if session is None:
            raise _not_found(session_id)
        return session

    def detail(self, session_id: str) -> SessionDetail:
        """The session with every message, oldest first."""
        session = self.get(session_id)
        return SessionDetail(**session.model_dump(), messages=self.messages(session_id))

    def recent(self, limit: int = 100, offset: int = 0) -> list[ChatSession]:
        """Sessions, most recently active first."""
        return [session_of(r) for r in self.store.list_sessions(limit, offset)]

    def messages(self, session_id: str, last: int | None = None) -> list[StoredMessage]:
        """The session's messages, oldest first (``last``: only the newest N)."""
        return [message_of(r) for r in self.store.messages(session_id, last)]

    def add_messages(self, session_id: str, messages: Sequence[NewMessage]) -> list[StoredMessage]:
        """Append ``messages`` to the session in one transaction; StoreError when it is gone."""
        added = self.store.add_messages(session_id, [message_record(m) for m in messages])
        return [message_of(r) for r in added]

    def truncate(self, session_id: str, message_id: int) -> SessionDetail:
        """Delete message ``message_id`` and every later one of the session (an edited
        question is asked again in its place); the session as it is left.

        Raises:
            SessionNotFoundError: no such session, or the message is not one of its own.
        """
        if not self.store.truncate_messages(session_id, message_id):
            self.get(session_id)  # an unknown session says so
            raise SessionNotFoundError(
                f"session {session_id!r} has no message {message_id}; "
                "read the session to find its message ids"
            )
        return self.detail(session_id)

    def rename(self, session_id: str, title: str) -> ChatSession:
        """Give the session a new title."""
        name = title.strip()[:MAX_TITLE_CHARS]
        if not name:
            raise ValueError("a session title cannot be empty")
        session = self.store.rename_session(session_id, name)
        if session is None:
            raise _not_found(session_id)
        return session_of(session)

    def update_settings(self, session_id: str, patch: SessionSettingsPatch) -> SessionSettings:
        """Apply ``patch`` to the session's settings and return the result."""
        current = self.get(session_id).settings
        chosen = patch.apply(current, self.defaults)
        session = self.store.update_settings(session_id, settings_record(chosen))
        if session is None:
            raise _not_found(session_id)
        return session_of(session).settings

    def delete(self, session_id: str) -> None:
        """Delete the session and its messages."""
        if not self.store.delete_session(session_id):
            raise _not_found(session_id)


def _not_found(session_id: str) -> SessionNotFoundError:
    return SessionNotFoundError(f"no chat session {session_id!r}; list the sessions to find its id")
