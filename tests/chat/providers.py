"""A scripted LLM for the chat tests: a real implementation of the LLM protocol.

It answers requests that carry sources with the next scripted answer, and requests without
sources (follow-up condensing, folder ranking) with ``rewrite``. Every request is recorded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from notecite.errors import LLMError
from notecite.generate.base import GenerationRequest


class ScriptedLLM:
    """``ScriptedLLM("answer [N1]", rewrite="standalone question")``.

    ``error`` (a message, or the LLMError to raise) makes every answer request fail.
    """

    def __init__(
        self,
        *answers: str,
        rewrite: str = "[]",
        error: str | LLMError | None = None,
        rewrite_error: str | None = None,
    ) -> None:
        self.answers = list(answers) or ["The Apollo launch is on March 14 [N1]."]
        self.rewrite = rewrite
        self.error = error
        self.rewrite_error = rewrite_error
        self.calls: list[GenerationRequest] = []

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model_id(self) -> str:
        return "scripted-1"

    @property
    def answer_calls(self) -> list[GenerationRequest]:
        """Requests for an answer (the ones whose system prompt is not a rewriting task)."""
        return [c for c in self.calls if not _is_rewrite(c)]

    @property
    def rewrite_calls(self) -> list[GenerationRequest]:
        """Follow-up condensing requests."""
        return [c for c in self.calls if _is_rewrite(c)]

    def generate(self, request: GenerationRequest) -> str:
        self.calls.append(request)
        if _is_rewrite(request):
            if self.rewrite_error:
                raise LLMError(self.rewrite_error)
            return self.rewrite
        if not request.sources and "folders" in request.messages[0].content.lower():
            return "[]"
        if isinstance(self.error, LLMError):
            raise self.error
        if self.error:
            raise LLMError(self.error)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        for piece in re.split(r"(\s+)", self.generate(request)):
            if piece:
                yield piece


def _is_rewrite(request: GenerationRequest) -> bool:
    return request.messages[0].content.startswith("Rewrite the user's last message")
