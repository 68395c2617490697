"""Follow-up condensing: the model's rewrite, and the fallback without a model."""

from __future__ import annotations

import pytest

from notecite.chat.condense import condense, looks_like_follow_up, without_model
from notecite.generate.base import ChatMessage
from notecite.generate.extractive import ExtractiveLLM
from notecite.testing import ScriptedLLM

HISTORY = (
    ChatMessage("user", "When is the Apollo launch?"),
    ChatMessage("assistant", "On March 14."),
)


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("and what about the budget?", True),
        ("What about the second one?", True),
        ("Who approved it?", True),
        ("How much does the Hermes migration cost?", False),
        ("Water schedule for tomatoes", False),
    ],
)
def test_follow_ups_are_recognised(message: str, expected: bool) -> None:
    assert looks_like_follow_up(message) is expected


def test_without_history_the_message_is_the_query() -> None:
    llm = ScriptedLLM(rewrite="never used")
    assert condense(llm, (), "When is the launch?").query == "When is the launch?"
    assert llm.calls == []


def test_the_model_rewrites_a_follow_up_into_a_standalone_question() -> None:
    llm = ScriptedLLM(rewrite='Standalone question: "What is the Apollo budget?"\nextra chatter')
    result = condense(llm, HISTORY, "and the budget?")
    assert (result.query, result.method) == ("What is the Apollo budget?", "llm")
    (call,) = llm.rewrite_calls
    prompt = call.messages[-1].content
    assert "User: When is the Apollo launch?" in prompt
    assert "Assistant: On March 14." in prompt
    assert "Last message: and the budget?" in prompt


def test_the_extractive_provider_joins_the_previous_question_to_a_follow_up() -> None:
    result = condense(ExtractiveLLM(), HISTORY, "and the budget?")
    assert (result.query, result.method) == (
        "When is the Apollo launch? and the budget?",
        "previous+new",
    )


def test_a_standalone_message_stays_unchanged_without_a_model() -> None:
    result = without_model(HISTORY, "How much does the Hermes migration cost?")
    assert (result.query, result.method) == (
        "How much does the Hermes migration cost?",
        "unchanged",
    )


def test_a_failing_or_rambling_model_falls_back() -> None:
    failing = ScriptedLLM(rewrite_error="LLM server at http://127.0.0.1:9 timed out")
    assert condense(failing, HISTORY, "and the budget?").method == "previous+new"
    rambling = ScriptedLLM(rewrite="x" * 600)
    assert condense(rambling, HISTORY, "and the budget?").method == "previous+new"
    empty = ScriptedLLM(rewrite="  \n ")
    assert condense(empty, HISTORY, "Hermes status").method == "unchanged"
