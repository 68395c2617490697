"""Split chunk text into sentence windows for sentence-level (max-sim) vectors.

A window is one sentence, or a line of a list or paragraph; fragments shorter than
`min_words` are joined to the next one, and anything longer than `max_words` is cut into
word windows, so every window stays inside what a small embedder was trained on (MiniLM:
128 tokens). Windows cover the text in order; no word is dropped or repeated.
"""

from __future__ import annotations

import re

# End of sentence: . ! ? (optionally closed by a quote or bracket), then space, then
# something that starts a sentence. Line breaks always end a window.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_LINE_BREAK = re.compile(r"\s*\n\s*")


def _pieces(text: str) -> list[str]:
    pieces: list[str] = []
    for line in _LINE_BREAK.split(text.strip()):
        if line:
            pieces.extend(p for p in (s.strip() for s in _SENTENCE_END.split(line)) if p)
    return pieces


def sentence_windows(text: str, min_words: int = 6, max_words: int = 80) -> list[str]:
    """Sentence windows of `text` in order; [] when there is no text."""
    windows: list[str] = []
    pending: list[str] = []
    for piece in _pieces(text):
        pending.extend(piece.split())
        if len(pending) >= min_words:
            windows.extend(_cut(pending, max_words))
            pending = []
    if pending:
        if windows and len(windows[-1].split()) + len(pending) <= max_words:
            windows[-1] = f"{windows[-1]} {' '.join(pending)}"
        else:
            windows.extend(_cut(pending, max_words))
    return windows


def _cut(words: list[str], max_words: int) -> list[str]:
    return [" ".join(words[i : i + max_words]) for i in range(0, len(words), max_words)]


_WORD = re.compile(r"\S+")


def window_spans(text: str, windows: list[str]) -> list[tuple[int, int]]:
    """The (start, end) character span in ``text`` of each of its sentence windows (as
    :func:`sentence_windows` gave them: its words, in order, none dropped or repeated)."""
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    spans: list[tuple[int, int]] = []
    at = 0
    for window in windows:
        count = len(window.split())
        if not count or at + count > len(words):
            raise ValueError("the windows are not the words of the text in order")
        spans.append((words[at][0], words[at + count - 1][1]))
        at += count
    return spans
