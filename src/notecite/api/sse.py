"""Server-Sent Events for streamed chat: ``token`` events, then one ``final`` (or ``error``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from notecite.api.errors import describe
from notecite.errors import GenerationCancelled
from notecite.schemas.chat import ChatResponse

logger = logging.getLogger(__name__)

TokenCallback = Callable[[str], None]
ChatRun = Callable[[TokenCallback], ChatResponse]


def sse_event(name: str, data: Any) -> str:
    """One event in the text/event-stream format."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def relay(run: ChatRun) -> AsyncIterator[tuple[str, Any]]:
    """Run ``run`` in a thread; yield ``("token", text)`` as the model writes, then one
    ``("final", ChatResponse)`` or ``("error", exception)``.

    A client that goes away (or stops reading) cancels the turn: the next token the model
    writes raises :class:`GenerationCancelled` in the worker, which closes the model's stream
    (the provider stops) and stores the turn as cancelled.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    gone = threading.Event()

    def put(kind: str, item: Any) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is listening
            loop.call_soon_threadsafe(queue.put_nowait, (kind, item))

    def token(piece: str) -> None:
        if gone.is_set():
            raise GenerationCancelled("the client went away")
        put("token", piece)

    def work() -> None:
        try:
            put("final", run(token))
        except Exception as exc:
            put("error", exc)

    threading.Thread(target=work, name="notecite-chat-stream", daemon=True).start()
    try:
        while True:
            kind, item = await queue.get()
            yield kind, item
            if kind != "token":
                return
    finally:
        gone.set()  # a no-op once the turn has ended


async def chat_events(run: ChatRun) -> AsyncIterator[str]:
    """``token`` events as the model writes, then ``final`` with the validated response
    (answer after validation, citations, sessionId, meta, and error when the model failed),
    or ``error`` with ``{"error": {"type", "message"}}``."""
    async for kind, item in relay(run):
        if kind == "token":
            yield sse_event("token", {"text": item})
        elif kind == "final":
            assert isinstance(item, ChatResponse)
            yield sse_event("final", item.to_json())
        else:
            _, body = describe(item)
            yield sse_event("error", body)
