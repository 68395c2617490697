"""The one place where chat's wire models (``schemas/chat.py``) meet the plain records the
session store keeps (``notecite.records``): each converts both ways here."""

from __future__ import annotations

from dataclasses import asdict

from notecite.records import (
    CitationRecord,
    ErrorRecord,
    MessageRecord,
    MetaRecord,
    NewMessageRecord,
    RetrievalRecord,
    SessionRecord,
)
from notecite.schemas.ask import ErrorInfo
from notecite.schemas.chat import (
    ChatCitation,
    ChatMeta,
    ChatSession,
    NewMessage,
    SessionSettings,
    StoredMessage,
)


def settings_record(settings: SessionSettings) -> dict[str, object]:
    """The settings as the JSON object the store keeps."""
    return settings.model_dump(mode="json")


def session_of(record: SessionRecord) -> ChatSession:
    """The wire session of a stored one (its settings validated)."""
    return ChatSession(
        id=record.id,
        title=record.title,
        settings=SessionSettings.model_validate(record.settings),
        created_at=record.created_at,
        updated_at=record.updated_at,
        message_count=record.message_count,
    )


def message_record(message: NewMessage) -> NewMessageRecord:
    """The record of a message to append."""
    return NewMessageRecord(
        role=message.role,
        content=message.content,
        citations=tuple(_citation_record(c) for c in message.citations),
        meta=_meta_record(message.meta) if message.meta is not None else None,
        error=ErrorRecord(type=message.error.type, message=message.error.message)
        if message.error is not None
        else None,
    )


def message_of(record: MessageRecord) -> StoredMessage:
    """The wire message of a stored one."""
    return StoredMessage(
        id=record.id,
        role=record.role,
        content=record.content,
        citations=[ChatCitation.model_validate(asdict(c)) for c in record.citations],
        meta=ChatMeta.model_validate(asdict(record.meta)) if record.meta is not None else None,
        error=ErrorInfo(type=record.error.type, message=record.error.message)
        if record.error is not None
        else None,
        created_at=record.created_at,
    )


def _citation_record(citation: ChatCitation) -> CitationRecord:
    return CitationRecord(**citation.model_dump())


def _meta_record(meta: ChatMeta) -> MetaRecord:
    fields = meta.model_dump()
    fields["retrieval"] = RetrievalRecord(**fields["retrieval"])
    return MetaRecord(**fields)
