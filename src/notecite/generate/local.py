"""The ``local`` provider: llama.cpp in-process through ``xllamacpp``, no network.

The model loads on first use, once; calls are serialised (one llama.cpp slot). Streaming
runs the completion on a worker thread and hands pieces over a queue; a deadline aborts a
generation that runs past ``local_timeout_s`` (:class:`~notecite.errors.LLMTimeoutError`).
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from notecite.config import GenerationSettings
from notecite.errors import LLMError, LLMTimeoutError
from notecite.generate.base import ChatMessage, GenerationRequest, GenerationUsage, ModelProgress
from notecite.generate.local_model import DEFAULT_MODEL, resolve_model
from notecite.generate.loops import loop_start
from notecite.generate.reading import yes_share

logger = logging.getLogger(__name__)

_INSTALL = "pip install 'notecite[local]'"
_DONE = object()


class LocalLLM:
    """A GGUF model served in-process by llama.cpp."""

    def __init__(self, settings: GenerationSettings, model_dir: Path) -> None:
        self._settings = settings
        self._model_dir = model_dir
        self._server: Any = None
        self._load_lock = threading.Lock()
        self._call_lock = threading.Lock()
        self._progress: ModelProgress | None = None

    @property
    def name(self) -> str:
        return "local"

    @property
    def model_id(self) -> str:
        if self._settings.model_path is not None:
            return self._settings.model_path.name
        return self._settings.model or DEFAULT_MODEL

    @property
    def ready(self) -> bool:
        """Is the model loaded?"""
        return self._server is not None

    def prepare(self, progress: ModelProgress | None = None) -> None:
        """Assemble (first time only) and load the model now, not on the first question."""
        self._load(progress)

    def report_to(self, progress: ModelProgress | None) -> None:
        """Report to ``progress`` when the first question prepares the model."""
        self._progress = progress

    def _load(self, progress: ModelProgress | None = None) -> Any:
        progress = progress or self._progress
        with self._load_lock:
            if self._server is not None:
                return self._server
            # llama.cpp's OpenMP workers spin ~300,000 rounds at each barrier by default, which
            # starved them on a busy 2-core machine (1-3 tok/s); sleeping at once (passive)
            # costs a wake-up per barrier. A short spin writes ~40 % faster than passive on a
            # quiet machine, passive is faster beside CPU-bound work (bench/llama_runtime.py).
            if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & os.environ.keys():
                if self._settings.spin_wait:
                    os.environ["GOMP_SPINCOUNT"] = "1000"
                else:
                    os.environ["OMP_WAIT_POLICY"] = "passive"
            try:
                import xllamacpp
            except ImportError as exc:
                raise LLMError(f"the local LLM runtime is not installed; run: {_INSTALL}") from exc
            path = resolve_model(
                self._settings.model, self._settings.model_path, self._model_dir, progress
            )
            if progress is not None:
                progress("load", 0, 1)
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = self._settings.context_size
            params.n_parallel = 1
            if self._settings.threads:
                params.cpuparams.n_threads = self._settings.threads
                params.cpuparams_batch.n_threads = self._settings.threads
            params.no_extra_bufts = not self._settings.repack_weights
            params.verbosity = 0
            started = time.perf_counter()
            try:
                self._server = xllamacpp.Server(params)
            except Exception as exc:
                raise LLMError(f"cannot load the local model {path}: {exc}") from exc
            logger.info("loaded %s in %.1f s", path.name, time.perf_counter() - started)
            if progress is not None:
                progress("load", 1, 1)
            return self._server

    def _body(self, request: GenerationRequest, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "stream": stream,
        }
        if request.stop:
            body["stop"] = list(request.stop)
        return body

    def generate(self, request: GenerationRequest) -> str:
        return "".join(self.stream(request))

    def yes_probability(self, messages: Sequence[ChatMessage]) -> float | None:
        """P(yes) of the reply's first word, from llama.cpp's log-probabilities (one token
        written; the prompt cache keeps what it read for the answer that follows)."""
        server = self._load()
        question = GenerationRequest(messages=tuple(messages), temperature=0.0, max_tokens=1)
        body = {**self._body(question, False), "logprobs": True, "top_logprobs": 10}
        try:
            with self._call_lock:
                result = server.handle_chat_completions(body)
            top = result["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
        except Exception as exc:  # the runtime's error reply has no choices
            raise LLMError(f"the local model could not weigh a yes/no question: {exc}") from exc
        return yes_share(top)

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        server = self._load()
        pieces: queue.Queue[object] = queue.Queue()
        deadline = time.monotonic() + self._settings.local_timeout_s
        timed_out = threading.Event()
        closed = threading.Event()
        failure: list[str] = []
        written: list[str] = []

        def on_chunk(chunk: Any) -> bool:
            if isinstance(chunk, dict):
                if "error" in chunk:
                    failure.append(str(chunk["error"]))
                if request.usage is not None and isinstance(chunk.get("timings"), dict):
                    record_timings(request.usage, chunk["timings"])
                for choice in chunk.get("choices") or []:
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        pieces.put(str(text))
                        written.append(str(text))
                        ends = any(mark in text for mark in "\n.!?")
                        if ends and loop_start("".join(written)) is not None:
                            # caught in a loop: nothing after this is new (generate/loops.py)
                            return True
            if time.monotonic() > deadline:
                timed_out.set()
                return True  # abort the generation
            return closed.is_set()  # the caller closed the stream (e.g. the client left)

        def work() -> None:
            try:
                with self._call_lock:
                    result = server.handle_chat_completions(self._body(request, True), on_chunk)
                if isinstance(result, dict) and "error" in result:
                    failure.append(str(result["error"]))
            except Exception as exc:
                failure.append(f"{type(exc).__name__}: {exc}")
            finally:
                pieces.put(_DONE)

        threading.Thread(target=work, name="notecite-local-llm", daemon=True).start()
        try:
            while True:
                item = pieces.get()
                if item is _DONE:
                    break
                yield str(item)
        finally:
            closed.set()
        if timed_out.is_set():
            raise LLMTimeoutError(
                f"the local model took longer than {self._settings.local_timeout_s:.0f} s "
                "(generation.local_timeout_s)"
            )
        if failure:
            raise LLMError(f"the local model failed: {failure[0]}")


def record_timings(usage: GenerationUsage, timings: dict[str, Any]) -> None:
    """Copy llama.cpp's ``timings`` (prompt read, cache reuse, tokens written) into ``usage``."""
    cached = int(timings.get("cache_n") or 0)
    read = int(timings.get("prompt_n") or 0)
    usage.cached_tokens = cached
    usage.prompt_tokens = cached + read
    usage.prompt_ms = float(timings.get("prompt_ms") or 0.0)
    usage.output_tokens = int(timings.get("predicted_n") or 0)
    usage.output_ms = float(timings.get("predicted_ms") or 0.0)


def create(settings: GenerationSettings) -> LocalLLM:
    """Entry point: ``llm = "local"``."""
    model_dir = settings.model_dir or Path.home() / ".cache" / "notecite" / "models"
    return LocalLLM(settings, model_dir)
