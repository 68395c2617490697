"""A scripted LLM provider: answers from a script and records every request it gets.

It is a real implementation of :class:`notecite.generate.base.LLM` (``name``, ``model_id``,
``generate``, ``stream``), so it can be handed to ``Engine(llm=...)``, registered with
:func:`notecite.generate.registry.register_llm`, or put behind
:class:`notecite.testing.server.ProviderServer` to answer over HTTP.

Each request is sorted into a :data:`Task` by its system prompt (the answer, folder ranking,
follow-up rewriting, or one of auto-RAG's steps), and each task has its own script.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Literal, get_args

from notecite.chat.prompts import CONDENSE_SYSTEM_PROMPT
from notecite.errors import LLMError
from notecite.generate.base import ChatMessage, GenerationRequest
from notecite.generate.prompts import folder_ranking_messages
from notecite.retrieve.autorag import HYDE_PROMPT, MULTI_PROMPT, REWRITE_PROMPT

Task = Literal["answer", "folders", "rewrite", "hyde", "search_query", "multi_query"]
"""What a request asks for.

- ``answer``: an answer (over sources, or plain chat without them);
- ``folders``: the folder ranking of an ask (a JSON array of folder names);
- ``rewrite``: chat's rewriting of a follow-up as a standalone question;
- ``hyde``, ``search_query``, ``multi_query``: auto-RAG's hypothetical passage, its rewritten
  search query and its several queries.
"""

TASKS: tuple[Task, ...] = get_args(Task)

Reply = str | BaseException | Callable[[GenerationRequest], str]
"""A scripted reply: the text, an exception to raise, or a function of the request."""

DEFAULT_ANSWER = "This is the scripted answer [N1]."

YesReply = float | Callable[[Sequence[ChatMessage]], float] | None
"""A scripted P(yes) for a yes/no question (the reading check): a number, a function of the
messages, or None (the provider cannot tell, as a remote one without log-probabilities)."""

_FOLDERS_PROMPT = folder_ranking_messages("", ())[0].content
_MULTI = re.compile(re.escape(MULTI_PROMPT).replace(re.escape("{n}"), r"\d+"))


def task_of(request: GenerationRequest) -> Task:
    """The task a request asks for, recognised by its system prompt (``answer`` otherwise)."""
    first = request.messages[0] if request.messages else None
    system = first.content if first is not None and first.role == "system" else ""
    known: dict[str, Task] = {
        CONDENSE_SYSTEM_PROMPT: "rewrite",
        _FOLDERS_PROMPT: "folders",
        HYDE_PROMPT: "hyde",
        REWRITE_PROMPT: "search_query",
    }
    if system in known:
        return known[system]
    if _MULTI.fullmatch(system):
        return "multi_query"
    return "answer"


def echo_question(request: GenerationRequest) -> str:
    """The request's question, unchanged (the default reply of the rewriting tasks)."""
    return request.question


class ScriptedLLM:
    """An LLM whose replies are written by the test.

    ``ScriptedLLM("The launch is on March 14 [N1].")`` answers every question so;
    ``ScriptedLLM("first [N1].", "second [N1].")`` answers in order and then repeats the last;
    a reply may also be an exception (raised) or a function of the
    :class:`~notecite.generate.base.GenerationRequest`.

    Args:
        *answers: Replies to ``answer`` requests, used in order; the last one repeats. They
            stay in the public list ``answers``, which a test may replace between calls.
        folders: The reply to folder-ranking requests (a JSON array; ``"[]"`` = no opinion).
        rewrite: The reply to follow-up rewriting; by default the message itself.
        error: Raised instead of answering (a string becomes an :class:`LLMError`). With
            ``fail_after``, the stream yields that many pieces first.
        rewrite_error: Raised instead of rewriting a follow-up.
        replies: Replies for any task, e.g. ``{"hyde": "a passage"}``; auto-RAG's tasks
            default to echoing the question.
        pieces: The regular expression that cuts a reply into streamed pieces (its groups
            are kept, so pieces concatenate back to the reply); by default, words and spaces.
        delay_s: Sleep before each streamed piece (and once before a generated reply).
        fail_after: Stream this many pieces of the answer, then raise ``error``.
        name: The provider name (the engine picks LLMs by it).
        model_id: The model name reported in answers.
        yes: The probability of "yes" it gives a yes/no question (the reading check), or a
            function of the messages; None (the default): it cannot tell, and no check runs.
            Each question's messages are appended to ``yes_calls``.

    Every request, whatever its task, is appended to ``calls``.
    """

    def __init__(
        self,
        *answers: Reply,
        folders: Reply = "[]",
        rewrite: Reply = echo_question,
        error: str | BaseException | None = None,
        rewrite_error: str | BaseException | None = None,
        replies: Mapping[Task, Reply] | None = None,
        pieces: str = r"(\s+)",
        delay_s: float = 0.0,
        fail_after: int | None = None,
        name: str = "scripted",
        model_id: str = "scripted-1",
        yes: YesReply = None,
    ) -> None:
        if fail_after is not None and error is None:
            raise ValueError("fail_after needs an error to raise")
        self.answers: list[Reply] = list(answers) or [DEFAULT_ANSWER]
        self.replies: dict[Task, Reply] = {
            "folders": folders,
            "rewrite": rewrite,
            "hyde": echo_question,
            "search_query": echo_question,
            "multi_query": echo_question,
            **(replies or {}),
        }
        self.error = _as_error(error)
        self.rewrite_error = _as_error(rewrite_error)
        self.delay_s = delay_s
        self.fail_after = fail_after
        self.calls: list[GenerationRequest] = []
        self._pieces = re.compile(pieces)
        self._name = name
        self._model_id = model_id
        self.yes = yes
        self.yes_calls: list[tuple[ChatMessage, ...]] = []
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def model_id(self) -> str:
        return self._model_id

    def calls_for(self, task: Task) -> list[GenerationRequest]:
        """The recorded requests of one task, in order."""
        return [c for c in self.calls if task_of(c) == task]

    @property
    def answer_calls(self) -> list[GenerationRequest]:
        """The requests that asked for an answer."""
        return self.calls_for("answer")

    @property
    def folder_calls(self) -> list[GenerationRequest]:
        """The folder-ranking requests."""
        return self.calls_for("folders")

    @property
    def rewrite_calls(self) -> list[GenerationRequest]:
        """The follow-up rewriting requests."""
        return self.calls_for("rewrite")

    def yes_probability(self, messages: Sequence[ChatMessage]) -> float | None:
        """The scripted P(yes) for ``messages`` (recorded in ``yes_calls``)."""
        with self._lock:
            self.yes_calls.append(tuple(messages))
        if self.yes is None:
            return None
        if self.error is not None and self.fail_after is None:
            raise self.error  # a failing model fails this call too
        return self.yes(messages) if callable(self.yes) else self.yes

    def generate(self, request: GenerationRequest) -> str:
        """Record ``request`` and return its scripted reply (or raise the scripted error)."""
        if self.delay_s:
            time.sleep(self.delay_s)
        task, reply = self._take(request)
        if self.fail_after is not None and task == "answer" and self.error is not None:
            raise self.error
        return reply

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        """The reply of :meth:`generate`, in pieces (``fail_after`` breaks it midway)."""
        task, reply = self._take(request)
        breaks = self.fail_after if task == "answer" else None
        for number, piece in enumerate(p for p in self._pieces.split(reply) if p):
            if breaks is not None and number >= breaks:
                break
            if self.delay_s:
                time.sleep(self.delay_s)
            yield piece
        if breaks is not None and self.error is not None:
            raise self.error

    def _take(self, request: GenerationRequest) -> tuple[Task, str]:
        task = task_of(request)
        with self._lock:
            self.calls.append(request)
            if task == "answer":
                if self.error is not None and self.fail_after is None:
                    raise self.error
                reply = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
            else:
                if task == "rewrite" and self.rewrite_error is not None:
                    raise self.rewrite_error
                reply = self.replies[task]
        if isinstance(reply, BaseException):
            raise reply
        return task, reply if isinstance(reply, str) else reply(request)


def _as_error(error: str | BaseException | None) -> BaseException | None:
    return LLMError(error) if isinstance(error, str) else error
