"""The SessionStore protocol: where chat sessions and their messages are kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from notecite.schemas.chat import ChatSession, NewMessage, SessionSettings, StoredMessage


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
    - Reads and updates of an unknown session return None (``delete_session``: False).
    - ``add_messages`` appends all its messages in one transaction and bumps the session's
      ``updated_at``; ``messages`` returns them oldest first (``last``: only the newest N).
    - ``list_sessions`` is ordered by ``updated_at``, newest first.
    - Deleting a session deletes its messages.
    - ``chunk_origins`` maps indexed chunk ids to their note (for citations); unknown ids
      are left out.
    - Safe to call from several threads.
    """

    def create_session(self, title: str, settings: SessionSettings) -> ChatSession: ...

    def get_session(self, session_id: str) -> ChatSession | None: ...

    def list_sessions(self, limit: int = 100, offset: int = 0) -> list[ChatSession]: ...

    def rename_session(self, session_id: str, title: str) -> ChatSession | None: ...

    def update_settings(self, session_id: str, settings: SessionSettings) -> ChatSession | None: ...

    def delete_session(self, session_id: str) -> bool: ...

    def add_messages(
        self, session_id: str, messages: Sequence[NewMessage]
    ) -> list[StoredMessage]: ...

    def messages(self, session_id: str, last: int | None = None) -> list[StoredMessage]: ...

    def chunk_origins(self, chunk_ids: Sequence[str]) -> dict[str, ChunkOrigin]: ...

    def close(self) -> None: ...
