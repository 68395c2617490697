"""Evidence-sized context: from each context block, the lines that carry the answer.

A small local model reads its prompt at a few dozen tokens a second, so every line it does
not need is waiting time. Given the merged blocks (best first) and the question, each line
of a block is scored by the question's content terms it holds, each weighted by the term's
own weight (names, numbers and code count more) and by how rare it is among the lines of
the context (a term every line holds tells nothing). The best lines of a block are kept
with the line before and the two after (a line often needs the one before it, and steps or
details follow the line that names them), or the whole list that a kept line ending in a
colon introduces (up to eight items), in note order; a gap
between kept windows is shown as ``…``. A block whose lines hold no question term keeps its
opening lines. Blocks are then filled into the token budget best first, each block's lines
in score order, and the first block always keeps at least its best window.

Lines of markup (images, link definitions, table rules, code fences) and a heading the
source header already names are never shown, and table padding is made one space
(:mod:`notecite.generate.markup`): the budget goes to words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.generate.context import ContextBlock, TokenCounter
from notecite.generate.grounding import content_terms, line_terms
from notecite.generate.markup import compact, is_markup, names_section

GAP = "…"
BEFORE = 1  # lines kept before a line that scores (a line often needs the one before it)
AFTER = 2  # and after it (steps and details follow the line that names them)
OPENING_LINES = 3  # lines kept from a block where no line holds a question term
WINDOWS_PER_BLOCK = 3  # best lines of a block whose windows are kept
LIST_ITEMS = 8  # items of a list kept after a kept line that introduces it ("four levels:")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s")


@dataclass(frozen=True)
class ScoredLine:
    """One line of a block with its score against the question."""

    position: int
    text: str
    score: float
    shown: bool = True
    """False for a blank line, a line of markup, or a heading the source header names."""


def score_lines(blocks: Sequence[ContextBlock], question: str) -> list[list[ScoredLine]]:
    """Each block's lines scored by the question terms they hold (rarer terms weigh more)."""
    wanted = content_terms(question)
    shown = [
        [
            bool(line.strip())
            and not is_markup(line)
            and not names_section(line, block.heading_path)
            for line in block.lines
        ]
        for block in blocks
    ]
    held = [
        [
            line_terms(line) if visible else set()
            for line, visible in zip(block.lines, flags, strict=True)
        ]
        for block, flags in zip(blocks, shown, strict=True)
    ]
    everyline = [terms for block in held for terms in block]
    total = max(len(everyline), 1)
    weight = {}
    for term, base in wanted.items():
        frequency = sum(1 for terms in everyline if term in terms)
        weight[term] = base * math.log(1 + total / (1 + frequency))
    return [
        [
            ScoredLine(
                n,
                compact(line),
                sum(w for term, w in weight.items() if term in terms) if visible else 0.0,
                visible,
            )
            for n, (line, terms, visible) in enumerate(
                zip(block.lines, block_terms, flags, strict=True)
            )
        ]
        for block, block_terms, flags in zip(blocks, held, shown, strict=True)
    ]


def _windows(lines: Sequence[ScoredLine]) -> list[list[int]]:
    """Positions to keep, as windows in the order of their best line's score."""
    hits = sorted(
        (line for line in lines if line.score > 0 and line.shown),
        key=lambda line: (-line.score, line.position),
    )
    if not hits:
        opening = [line.position for line in lines if line.shown][:OPENING_LINES]
        return [opening] if opening else []
    best = hits[0].score
    windows = []
    for hit in hits[:WINDOWS_PER_BLOCK]:
        if hit.score < best / 2:
            break
        low = max(0, hit.position - BEFORE)
        high = _list_end(lines, hit.position, min(len(lines) - 1, hit.position + AFTER))
        windows.append([p for p in range(low, high + 1) if lines[p].shown])
    return windows


def _list_end(lines: Sequence[ScoredLine], start: int, high: int) -> int:
    """``high``, or further when a line from ``start`` to ``high`` ends in a colon and a list
    follows it: the list's items (up to :data:`LIST_ITEMS`) are what the line introduces."""
    for position in range(start, high + 1):
        if lines[position].text.rstrip().endswith(":"):
            end = position
            while (
                end + 1 < len(lines)
                and end - position < LIST_ITEMS
                and _LIST_ITEM.match(lines[end + 1].text)
            ):
                end += 1
            high = max(high, end)
    return high


def _render(lines: Sequence[ScoredLine], keep: set[int]) -> list[str]:
    """The kept lines in note order, a gap mark where shown lines were left out between them."""
    out: list[str] = []
    last = -1
    for position in sorted(keep):
        if out and any(line.shown for line in lines[last + 1 : position]):
            out.append(GAP)
        out.append(lines[position].text)
        last = position
    return out


def select_evidence(
    blocks: Sequence[ContextBlock],
    question: str,
    max_tokens: int,
    count_tokens: TokenCounter,
) -> list[ContextBlock]:
    """``blocks`` cut down to their evidence lines within ``max_tokens`` (blocks with no
    line left are dropped, except the first); each block's ``lines`` are replaced."""
    scored = score_lines(blocks, question)
    chosen: list[ContextBlock] = []
    used = 0
    for number, (block, lines) in enumerate(zip(blocks, scored, strict=True)):
        keep: set[int] = set()
        cost = 0
        for window in _windows(lines):
            trial = keep | set(window)
            trial_cost = count_tokens(["\n".join(_render(lines, trial))])[0]
            if used + trial_cost > max_tokens and (keep or number > 0):
                break
            keep, cost = trial, trial_cost
        if not keep:
            continue
        block.lines = _render(lines, keep)
        block.line_start += min(keep)  # an estimate: a chunk's text drops blank lines
        chosen.append(block)
        used += cost
        if used >= max_tokens:
            break
    return chosen
