"""The LLM protocol and what a generation call carries."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
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
    title: str = ""  # the note's title (frontmatter or first heading), when known


@dataclass(frozen=True)
class Owners:
    """Notes the question names by an alias as an owner ("my manager's birthday" of the note
    whose ``aliases`` hold "my manager"): the question asks what they hold, and a claim is
    supported only by a line of one of ``notes`` ((vault, path))."""

    notes: frozenset[tuple[str, str]]


@dataclass
class GenerationUsage:
    """What one generation cost, as far as the provider reports it (filled during the call).

    Attributes:
        prompt_tokens: tokens of the prompt the model read (its own tokenizer).
        cached_tokens: of those, how many it reused from its prompt cache, not read again.
        prompt_ms: time spent reading the uncached prompt.
        output_tokens: tokens written.
        output_ms: time spent writing them.
    """

    prompt_tokens: int = 0
    cached_tokens: int = 0
    prompt_ms: float = 0.0
    output_tokens: int = 0
    output_ms: float = 0.0

    @property
    def reported(self) -> bool:
        """Did the provider report anything?"""
        return bool(self.prompt_tokens or self.output_tokens)


@dataclass(frozen=True)
class GenerationRequest:
    """A prompt, plus the structured sources behind it (used by model-free providers)."""

    messages: tuple[ChatMessage, ...]
    question: str = ""
    sources: tuple[ContextSource, ...] = ()
    citation_style: str = "numbered"
    temperature: float = 0.0
    max_tokens: int = 512
    stop: tuple[str, ...] = field(default_factory=tuple)
    usage: GenerationUsage | None = field(default=None, compare=False)
    """Where a provider that knows its token counts and rates records them."""


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


@runtime_checkable
class Judge(Protocol):
    """A provider that can weigh a yes/no question by its own probabilities (the local
    model, from the log-probabilities of its first word)."""

    def yes_probability(self, messages: Sequence[ChatMessage]) -> float | None:
        """P(yes) / (P(yes) + P(no)) for the first word of the reply to ``messages``; None
        when the provider cannot tell. Failures raise :class:`notecite.errors.LLMError`."""
        ...


ModelProgress = Callable[[str, int, int], None]
"""``progress(stage, done, total)`` while a model is prepared: ``assemble`` (bytes of the
bundled model written so far, of ``total``), then ``load`` (0 of 1 when loading starts,
1 of 1 when the model is ready)."""


@runtime_checkable
class Preparable(Protocol):
    """A provider with a model to make ready before the first question (the local model)."""

    @property
    def ready(self) -> bool:
        """Is the model loaded?"""
        ...

    def prepare(self, progress: ModelProgress | None = None) -> None:
        """Assemble and load the model now; raises :class:`notecite.errors.LLMError`."""
        ...

    def report_to(self, progress: ModelProgress | None) -> None:
        """Report to ``progress`` when the model is prepared on first use instead."""
        ...
