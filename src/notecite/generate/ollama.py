"""Ollama's native chat API: ``POST {base_url}/api/chat`` (streaming is NDJSON)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx

from notecite.config import GenerationSettings
from notecite.errors import LLMError
from notecite.generate.base import GenerationRequest, GenerationUsage
from notecite.http import LLM_SERVER, post_json, stream_lines, without_body


class OllamaLLM:
    """Chats with a local Ollama server."""

    def __init__(self, settings: GenerationSettings) -> None:
        self._base_url = (settings.base_url or "http://127.0.0.1:11434").rstrip("/")
        self._model = settings.model or "llama3.2"
        self._settings = settings
        self._client: httpx.Client | None = None

    @property
    def name(self) -> str:
        return "ollama"

    @property
    def model_id(self) -> str:
        return self._model

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self._settings.timeout_s)
        return self._client

    def close(self) -> None:
        """Close the HTTP client and its pooled connections (reopened if used again)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def _payload(self, request: GenerationRequest, stream: bool) -> dict[str, object]:
        options: dict[str, object] = {
            "temperature": request.temperature,
            "num_predict": request.max_tokens,
        }
        if request.stop:
            options["stop"] = list(request.stop)
        return {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "stream": stream,
            "options": options,
        }

    def generate(self, request: GenerationRequest) -> str:
        body = post_json(
            self._http(),
            f"{self._base_url}/api/chat",
            self._payload(request, stream=False),
            provider=LLM_SERVER,
            retries=self._settings.retries,
        )
        record_counts(request.usage, body)
        try:
            return str(body["message"]["content"] or "")
        except (KeyError, TypeError) as exc:
            raise LLMError(f"unexpected reply from Ollama at {self._base_url}") from exc

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        lines = stream_lines(
            self._http(),
            f"{self._base_url}/api/chat",
            self._payload(request, stream=True),
            provider=LLM_SERVER,
            retries=self._settings.retries,
        )
        for line in lines:
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError as exc:
                message = f"bad stream line from Ollama at {self._base_url} (logged at DEBUG)"
                raise LLMError(without_body(message, line)) from exc
            piece = (event.get("message") or {}).get("content")
            if piece:
                yield str(piece)
            if event.get("done"):
                record_counts(request.usage, event)
                return


def record_counts(usage: GenerationUsage | None, event: object) -> None:
    """Copy Ollama's final counts and durations (nanoseconds) into ``usage``."""
    if usage is None or not isinstance(event, dict):
        return
    usage.prompt_tokens = int(event.get("prompt_eval_count") or 0)
    usage.prompt_ms = float(event.get("prompt_eval_duration") or 0) / 1e6
    usage.output_tokens = int(event.get("eval_count") or 0)
    usage.output_ms = float(event.get("eval_duration") or 0) / 1e6


def create(settings: GenerationSettings) -> OllamaLLM:
    """Entry point: ``llm = "ollama"``."""
    return OllamaLLM(settings)
