"""Any OpenAI-compatible chat endpoint (OpenAI, Ollama /v1, vLLM, llama.cpp, LM Studio, Gemini)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx

from notecite.config import GenerationSettings
from notecite.errors import LLMError
from notecite.generate.base import GenerationRequest, GenerationUsage
from notecite.http import LLM_SERVER, post_json, stream_lines, without_body


class OpenAICompatLLM:
    """``POST {base_url}/chat/completions``; streaming reads Server-Sent Events."""

    def __init__(self, settings: GenerationSettings) -> None:
        self._base_url = (settings.base_url or "https://api.openai.com/v1").rstrip("/")
        self._model = settings.model or "gpt-4o-mini"
        self._settings = settings
        self._client: httpx.Client | None = None

    @property
    def name(self) -> str:
        return "openai"

    @property
    def model_id(self) -> str:
        return self._model

    def _http(self) -> httpx.Client:
        if self._client is None:
            key = self._settings.api_key
            headers = {"Authorization": f"Bearer {key.get_secret_value()}"} if key else {}
            self._client = httpx.Client(timeout=self._settings.timeout_s, headers=headers)
        return self._client

    def close(self) -> None:
        """Close the HTTP client and its pooled connections (reopened if used again)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def _payload(self, request: GenerationRequest, stream: bool) -> dict[str, object]:
        payload: dict[str, object] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "stream": stream,
        }
        if request.stop:
            payload["stop"] = list(request.stop)
        return payload

    def generate(self, request: GenerationRequest) -> str:
        body = post_json(
            self._http(),
            f"{self._base_url}/chat/completions",
            self._payload(request, stream=False),
            provider=LLM_SERVER,
            retries=self._settings.retries,
        )
        record_usage(request.usage, body.get("usage") if isinstance(body, dict) else None)
        try:
            return str(body["choices"][0]["message"]["content"] or "")
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"unexpected chat reply from {self._base_url}") from exc

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        lines = stream_lines(
            self._http(),
            f"{self._base_url}/chat/completions",
            self._payload(request, stream=True),
            provider=LLM_SERVER,
            retries=self._settings.retries,
        )
        for line in lines:
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            try:
                event = json.loads(data)
                choices = event["choices"]
                delta = choices[0].get("delta", {}) if choices else {}
            except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                message = f"bad stream event from {self._base_url} (logged at DEBUG level)"
                raise LLMError(without_body(message, data)) from exc
            record_usage(request.usage, event.get("usage"))
            piece = delta.get("content")
            if piece:
                yield str(piece)


def record_usage(usage: GenerationUsage | None, reported: object) -> None:
    """Copy an OpenAI-style ``usage`` object (token counts only) into ``usage``."""
    if usage is None or not isinstance(reported, dict):
        return
    usage.prompt_tokens = int(reported.get("prompt_tokens") or 0)
    usage.output_tokens = int(reported.get("completion_tokens") or 0)
    details = reported.get("prompt_tokens_details")
    if isinstance(details, dict):
        usage.cached_tokens = int(details.get("cached_tokens") or 0)


def create(settings: GenerationSettings) -> OpenAICompatLLM:
    """Entry point: ``llm = "openai"``."""
    return OpenAICompatLLM(settings)
