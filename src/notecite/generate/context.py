"""Context assembly: merge overlapping or adjacent chunks of a note, drop repeats, fit a budget.

Input pieces come in relevance order. Pieces of the same note whose line spans overlap or
touch are merged into one block (the overlap of consecutive windows is kept once); a piece
whose text is already in the context is dropped; blocks are then taken greedily, best
first, while they fit the token budget, at most ``max_chunks`` chunks and ``max_chars``
characters. Every chunk that reaches the context belongs to exactly one block, and a block's
id is what the model cites.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

TokenCounter = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True)
class ContextPiece:
    """One retrieved chunk, identified by its position in the relevance order."""

    index: int
    vault: str
    rel_path: str
    heading_path: str
    text: str
    line_start: int
    line_end: int
    title: str = ""
    properties: int = 0
    """How many of the first lines of ``text`` are the note's properties
    (:mod:`notecite.generate.properties`), shown above its first chunk."""


@dataclass
class ContextBlock:
    """Consecutive text of one note made of one or more pieces."""

    vault: str
    rel_path: str
    heading_path: str
    line_start: int
    line_end: int
    lines: list[str]
    members: list[int] = field(default_factory=list)
    title: str = ""
    properties: int = 0  # its first lines that are the note's properties

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class ContextBudget:
    """Limits of the assembled context."""

    max_tokens: int = 4000
    max_chunks: int = 12
    max_chars: int = 12_000
    evidence_tokens: int | None = None
    """When set, each block is cut down to its evidence lines, all within this many tokens
    (see :mod:`notecite.generate.evidence`)."""
    whole_first: bool = False
    """The first block is kept whole when it fits the evidence budget (a note's outline,
    chosen already: :mod:`notecite.generate.outline`)."""


def _append(block: ContextBlock, piece: ContextPiece) -> None:
    """Add ``piece`` after ``block``, keeping an overlap between them once."""
    new = piece.text.split("\n")
    longest = min(len(block.lines), len(new))
    overlap = next(
        (n for n in range(longest, 0, -1) if block.lines[-n:] == new[:n]),
        0,
    )
    block.lines.extend(new[overlap:])
    block.line_end = max(block.line_end, piece.line_end)
    if piece.heading_path != block.heading_path:
        block.heading_path = _common_heading(block.heading_path, piece.heading_path)
    block.members.append(piece.index)


def _common_heading(a: str, b: str) -> str:
    parts_a, parts_b = a.split(" > "), b.split(" > ")
    common = []
    for x, y in zip(parts_a, parts_b, strict=False):
        if x != y:
            break
        common.append(x)
    return " > ".join(common) if common else a


def merge_pieces(pieces: Sequence[ContextPiece]) -> list[ContextBlock]:
    """Blocks in the order of their best piece; repeated text dropped."""
    seen_text: set[str] = set()
    by_note: dict[tuple[str, str], list[ContextPiece]] = {}
    order: list[tuple[str, str]] = []
    for piece in pieces:
        normalised = " ".join(piece.text.split())
        if normalised in seen_text:
            continue
        seen_text.add(normalised)
        key = (piece.vault, piece.rel_path)
        if key not in by_note:
            by_note[key] = []
            order.append(key)
        by_note[key].append(piece)
    ranked: list[tuple[int, ContextBlock]] = []
    for key in order:
        blocks: list[ContextBlock] = []
        for piece in sorted(by_note[key], key=lambda p: (p.line_start, p.line_end)):
            last = blocks[-1] if blocks else None
            if last is not None and piece.line_start <= last.line_end + 1:
                _append(last, piece)
            else:
                blocks.append(
                    ContextBlock(
                        piece.vault,
                        piece.rel_path,
                        piece.heading_path,
                        piece.line_start,
                        piece.line_end,
                        piece.text.split("\n"),
                        [piece.index],
                        piece.title,
                        piece.properties,
                    )
                )
        ranked.extend((min(b.members), b) for b in blocks)
    ranked.sort(key=lambda item: item[0])
    return [block for _, block in ranked]


def assemble_context(
    pieces: Sequence[ContextPiece], budget: ContextBudget, count_tokens: TokenCounter
) -> list[ContextBlock]:
    """Merged blocks, best first, that fit ``budget``; the first block is always kept."""
    chosen: list[ContextBlock] = []
    tokens = chars = chunks = 0
    blocks = merge_pieces(pieces)
    counts = count_tokens([b.text for b in blocks]) if blocks else []
    for block, block_tokens in zip(blocks, counts, strict=True):
        fits = (
            tokens + block_tokens <= budget.max_tokens
            and chars + len(block.text) <= budget.max_chars
            and chunks + len(block.members) <= budget.max_chunks
        )
        if chosen and not fits:
            continue
        if not fits:
            block_tokens = _trim(block, budget, count_tokens)
        chosen.append(block)
        tokens += block_tokens
        chars += len(block.text)
        chunks += len(block.members)
    return chosen


def _trim(block: ContextBlock, budget: ContextBudget, count_tokens: TokenCounter) -> int:
    """Cut a block that alone exceeds the budget down to its first lines that fit."""
    while len(block.lines) > 1:
        tokens = count_tokens([block.text])[0]
        if tokens <= budget.max_tokens and len(block.text) <= budget.max_chars:
            return tokens
        block.lines.pop()
    block.lines[0] = block.lines[0][: budget.max_chars]
    while count_tokens([block.lines[0]])[0] > budget.max_tokens and len(block.lines[0]) > 1:
        block.lines[0] = block.lines[0][: len(block.lines[0]) * 3 // 4]
    return count_tokens([block.text])[0]
