"""ScriptedLLM: its tasks, its script, streaming, failures, and its use as a real plugin."""

from __future__ import annotations

import time

import pytest

from notecite.chat.prompts import condense_messages, rag_messages
from notecite.config import GenerationSettings
from notecite.errors import LLMError
from notecite.generate.base import LLM, ChatMessage, ContextSource, GenerationRequest
from notecite.generate.prompts import answer_messages, folder_ranking_messages
from notecite.generate.registry import create_llm, register_llm
from notecite.retrieve.autorag import HYDE_PROMPT, MULTI_PROMPT, REWRITE_PROMPT
from notecite.testing import ScriptedLLM, task_of
from notecite.testing.llm import DEFAULT_ANSWER

SOURCE = ContextSource("N1", "v", "a.md", "# A", "The launch is on March 14.")


def asking(question: str = "When is the launch?") -> GenerationRequest:
    messages = answer_messages(question, [SOURCE], "numbered", "normal", [])
    return GenerationRequest(messages=messages, question=question, sources=(SOURCE,))


def system(prompt: str, question: str = "When is the launch?") -> GenerationRequest:
    messages = (ChatMessage("system", prompt), ChatMessage("user", question))
    return GenerationRequest(messages=messages, question=question)


def test_each_request_is_sorted_into_its_task() -> None:
    history = [ChatMessage("user", "When is the launch?"), ChatMessage("assistant", "March.")]
    folders = folder_ranking_messages("When?", ["projects", "meetings"])
    chat = rag_messages("And the budget?", [SOURCE], history, "You are a pirate.")
    assert task_of(asking()) == "answer"
    assert task_of(GenerationRequest(messages=chat, question="And the budget?")) == "answer"
    assert task_of(GenerationRequest(messages=folders, question="When?")) == "folders"
    rewrite = condense_messages(history, "And the budget?")
    assert task_of(GenerationRequest(messages=rewrite, question="And the budget?")) == "rewrite"
    assert task_of(system(HYDE_PROMPT)) == "hyde"
    assert task_of(system(REWRITE_PROMPT)) == "search_query"
    assert task_of(system(MULTI_PROMPT.format(n=3))) == "multi_query"
    assert task_of(GenerationRequest(messages=(ChatMessage("user", "hi"),))) == "answer"


def test_answers_come_in_order_and_the_last_one_repeats() -> None:
    llm = ScriptedLLM("first [N1].", "second [N1].")
    assert [llm.generate(asking()) for _ in range(3)] == [
        "first [N1].",
        "second [N1].",
        "second [N1].",
    ]
    assert ScriptedLLM().generate(asking()) == DEFAULT_ANSWER
    llm.answers = ["replaced [N1]."]
    assert llm.generate(asking()) == "replaced [N1]."


def test_a_reply_may_be_a_function_of_the_request_or_an_exception() -> None:
    echo = ScriptedLLM(lambda request: f"You asked: {request.question}")
    assert echo.generate(asking("Why?")) == "You asked: Why?"
    failing = ScriptedLLM(LLMError("model crashed"))
    with pytest.raises(LLMError, match="model crashed"):
        failing.generate(asking())


def test_each_task_has_its_own_reply_and_the_calls_are_recorded_by_task() -> None:
    history = [ChatMessage("user", "When is the launch?")]
    rewrite = GenerationRequest(messages=condense_messages(history, "And it?"), question="And it?")
    folders = GenerationRequest(messages=folder_ranking_messages("When?", ["a"]), question="When?")
    llm = ScriptedLLM("Answer [N1].", folders='["a"]', replies={"hyde": "A passage."})
    assert llm.generate(folders) == '["a"]'
    assert llm.generate(rewrite) == "And it?"  # by default, the message unchanged
    assert llm.generate(system(HYDE_PROMPT)) == "A passage."
    assert llm.generate(system(REWRITE_PROMPT, "launch date?")) == "launch date?"
    assert llm.generate(asking()) == "Answer [N1]."
    assert len(llm.calls) == 5
    assert (llm.folder_calls, llm.rewrite_calls, llm.answer_calls) == (
        [folders],
        [rewrite],
        [llm.calls[-1]],
    )
    assert llm.calls_for("hyde")[0].messages[0].content == HYDE_PROMPT


def test_errors_hit_the_answer_only_and_rewrite_errors_the_rewrite_only() -> None:
    history = [ChatMessage("user", "When is the launch?")]
    rewrite = GenerationRequest(messages=condense_messages(history, "And it?"), question="And it?")
    folders = GenerationRequest(messages=folder_ranking_messages("When?", ["a"]), question="When?")
    llm = ScriptedLLM(error="server at http://127.0.0.1:9 timed out", rewrite_error="down")
    assert llm.generate(folders) == "[]"
    with pytest.raises(LLMError, match="timed out"):
        llm.generate(asking())
    with pytest.raises(LLMError, match="down"):
        llm.generate(rewrite)
    assert len(llm.calls) == 3  # a failed request is recorded too


def test_the_stream_adds_up_to_the_reply() -> None:
    llm = ScriptedLLM("The launch is on  March 14 [N1].")
    pieces = list(llm.stream(asking()))
    assert len(pieces) > 5
    assert "".join(pieces) == "The launch is on  March 14 [N1]."
    sentences = ScriptedLLM("One [N1]. Two [N1].", pieces=r"(?<=\.)( )")
    assert list(sentences.stream(asking())) == ["One [N1].", " ", "Two [N1]."]


def test_the_stream_can_break_midway() -> None:
    llm = ScriptedLLM("One two three four", error="stream broke", fail_after=3)
    got: list[str] = []
    with pytest.raises(LLMError, match="stream broke"):
        got.extend(llm.stream(asking()))
    assert got == ["One", " ", "two"]
    with pytest.raises(LLMError, match="stream broke"):
        llm.generate(asking())
    with pytest.raises(ValueError, match="needs an error"):
        ScriptedLLM("x", fail_after=1)


def test_a_delay_is_slept_before_each_piece() -> None:
    llm = ScriptedLLM("a b c", delay_s=0.05)
    started = time.perf_counter()
    assert list(llm.stream(asking())) == ["a", " ", "b", " ", "c"]
    assert time.perf_counter() - started >= 5 * 0.05


def test_it_is_a_real_plugin() -> None:
    llm = ScriptedLLM("Plugged in [N1].", name="scripted-test-plugin", model_id="tiny-1")
    assert isinstance(llm, LLM)
    assert (llm.name, llm.model_id) == ("scripted-test-plugin", "tiny-1")
    register_llm("scripted-test-plugin", lambda settings: llm)
    created = create_llm("scripted-test-plugin", GenerationSettings())
    assert created.generate(asking()) == "Plugged in [N1]."
