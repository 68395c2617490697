"""Chat: sessions with history and settings, follow-up condensing, cited answers."""

from notecite.chat.errors import ChatError, SessionNotFoundError, TenantNotFoundError
from notecite.chat.service import ChatService
from notecite.chat.sessions import Sessions
from notecite.schemas.chat import (
    ChatCitation,
    ChatMeta,
    ChatRequest,
    ChatResponse,
    ChatSession,
    SessionDetail,
    SessionSettings,
    SessionSettingsPatch,
    StoredMessage,
)
from notecite.store.sessions import ChunkOrigin, SessionStore

__all__ = [
    "ChatCitation",
    "ChatError",
    "ChatMeta",
    "ChatRequest",
    "ChatResponse",
    "ChatService",
    "ChatSession",
    "ChunkOrigin",
    "SessionDetail",
    "SessionNotFoundError",
    "SessionSettings",
    "SessionSettingsPatch",
    "SessionStore",
    "Sessions",
    "StoredMessage",
    "TenantNotFoundError",
]
