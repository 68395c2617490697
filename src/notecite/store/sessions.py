"""The SessionStore protocol: where chat sessions and their messages are kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from notecite.records import MessageRecord, NewMessageRecord, SessionRecord


@dataclass(frozen=True)
class ChunkOrigin:
    """The note a chunk belongs to, as a citation shows it."""

    note_id: str
    created_at: datetime | None


class SessionStore(Protocol):
    """Chat sessions and messages of one tenant, persisted beside the index.

    Contract:
    - Session ids are random UUID strings; every read and write is limited to the store's
      tenant, so another tenant's session id behaves like an unknown one.
    - A session's ``settings`` are a JSON object kept as given (the store does not read
      them).
    - Reads and updates of an unknown session return None (``delete_session``: False).
    - ``add_messages`` appends all its messages in one transaction and bumps the session's
      ``updated_at``; adding to an unknown session raises
      :class:`~notecite.errors.StoreError`. ``messages`` returns them oldest first
      (``last``: only the newest N).
    - ``truncate_messages(session_id, message_id)`` deletes that message and every later
      one of the session in one transaction (an edited question and what followed it) and
      bumps ``updated_at``; it returns False, deleting nothing, when the session (of this
      tenant) has no message of that id.
    - ``list_sessions`` is ordered by ``updated_at``, newest first.
    - Deleting a session deletes its messages.
    - ``chunk_origins`` maps indexed chunk ids to their note (for citations); unknown ids
      are left out.
    - Safe to call from several threads.
    """

    def create_session(self, title: str, settings: dict[str, object]) -> SessionRecord: ...

    def get_session(self, session_id: str) -> SessionRecord | None: ...

    def list_sessions(self, limit: int = 100, offset: int = 0) -> list[SessionRecord]: ...

    def rename_session(self, session_id: str, title: str) -> SessionRecord | None: ...

    def update_settings(
        self, session_id: str, settings: dict[str, object]
    ) -> SessionRecord | None: ...

    def delete_session(self, session_id: str) -> bool: ...

    def add_messages(
        self, session_id: str, messages: Sequence[NewMessageRecord]
    ) -> list[MessageRecord]: ...

    def messages(self, session_id: str, last: int | None = None) -> list[MessageRecord]: ...

    def truncate_messages(self, session_id: str, message_id: int) -> bool: ...

    def chunk_origins(self, chunk_ids: Sequence[str]) -> dict[str, ChunkOrigin]: ...

    def close(self) -> None: ...


class CopyableSessionStore(SessionStore, Protocol):
    """A session store that can take sessions and messages as they are (ids, times); this
    is how ``notecite store migrate`` copies them between stores."""

    def put_session(self, session: SessionRecord) -> bool: ...

    def put_messages(self, session_id: str, messages: Sequence[MessageRecord]) -> None: ...
