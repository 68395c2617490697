"""Bodies of the OpenAI-compatible routes (``/v1/models``, ``/v1/chat/completions``).

Only what chat front ends and SDKs send and read is modelled; unknown request fields
(``temperature``, ``user``, ...) are accepted and ignored. notecite adds ``citations`` to
the message (and to the last streamed chunk) and a ``notecite`` field with the validated
answer and the chat meta.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from notecite.schemas.chat import ChatCitation, ChatMeta

MODEL_PREFIX = "notecite"
"""Model ids: ``notecite`` (the configured LLM) or ``notecite:<provider>``."""


class ContentPart(BaseModel):
    """One part of a message's content; only text parts are read."""

    model_config = ConfigDict(extra="ignore")

    type: str
    text: str | None = None


class InputMessage(BaseModel):
    """A message of the conversation the client sends."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[ContentPart] | None = None

    def text(self) -> str:
        """The message's text (text parts joined)."""
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return "".join(p.text or "" for p in self.content if p.type == "text")


class CompletionRequest(BaseModel):
    """``POST /v1/chat/completions``: the last user message is the question.

    ``vaults``, ``folders`` and ``filters`` (notecite extensions, e.g. the SDK's
    ``extra_body``) scope the search like ``/chat`` does.
    """

    model_config = ConfigDict(extra="ignore")

    model: str = Field(min_length=1, max_length=200)
    messages: list[InputMessage] = Field(min_length=1)
    stream: bool = False
    vaults: list[str] = Field(default_factory=list)
    folders: list[str] = Field(default_factory=list)
    filters: list[str] = Field(default_factory=list, max_length=20)


class OutputMessage(BaseModel):
    """The assistant's answer; ``citations`` are the sources its ``[Nk]`` markers name."""

    role: Literal["assistant"] = "assistant"
    content: str
    citations: list[ChatCitation] = Field(default_factory=list)


class Choice(BaseModel):
    """The one choice notecite returns."""

    index: int = 0
    message: OutputMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class Usage(BaseModel):
    """Token counts of the turn's answer call, with the tokenizer notecite sizes the context
    by (the embedder's; a remote model's own count may differ a little): zeros when no model
    was called (an abstention before generation)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class Extension(BaseModel):
    """notecite's own view of the turn: the validated answer and the chat meta."""

    answer: str
    meta: ChatMeta


class Completion(BaseModel):
    """A ``chat.completion`` object (dump it with ``by_alias=True``: citations and meta
    keep the camelCase names of ``/chat``)."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage = Field(default_factory=Usage)
    citations: list[ChatCitation] = Field(default_factory=list)
    notecite: Extension


class ModelCard(BaseModel):
    """One entry of ``/v1/models``."""

    id: str
    object: Literal["model"] = "model"
    created: int = 0
    owned_by: str = "notecite"


class ModelList(BaseModel):
    """``GET /v1/models``."""

    object: Literal["list"] = "list"
    data: list[ModelCard]
