"""Cut a parsed note into chunks: one per heading section, windowed under a token budget.

Each chunk's embedded text is composite: the words of the note's path, the note title, the
heading path and the chunk text; the first chunk also carries the frontmatter description
and keywords. Windows are sized so that the composite text fits the embedder's token limit,
and consecutive windows of one section overlap by up to ``overlap_tokens``. A chunk of two
or more sentences also lists one text per sentence window (title, heading path, window),
embedded for sentence-level max-sim scoring.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from notecite.chunking.sentences import sentence_windows, window_spans
from notecite.ingest.sections import format_heading_path, shorten_label
from notecite.types import Chunk, ParsedNote, Section

TokenCounter = Callable[[Sequence[str]], list[int]]

_MIN_BUDGET = 16


@dataclass(frozen=True)
class ChunkerConfig:
    """Token limit of the embedder and overlap between windows of one section."""

    max_tokens: int = 256
    overlap_tokens: int = 32
    sentence_vectors: bool = True
    # Sentence vectors pooled from the chunk's own forward pass (late chunking): chunks
    # carry each window's span in their embedded text.
    late_sentences: bool = False


@dataclass(frozen=True)
class _Unit:
    line: int
    text: str
    tokens: int
    joins_previous: bool  # a later piece of the same over-long line


_PATH_SEPARATOR = re.compile(r"[/.\\]")
_WORD_SEPARATOR = re.compile(r"[-_\s]+")
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def path_words(rel_path: str) -> str:
    """The words of a note's place in its vault: its folders and file name, a dotted
    hierarchy (Dendron's ``dendron.topic.notes.cli.write.md``) and a camelCase name split
    into words, numbers left out (a date or an id names no topic): ``user/tools/cli/note.md``
    -> "user tools cli note"."""
    stem = str(PurePosixPath(rel_path.replace("\\", "/")).with_suffix(""))
    words = [
        word
        for part in _PATH_SEPARATOR.split(stem)
        for word in _WORD_SEPARATOR.split(_CAMEL_BREAK.sub(" ", part))
        if word and not word.isdigit()
    ]
    return " ".join(words)


def embed_text_for(note: ParsedNote, heading_path: str, text: str, first: bool) -> str:
    """The composite text that is embedded for a chunk: the words of the note's path (where
    a person filed it says what it is about: "notes cli write"), its title (a long one is
    shortened: every chunk repeats it), the heading path, and the text."""
    parts = [path_words(note.rel_path), shorten_label(note.title)]
    if heading_path:
        parts.append(heading_path)
    if first:
        if note.description:
            parts.append(note.description)
        if note.keywords:
            parts.append("Keywords: " + ", ".join(note.keywords))
    parts.append(text)
    return "\n".join(p for p in parts if p)


def sentence_texts_for(note: ParsedNote, heading_path: str, text: str) -> tuple[str, ...]:
    """What is embedded per sentence window of a chunk: the title and heading path, then
    the window; empty when the chunk has fewer than two windows."""
    windows = sentence_windows(text)
    if len(windows) < 2:
        return ()
    header = " > ".join(p for p in (shorten_label(note.title), heading_path) if p)
    return tuple(f"{header}\n{w}" if header else w for w in windows)


def stable_chunk_id(vault: str, rel_path: str, index: int, content_hash: str) -> str:
    """Same vault, file, position and content -> same id (any text, lone surrogates too)."""
    key = f"{vault}\0{rel_path}\0{index}\0{content_hash}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()[:24]


def _split_long_line(line: int, text: str, budget: int, count: TokenCounter) -> list[_Unit]:
    """Cut one line that exceeds the budget into word runs that each fit."""
    words = text.split()
    units: list[_Unit] = []
    start = 0
    step = max(1, budget // 2)
    while start < len(words):
        size = min(step, len(words) - start)
        piece = " ".join(words[start : start + size])
        tokens = count([piece])[0]
        while tokens > budget and size > 1:
            size = max(1, size // 2)
            piece = " ".join(words[start : start + size])
            tokens = count([piece])[0]
        if tokens > budget:  # one enormous "word": cut off the longest prefix that fits
            piece, tokens = _fitting_prefix(words[start], budget, count)
            words[start] = words[start][len(piece) :]
        else:
            start += size
        units.append(_Unit(line, piece, tokens, joins_previous=bool(units)))
    return units


def _fitting_prefix(word: str, budget: int, count: TokenCounter) -> tuple[str, int]:
    """The longest prefix of ``word`` within ``budget`` tokens (at least one character)."""
    lo, hi = 1, len(word)  # count(word[:lo]) is taken as fitting; word itself does not fit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count([word[:mid]])[0] <= budget:
            lo = mid
        else:
            hi = mid - 1
    return word[:lo], count([word[:lo]])[0]


def _units(section: Section, budget: int, count: TokenCounter) -> list[_Unit]:
    lines = section.text.split("\n")
    numbers = list(range(section.line_start, section.line_start + len(lines)))
    kept = [(n, ln) for n, ln in zip(numbers, lines, strict=True) if ln.strip()]
    counts = count([ln for _, ln in kept])
    units: list[_Unit] = []
    for (number, text), tokens in zip(kept, counts, strict=True):
        if tokens > budget:
            units.extend(_split_long_line(number, text, budget, count))
        else:
            units.append(_Unit(number, text, tokens, joins_previous=False))
    return units


def _windows(units: list[_Unit], budget: int, overlap: int) -> list[list[_Unit]]:
    windows: list[list[_Unit]] = []
    current: list[_Unit] = []
    used = 0
    for unit in units:
        if current and used + unit.tokens > budget:
            windows.append(current)
            carried: list[_Unit] = []
            carried_tokens = 0
            for prev in reversed(current[1:]):
                if (
                    carried_tokens + prev.tokens > overlap
                    or carried_tokens + prev.tokens + (unit.tokens) > budget
                ):
                    break
                carried.insert(0, prev)
                carried_tokens += prev.tokens
            current, used = carried, carried_tokens
        current.append(unit)
        used += unit.tokens
    if current:
        windows.append(current)
    return windows


def _join(units: list[_Unit]) -> str:
    out: list[str] = []
    for i, unit in enumerate(units):
        if i and unit.joins_previous and units[i - 1].line == unit.line:
            out.append(" " + unit.text)
        else:
            out.append(("\n" if i else "") + unit.text)
    return "".join(out)


def chunk_note(
    note: ParsedNote, vault: str, count: TokenCounter, config: ChunkerConfig
) -> list[Chunk]:
    """All chunks of ``note`` in reading order, indexed from 0."""
    chunks: list[Chunk] = []
    for section in note.sections:
        heading_path = format_heading_path(section.heading_path)
        first_header, other_header = (
            embed_text_for(note, heading_path, "", first=True),
            embed_text_for(note, heading_path, "", first=False),
        )
        header_tokens = count([first_header if not chunks else other_header])[0]
        budget = max(_MIN_BUDGET, config.max_tokens - header_tokens - 4)
        units = _units(section, budget, count)
        overlap = min(config.overlap_tokens, budget // 2)
        for window in _windows(units, budget, overlap):
            text = _join(window)
            embed_text = embed_text_for(note, heading_path, text, first=not chunks)
            content_hash = hashlib.sha256(embed_text.encode()).hexdigest()
            index = len(chunks)
            chunks.append(
                Chunk(
                    chunk_id=stable_chunk_id(vault, note.rel_path, index, content_hash),
                    chunk_index=index,
                    heading_path=heading_path,
                    text=text,
                    embed_text=embed_text,
                    line_start=window[0].line,
                    line_end=window[-1].line,
                    token_count=sum(u.tokens for u in window),
                    content_hash=content_hash,
                    sentence_texts=(
                        sentence_texts_for(note, heading_path, text)
                        if config.sentence_vectors
                        else ()
                    ),
                    sentence_spans=(
                        late_spans(embed_text, text)
                        if config.sentence_vectors and config.late_sentences
                        else ()
                    ),
                )
            )
    return chunks


def late_spans(embed_text: str, text: str) -> tuple[tuple[int, int], ...]:
    """The span in ``embed_text`` (which ends with ``text``) of each sentence window of
    ``text``; empty when it has fewer than two."""
    windows = sentence_windows(text)
    if len(windows) < 2:
        return ()
    offset = len(embed_text) - len(text)
    return tuple((a + offset, b + offset) for a, b in window_spans(text, windows))
