"""``notecite store migrate``: copy an index between SQLite and PostgreSQL without re-embedding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from notecite.chat.base import SessionStore
from notecite.chat.types import ChatSession, StoredMessage


class CopyableSessionStore(SessionStore, Protocol):
    """A session store that can take sessions and messages as they are (ids, times)."""

    def put_session(self, session: ChatSession) -> bool: ...

    def put_messages(self, session_id: str, messages: Sequence[StoredMessage]) -> None: ...
