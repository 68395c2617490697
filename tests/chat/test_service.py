"""Engine.chat end to end on a real index: history, condensing, settings, citations, failures."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from notecite import Engine
from notecite.chat import (
    ChatRequest,
    SessionNotFoundError,
    Sessions,
    SessionSettings,
    SessionStore,
    TenantNotFoundError,
)
from notecite.errors import LLMError, LLMTimeoutError
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.reading import NOT_ANSWERED
from notecite.schemas.chat import SessionSettingsPatch
from notecite.testing import ScriptedLLM
from tests.chat.conftest import MakeEngine
from tests.preparable import PreparableLLM

SessionsOf = Callable[[Engine], SessionStore]


def test_a_first_message_starts_a_session_and_stores_both_messages(
    make_engine: MakeEngine, sessions_of: SessionsOf
) -> None:
    engine = make_engine()
    response = engine.chat(ChatRequest(message="What is the Apollo budget?"))

    assert "40000 euros" in response.answer
    assert response.citations
    assert response.citations[0].note_id == "notes/projects/apollo.md"
    assert response.meta.model == "extractive"
    assert response.meta.retrieval.k >= 1
    assert response.meta.retrieval.candidate_count >= response.meta.retrieval.rerank_count >= 1
    sessions = Sessions(sessions_of(engine), SessionSettings.defaults(engine.settings.ask))
    session = sessions.get(response.session_id)
    assert session.title == "What is the Apollo budget?"
    user, assistant = sessions.messages(response.session_id)
    assert (user.role, user.content) == ("user", "What is the Apollo budget?")
    assert assistant.content.startswith(response.answer)
    assert "\n\n---\n**Sources:**\n- [" in assistant.content
    assert assistant.citations == response.citations


def test_history_goes_into_the_prompt_without_old_citation_ids(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM(
        "The Apollo launch is on March 14 [N1].",
        "The budget is 40000 euros [N1].",
        rewrite="What is the Apollo budget?",
    )
    engine = make_engine(llm=llm, ask={"auto_rag": "off"})  # its answers are scripted in order
    first = engine.chat(ChatRequest(message="When is the Apollo launch?"))
    second = engine.chat(ChatRequest(message="And its budget?", session_id=first.session_id))

    assert second.session_id == first.session_id
    assert second.meta.query == "What is the Apollo budget?"
    last = llm.answer_calls[-1]
    roles = [m.role for m in last.messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert last.messages[1].content == "When is the Apollo launch?"
    assert last.messages[2].content == "The Apollo launch is on March 14."  # no [N1], no sources
    assert "Question: What is the Apollo budget?" in last.messages[3].content
    assert "Budget" in second.citations[0].section
    assert "40000 euros" in second.citations[0].snippet


def test_only_the_last_n_turns_go_into_the_prompt(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM("Apollo launches on March 14 [N1].", rewrite="When is the Apollo launch?")
    engine = make_engine(llm=llm, chat={"history_turns": 2})
    session_id = None
    for number in range(4):
        reply = engine.chat(
            ChatRequest(message=f"Apollo launch question {number}?", session_id=session_id)
        )
        session_id = reply.session_id
    history = [m.content for m in llm.answer_calls[-1].messages[1:-1] if m.role == "user"]
    assert history == ["Apollo launch question 1?", "Apollo launch question 2?"]


def test_the_extractive_provider_condenses_by_joining_the_previous_question(
    make_engine: MakeEngine,
) -> None:
    engine = make_engine()
    first = engine.chat(ChatRequest(message="When is the Apollo launch?"))
    second = engine.chat(
        ChatRequest(message="And what about its budget?", session_id=first.session_id)
    )
    assert second.meta.query == "When is the Apollo launch? And what about its budget?"
    assert "40000 euros" in second.answer


def test_session_settings_steer_retrieval_and_the_prompt(
    make_engine: MakeEngine, sessions_of: SessionsOf
) -> None:
    llm = ScriptedLLM("Apollo launches on March 14 [N1].")
    engine = make_engine(llm=llm)
    store = sessions_of(engine)
    service_defaults = engine.settings.ask.final_threshold
    sessions = Sessions(store, SessionSettings.defaults(engine.settings.ask))
    session = sessions.create(
        "custom",
        SessionSettingsPatch(rag_top_k=1, system_prompt="You are a terse pirate."),
    )
    assert session.settings.rag_threshold == service_defaults
    reply = engine.chat(
        ChatRequest(message="When is the Apollo launch?", session_id=session.id), sessions=store
    )
    assert reply.meta.retrieval.k == 1
    system = llm.answer_calls[-1].messages[0].content
    assert system.startswith("You are a terse pirate.")
    assert "[N1]" in system  # the citation rules stay

    sessions.update_settings(session.id, SessionSettingsPatch(rag_threshold=1.0))
    calls = len(llm.answer_calls)
    reply = engine.chat(
        ChatRequest(message="When is the Apollo launch?", session_id=session.id), sessions=store
    )
    assert (reply.answer, reply.citations) == (FALLBACK_ANSWER, [])
    assert len(llm.answer_calls) == calls  # nothing passed: the model is not asked


def test_rag_off_is_plain_chat_and_citations_off_hides_them(
    make_engine: MakeEngine, sessions_of: SessionsOf
) -> None:
    llm = ScriptedLLM("Hello there [N1].")
    engine = make_engine(llm=llm)
    store = sessions_of(engine)
    sessions = Sessions(store, SessionSettings.defaults(engine.settings.ask))
    plain = sessions.create("plain", SessionSettingsPatch(enable_rag=False))
    reply = engine.chat(ChatRequest(message="Hi!", session_id=plain.id), sessions=store)
    assert reply.answer == "Hello there."
    assert reply.meta.invalid_citations == 1
    assert reply.meta.retrieval.strategy == "none"
    assert reply.citations == []
    assert llm.answer_calls[-1].sources == ()

    quiet = sessions.create("quiet", SessionSettingsPatch(include_citations=False))
    llm.answers = ["The Apollo launch is on March 14 [N1]."]
    reply = engine.chat(
        ChatRequest(message="When is the Apollo launch?", session_id=quiet.id), sessions=store
    )
    assert (reply.answer, reply.citations) == ("The Apollo launch is on March 14.", [])
    stored = store.messages(quiet.id)[-1].content
    assert "**Sources:**" not in stored


@pytest.mark.parametrize(
    ("error", "error_type"),
    [
        (LLMTimeoutError("LLM server at http://127.0.0.1:9/v1 timed out"), "LLMTimeoutError"),
        # the class decides, not the words: a plain failure that mentions a timeout
        (LLMError("LLM server at http://127.0.0.1:9/v1 answered 400 (timeout_param)"), "LLMError"),
    ],
)
def test_an_llm_failure_keeps_the_sources_and_is_stored_with_its_error(
    make_engine: MakeEngine, sessions_of: SessionsOf, error: LLMError, error_type: str
) -> None:
    engine = make_engine(llm=ScriptedLLM(error=error))
    reply = engine.chat(ChatRequest(message="When is the Apollo launch?"))
    assert reply.error is not None
    assert reply.error.type == error_type
    assert reply.citations
    assert reply.answer.startswith("The language model failed")
    sessions = Sessions(sessions_of(engine), SessionSettings.defaults(engine.settings.ask))
    stored = sessions.messages(reply.session_id)[-1]
    assert stored.error == reply.error


def test_unknown_sessions_and_tenants_are_refused(make_engine: MakeEngine) -> None:
    engine = make_engine()
    with pytest.raises(SessionNotFoundError):
        engine.chat(ChatRequest(message="When?", session_id="no-such-session"))
    with pytest.raises(TenantNotFoundError):
        engine.chat(ChatRequest(message="When?", tenant_id="acme"))


def test_tokens_stream_before_the_validated_answer(make_engine: MakeEngine) -> None:
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1][N9].")
    engine = make_engine(llm=llm)
    pieces: list[str] = []
    reply = engine.chat(ChatRequest(message="When is the Apollo launch?"), on_token=pieces.append)
    assert "".join(pieces) == "The Apollo launch is on March 14 [N1][N9]."
    assert reply.answer == "The Apollo launch is on March 14 [N1]."
    assert reply.meta.invalid_citations == 1


def test_a_name_the_notes_never_mention_settles_a_turn_and_a_lesser_one_is_told(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM("The Apollo budget is 40000 euros [N1].")
    engine = make_engine(llm=llm, ask={"auto_rag": "off"})
    settled = engine.chat(ChatRequest(message="Is the Apollo budget tracked in Jira?"))
    assert settled.answer.startswith('Your notes don\'t mention "Jira"')
    assert llm.answer_calls == []

    detail = engine.chat(
        ChatRequest(message="Did Maria approve the Apollo budget for Lisbon in Jira?")
    )
    assert "40000 euros" in detail.answer
    (call,) = llm.answer_calls
    assert 'The notes above do not mention "Jira"' in call.messages[-1].content


def test_a_chat_model_that_copies_the_hint_is_asked_once_more_without_it(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM(
        'The notes above do not mention "Jira": say so, and claim nothing about it.',
        "The Apollo budget is 40000 euros [N1].",
    )
    engine = make_engine(llm=llm, ask={"auto_rag": "off"})
    reply = engine.chat(
        ChatRequest(message="Did Maria approve the Apollo budget for Lisbon in Jira?")
    )
    assert reply.answer.startswith('Your notes don\'t mention "Jira". The Apollo budget')
    assert not reply.meta.abstained
    first, retry = llm.answer_calls
    assert 'do not mention "Jira"' in first.messages[-1].content
    assert "do not mention" not in retry.messages[-1].content


def test_a_model_prepared_for_chat_reads_the_chat_system_prompt_ahead(
    make_engine: MakeEngine,
) -> None:
    """`notecite chat` prepares the model for chat: the system prompt it reads ahead is the
    one the first turn sends, so llama.cpp's prompt cache holds all of it."""
    llm = PreparableLLM("The Apollo launch is on March 14 [N1].")
    engine = make_engine(llm=llm, ask={"auto_rag": "off"})
    assert engine.prepare_llm(first_use="chat")
    (warm,) = llm.calls
    assert warm.max_tokens == 1
    engine.chat(ChatRequest(message="When is the Apollo launch?"))
    turn = llm.answer_calls[-1]
    assert turn is not warm
    assert warm.messages[0] == turn.messages[0]
    assert turn.messages[-1].content.startswith(warm.messages[-1].content.split("\n")[0])


def test_a_chat_answer_whose_notes_do_not_hold_it_is_replaced_by_an_abstention(
    make_engine: MakeEngine,
) -> None:
    llm = ScriptedLLM("The Apollo budget is 40000 euros [N1].", yes=0.1)
    engine = make_engine(llm=llm, ask={"auto_rag": "off", "reading_threshold": 0.5})
    reply = engine.chat(ChatRequest(message="What is the Apollo budget?"))
    assert reply.answer == NOT_ANSWERED
    assert (reply.meta.abstained, reply.meta.abstain_reason) == (True, "insufficient_information")
    assert reply.citations == []
    assert len(llm.answer_calls) == 1
    assert len(llm.yes_calls) == 1


def test_a_misspelt_word_is_asked_of_the_model_as_the_notes_word(make_engine: MakeEngine) -> None:
    """ "lanuch" is in no note; the notes hold "launch": the turn is searched and asked as
    "When is the Apollo launch?"."""
    llm = ScriptedLLM("The Apollo launch is on March 14 [N1].")
    engine = make_engine(llm=llm, ask={"auto_rag": "off"})
    response = engine.chat(ChatRequest(message="When is the Apollo lanuch?"))
    assert response.citations
    assert response.citations[0].note_id == "notes/projects/apollo.md"
    (call,) = llm.answer_calls
    assert "When is the Apollo launch?" in call.messages[-1].content
    assert "lanuch" not in call.messages[-1].content
