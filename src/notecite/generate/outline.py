"""A request to summarize a note, and the note's outline the model reads for it.

"Summarize the PG16 upgrade project" shares its words with the lines that name the project,
not with the lines a summary needs (its status, its decisions, what was learned): the
evidence lines chosen by the question's terms (:mod:`notecite.generate.evidence`) gave the
model the plan's first line and a target date the note's "Status" section says was missed.
For a request to summarize, the best-ranked note is read whole, as an outline: its opening
line, each heading with the first line under it, then the next lines under each heading in
turn while the budget lasts, in the note's order (a gap between kept lines is shown as
``…``).

Only a question that asks for a summary in so many words is read so ("Summarize ...",
"Give me an overview of ...", "What's the gist of ...", "TL;DR ..."); "Can Dendron
summarize a hierarchy?" asks about summaries and is answered as any question. A note the
question asks about as a whole (the newest of a series asked what it holds, the one note of
a day asked what happened: :mod:`notecite.retrieve.whole_note`) is read the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from notecite.generate.context import TokenCounter
from notecite.generate.evidence import GAP
from notecite.generate.markup import code_roles, is_heading, is_markup

_ASKS_SUMMARY = re.compile(
    r"^\s*(?:(?:please|can you|could you|would you|pls)[\s,]+)?(?:"
    r"summari[sz]e|recap|sum up|tl;?dr|"
    r"give me (?:a |an |the )?(?:short |quick |brief )?(?:summary|overview|recap|rundown|gist)|"
    r"(?:what'?s|what is) the (?:gist|summary|tl;?dr) of"
    r")\b",
    re.IGNORECASE,
)

DEPTH = 4
"""The most lines under one heading an outline keeps (its first, then the next in turn)."""

LINES_READ = 600
"""The lines of a note an outline is chosen from (its first ones that are shown): a budget
of a few hundred tokens holds far fewer, and a long note is not read line by line."""


def asks_for_summary(question: str) -> bool:
    """Whether ``question`` asks, in so many words, for a summary of what it names."""
    return _ASKS_SUMMARY.match(question.replace("\u2019", "'")) is not None


def outline(lines: Sequence[str], tokens: int, count_tokens: TokenCounter) -> list[str]:
    """The outline of a note's ``lines`` within ``tokens``: its headings each with the first
    line under it (and the note's first line before any heading), then the second line
    under each heading, and so on up to :data:`DEPTH` lines, in the note's order, a gap
    mark where lines were left out. Blank lines, markup and code are never kept."""
    roles = code_roles(lines)
    shown = [
        n
        for n, line in enumerate(lines)
        if line.strip() and not is_markup(line) and roles[n] not in ("open", "code", "close")
    ][:LINES_READ]
    sections: list[list[int]] = [[]]
    for n in shown:
        if is_heading(lines[n]):
            sections.append([n])
        else:
            sections[-1].append(n)
    keep: set[int] = set()
    for depth in range(DEPTH):
        grew = False
        for section in sections:
            heading = bool(section) and is_heading(lines[section[0]])
            wanted = section[: depth + 2] if heading else section[: depth + 1]
            trial = keep | set(wanted)
            if trial != keep and count_tokens(["\n".join(_render(lines, trial))])[0] <= tokens:
                keep, grew = trial, True
        if not grew and depth > 0:
            break  # nothing more fits, or nothing is left
    return _render(lines, keep)


def _render(lines: Sequence[str], keep: set[int]) -> list[str]:
    """The kept lines in order, a gap mark where a line that is not blank was left out."""
    out: list[str] = []
    last = -1
    for n in sorted(keep):
        if out and any(line.strip() for line in lines[last + 1 : n]):
            out.append(GAP)
        out.append(lines[n].rstrip())
        last = n
    return out
