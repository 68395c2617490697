"""A small model's loop: the same lines written again and again until the token limit.

Greedy decoding (temperature 0) makes a 1.5B model fall, now and then, into writing one
block of lines over and over ("dev:" / "enableLinkCandidates: true" thirteen times, or a
file tree whose every next line is "└── post-receive"). Nothing after the second copy is
new, and each copy costs seconds on a local model. :func:`loop_start` finds such a run at
the end of a text, so a provider can stop generating and the answer keeps one copy.

A block is one to :data:`LONGEST_BLOCK` lines (or, in a paragraph that repeats itself,
sentences), compared without their spaces; it counts as a loop when it comes
:data:`REPEATS` times in a row at the end and holds at least :data:`SHORTEST` characters
that are not spaces (three closing ``}`` of a JSON example are no loop). Only whole lines
and sentences are read: the last one, still being written, is left out.
"""

from __future__ import annotations

import re

from notecite.generate.markup import code_roles

REPEATS = 3
LONGEST_BLOCK = 8
SHORTEST = 12


# where a sentence ends: after ".", "!" or "?" and the spaces that follow, or a line break
_SENTENCE_END = re.compile(r"(?<=[.!?])[ \t]+|\n")


def loop_start(text: str) -> int | None:
    """The offset in ``text`` where the second copy of a block repeated :data:`REPEATS`
    times at its end begins (the text up to it says everything once), or None. A block is
    whole lines, or else whole sentences (a loop within one paragraph: "[N4] also mentions
    ... I run my easy days too fast. Trying to fix that." six times over)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines.pop()  # still being written
    found = _second_copy(lines)
    if found is None:
        found = _second_copy(_sentences(text))
    return found


def _sentences(text: str) -> list[str]:
    """``text`` cut after each sentence end and line break (each piece keeps the spaces
    after it); the last piece, still being written, is left out."""
    pieces: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        pieces.append(text[start : end.end()])
        start = end.end()
    return pieces


def _second_copy(units: list[str]) -> int | None:
    """Where the second copy of a block of ``units`` repeated :data:`REPEATS` times at the
    end begins, as an offset into their text."""
    bare = ["".join(unit.split()) for unit in units]
    for size in range(1, LONGEST_BLOCK + 1):
        if size * REPEATS > len(bare):
            break
        block = bare[len(bare) - size :]
        if sum(len(unit) for unit in block) < SHORTEST:
            continue
        copies = 1
        while (copies + 1) * size <= len(bare) and bare[
            len(bare) - (copies + 1) * size : len(bare) - copies * size
        ] == block:
            copies += 1
        if copies >= REPEATS:
            first = len(units) - copies * size  # where the first copy begins
            return sum(len(unit) for unit in units[: first + size])
    return None


def without_loop(text: str) -> str:
    """``text`` cut after the first copy of a block it repeats at its end (an unfinished
    copy after the repeats goes too), with a code block the cut leaves open closed;
    ``text`` itself when it has no loop."""
    cut = loop_start(text)
    if cut is None:
        return text
    kept = text[:cut].rstrip()
    roles = code_roles(kept.splitlines())
    return f"{kept}\n```" if roles and roles[-1] in ("open", "code") else kept
