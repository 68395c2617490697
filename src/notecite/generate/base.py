"""The LLM protocol and what a generation call carries."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat prompt."""

    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ContextSource:
    """A retrieved chunk as shown to the model, with the id the model cites it by."""

    cid: str
    vault: str
    rel_path: str
    heading_path: str
    text: str
    line_start: int = 0  # the note line of the text's first line (0: unknown)


@dataclass(frozen=True)
class GenerationRequest:
    """A prompt, plus the structured sources behind it (used by model-free providers)."""

    messages: tuple[ChatMessage, ...]
    question: str = ""
    sources: tuple[ContextSource, ...] = ()
    citation_style: str = "numbered"
    temperature: float = 0.3
    max_tokens: int = 512
    stop: tuple[str, ...] = field(default_factory=tuple)


@runtime_checkable
class LLM(Protocol):
    """A chat model.

    Contract:
    - ``name`` is the provider name; ``model_id`` names the model.
    - ``generate`` returns the full answer text; ``stream`` yields it in pieces whose
      concatenation equals what ``generate`` would return.
    - Constructing does no I/O; models load and clients connect on first use.
    - Failures (unreachable, timeout, bad reply) raise :class:`notecite.errors.LLMError`.
    """

    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str: ...

    def generate(self, request: GenerationRequest) -> str: ...

    def stream(self, request: GenerationRequest) -> Iterator[str]: ...
