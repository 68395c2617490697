"""The SessionStore contract, written once and run against the SQLite and Postgres stores.

A subclass provides ``open_sessions``: a callable ``open_sessions(tenant_id=1)`` that opens a
session store of that tenant on one and the same empty database each time it is called in a
test (closing them is the fixture's job), and ``indexed_sessions``: a session store of
tenant 1 beside an index of the test vault (``tests/chat/notes.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from notecite.errors import StoreError
from notecite.records import (
    CitationRecord,
    ErrorRecord,
    MetaRecord,
    NewMessageRecord,
    RetrievalRecord,
)
from notecite.store.sessions import CopyableSessionStore, SessionStore

OpenSessions = Callable[..., CopyableSessionStore]
# the store keeps a session's settings as the JSON object it is given
SETTINGS: dict[str, object] = {"enable_rag": True, "rag_top_k": 3, "rag_threshold": 0.42}


def user(content: str) -> NewMessageRecord:
    return NewMessageRecord(role="user", content=content)


@dataclass(frozen=True)
class IndexedSessions:
    """A session store beside an index of the test vault, and the chunk id of the Apollo
    note's budget section."""

    store: SessionStore
    apollo_chunk_id: str


class SessionStoreContract:
    """Every SessionStore passes these."""

    def test_sessions_are_created_read_renamed_configured_and_deleted(
        self, open_sessions: OpenSessions
    ) -> None:
        store = open_sessions()
        created = store.create_session("Apollo", SETTINGS)
        assert len(created.id) == 36
        assert created.message_count == 0
        assert created.settings == SETTINGS
        assert store.get_session(created.id) == created

        renamed = store.rename_session(created.id, "Apollo launch")
        assert renamed is not None
        assert renamed.title == "Apollo launch"
        assert renamed.updated_at >= created.updated_at

        other = {"enable_rag": False, "model": None, "system_prompt": "Be brief.\n"}
        changed = store.update_settings(created.id, other)
        assert changed is not None
        assert changed.settings == other

        assert store.delete_session(created.id) is True
        assert store.get_session(created.id) is None
        assert store.delete_session(created.id) is False
        assert store.rename_session(created.id, "x") is None
        assert store.update_settings(created.id, SETTINGS) is None

    def test_messages_keep_order_citations_meta_and_are_deleted_with_the_session(
        self, open_sessions: OpenSessions
    ) -> None:
        store = open_sessions()
        session = store.create_session("s", SETTINGS)
        other = store.create_session("other", SETTINGS)
        citations = (
            CitationRecord(cid="N1", note_id="v/a.md", chunk_id="c1", snippet="text", score=0.5),
            CitationRecord(
                cid="N2",
                note_id="v/b.md",
                chunk_id="c2",
                snippet="more",
                score=0.25,
                created_at=datetime(2025, 1, 10, 8, 30, tzinfo=UTC),
                vault="v",
                path="b.md",
                section="# B > Budget",
            ),
        )
        meta = MetaRecord(
            model="m",
            retrieval=RetrievalRecord(
                k=2, strategy="hybrid", candidate_count=9, rerank_count=4, time_ms=12.5
            ),
            invalid_citations=1,
            query="the budget?",
            abstained=True,
            abstain_reason="insufficient_information",
        )
        added = store.add_messages(
            session.id,
            [
                user("q1"),
                NewMessageRecord(
                    role="assistant", content="a1 [N1] [N2]", citations=citations, meta=meta
                ),
            ],
        )
        store.add_messages(other.id, [user("elsewhere")])
        failed = NewMessageRecord(
            role="assistant", content="", error=ErrorRecord(type="llm_error", message="timeout")
        )
        store.add_messages(session.id, [user("q2"), failed])

        messages = store.messages(session.id)
        assert [m.content for m in messages] == ["q1", "a1 [N1] [N2]", "q2", ""]
        assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
        assert messages[:2] == added
        assert messages[1].citations == citations
        assert messages[1].meta == meta
        assert messages[0].meta is None
        assert messages[0].citations == ()
        assert messages[3].error == ErrorRecord(type="llm_error", message="timeout")
        assert [m.content for m in store.messages(session.id, last=2)] == ["q2", ""]
        assert store.messages(session.id, last=0) == []
        fetched = store.get_session(session.id)
        assert fetched is not None
        assert fetched.message_count == 4
        assert fetched.updated_at >= session.updated_at

        store.delete_session(session.id)
        assert store.messages(session.id) == []
        assert [m.content for m in store.messages(other.id)] == ["elsewhere"]

    def test_truncate_removes_a_message_and_every_later_one(
        self, open_sessions: OpenSessions
    ) -> None:
        store = open_sessions()
        session = store.create_session("s", SETTINGS)
        other = store.create_session("other", SETTINGS)
        turns = [user("q1"), NewMessageRecord(role="assistant", content="a1")]
        store.add_messages(session.id, turns)
        edited, _ = store.add_messages(
            session.id, [user("q2"), NewMessageRecord(role="assistant", content="a2")]
        )
        store.add_messages(session.id, [user("q3")])
        (elsewhere,) = store.add_messages(other.id, [user("elsewhere")])
        before = store.get_session(session.id)
        assert before is not None

        assert store.truncate_messages(session.id, elsewhere.id) is False  # not its message
        assert store.truncate_messages("no-such-session", edited.id) is False
        assert store.truncate_messages(session.id, edited.id) is True
        assert [m.content for m in store.messages(session.id)] == ["q1", "a1"]
        assert [m.content for m in store.messages(other.id)] == ["elsewhere"]
        after = store.get_session(session.id)
        assert after is not None
        assert after.message_count == 2
        assert after.updated_at >= before.updated_at
        assert store.truncate_messages(session.id, edited.id) is False  # gone already
        (again,) = store.add_messages(session.id, [user("q2, edited")])
        assert [m.content for m in store.messages(session.id)] == ["q1", "a1", "q2, edited"]

        intruder = open_sessions(tenant_id=2)
        assert intruder.truncate_messages(session.id, again.id) is False
        assert len(store.messages(session.id)) == 3

    def test_adding_to_an_unknown_session_is_an_error(self, open_sessions: OpenSessions) -> None:
        store = open_sessions()
        with pytest.raises(StoreError, match="vanished"):
            store.add_messages("no-such-session", [user("hi")])

    def test_sessions_are_listed_most_recently_active_first(
        self, open_sessions: OpenSessions
    ) -> None:
        store = open_sessions()
        first = store.create_session("first", SETTINGS)
        second = store.create_session("second", SETTINGS)
        store.add_messages(first.id, [user("hello")])
        assert [s.title for s in store.list_sessions()] == ["first", "second"]
        assert [s.title for s in store.list_sessions(limit=1, offset=1)] == ["second"]
        assert [s.message_count for s in store.list_sessions()] == [1, 0]
        assert second.id in {s.id for s in store.list_sessions()}

    def test_a_session_survives_reopening(self, open_sessions: OpenSessions) -> None:
        first = open_sessions()
        session = first.create_session("kept", SETTINGS)
        first.add_messages(session.id, [user("remember me")])
        first.close()
        again = open_sessions()
        assert again.get_session(session.id) == dataclasses.replace(
            session, message_count=1, updated_at=again.messages(session.id)[0].created_at
        )

    def test_another_tenant_sees_no_session_of_the_first(self, open_sessions: OpenSessions) -> None:
        mine = open_sessions()
        session = mine.create_session("private", SETTINGS)
        mine.add_messages(session.id, [user("secret")])
        theirs = open_sessions(tenant_id=2)
        assert theirs.get_session(session.id) is None
        assert theirs.list_sessions() == []
        assert theirs.messages(session.id) == []
        assert theirs.rename_session(session.id, "mine now") is None
        assert theirs.update_settings(session.id, {}) is None
        assert theirs.delete_session(session.id) is False
        with pytest.raises(StoreError):
            theirs.add_messages(session.id, [user("intrusion")])
        assert theirs.chunk_origins(["anything"]) == {}
        kept = mine.get_session(session.id)
        assert kept is not None
        assert kept.title == "private"
        assert [m.content for m in mine.messages(session.id)] == ["secret"]

    def test_put_session_keeps_ids_and_times_and_is_idempotent(
        self, open_sessions: OpenSessions
    ) -> None:
        source = open_sessions()
        session = source.create_session("copied", SETTINGS)
        source.add_messages(session.id, [user("one")])
        original = source.messages(session.id)
        assert source.delete_session(session.id)

        assert source.put_session(session) is True
        assert source.put_session(session) is False
        source.put_messages(session.id, original)
        assert source.get_session(session.id) == dataclasses.replace(session, message_count=1)
        (copied,) = source.messages(session.id)
        assert (copied.content, copied.created_at) == ("one", original[0].created_at)

    def test_chunk_origins_name_the_note_and_its_creation_date(
        self, indexed_sessions: IndexedSessions
    ) -> None:
        store, chunk_id = indexed_sessions.store, indexed_sessions.apollo_chunk_id
        assert store.chunk_origins([]) == {}
        origins = store.chunk_origins([chunk_id, "no-such-chunk"])
        assert list(origins) == [chunk_id]
        origin = origins[chunk_id]
        assert origin.note_id == "notes/projects/apollo.md"
        assert origin.created_at is not None
        assert origin.created_at.date().isoformat() == "2025-01-10"
