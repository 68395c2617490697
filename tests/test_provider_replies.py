"""Messages of failed provider replies: status and an identifier-like code, never the body."""

from __future__ import annotations

import json
import logging

import pytest

from notecite.http import failed_reply, status_text, without_body

URL = "http://127.0.0.1:9/v1/chat/completions"
NOTE = "The safe combination is quokkazebra nine."


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            json.dumps({"error": {"message": NOTE, "code": "context_length_exceeded"}}),
            "LLM server at http://127.0.0.1:9/v1/chat/completions answered 400 Bad Request "
            "(context_length_exceeded)",
        ),
        (  # no code: the type, when it is an identifier
            json.dumps({"error": {"message": NOTE, "type": "invalid_request_error"}}),
            f"LLM server at {URL} answered 400 Bad Request (invalid_request_error)",
        ),
        (  # a code that is a sentence (an echo) is left out
            json.dumps({"error": {"message": NOTE, "code": NOTE, "type": "quokkazebra"}}),
            f"LLM server at {URL} answered 400 Bad Request",
        ),
        (json.dumps({"error": NOTE}), f"LLM server at {URL} answered 400 Bad Request"),  # Ollama
        (f"<html>{NOTE}</html>", f"LLM server at {URL} answered 400 Bad Request"),
        (json.dumps([NOTE]), f"LLM server at {URL} answered 400 Bad Request"),
    ],
)
def test_the_message_keeps_the_status_and_code_and_logs_the_body_at_debug(
    body: str, expected: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert failed_reply("LLM server", URL, 400, body) == expected
    assert [r.levelno for r in caplog.records if "quokkazebra" in r.getMessage()] == [logging.DEBUG]


def test_status_text_uses_the_standard_phrase() -> None:
    assert status_text(503) == "503 Service Unavailable"
    assert status_text(429) == "429 Too Many Requests"
    assert status_text(599) == "599"


def test_an_unreadable_stream_piece_is_logged_not_quoted(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    assert without_body("bad stream event from x", f"data: {NOTE}") == "bad stream event from x"
    assert [r.levelno for r in caplog.records if "quokkazebra" in r.getMessage()] == [logging.DEBUG]
