"""Scores of `notecite eval qa`, per kind of question and overall.

For each group of questions (each kind, then ``answerable``: every answerable kind together,
then ``all``):

- **gold cited**: answerable questions with gold files whose answer (not an abstention) cites
  a gold file, over those questions. A path matches a gold file when it equals it or ends with
  ``/`` + it.
- **gold retrieved**: the same questions whose top ``k`` retrieved files (distinct, in rank
  order) include a gold file.
- **must-contain**: answerable questions with ``must_contain`` whose answer (not an
  abstention) holds every requirement (one of its alternatives, case-insensitive).
- **wrongly abstained**: answerable questions the engine abstained on, over the answerable.
- **abstained**: questions abstained on, over all questions of the group; a near-miss
  question also counts when the answer says the notes do not mention or say it.
- **p50 / p95 ms**: wall time of the whole ``ask`` call.

A ratio is None where no question qualifies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from notecite.evaluate.qa_data import KINDS, QaItem, Requirement


@dataclass(frozen=True)
class QaOutcome:
    """What the engine did with one question."""

    retrieved_files: tuple[str, ...]
    cited_files: tuple[str, ...]
    answer: str
    abstained: bool
    wall_ms: float = 0.0


@dataclass(frozen=True)
class GroupScores:
    """The scores of one group of questions, and the counts behind them."""

    group: str
    questions: int
    answerable: int
    gold_cited: float | None
    gold_retrieved: float | None
    must_contain: float | None
    wrongly_abstained: float | None
    abstained: float | None
    p50_ms: float | None
    p95_ms: float | None


@dataclass(frozen=True)
class QaReport:
    """Scores per group: each kind present (in a fixed order), then ``answerable`` (every
    answerable question) and ``all``."""

    questions: int
    k: int
    groups: list[GroupScores] = field(default_factory=list)

    def group(self, name: str) -> GroupScores:
        """The scores of group ``name``; KeyError when no question is in it."""
        for scores in self.groups:
            if scores.group == name:
                return scores
        raise KeyError(name)


_NOT_IN_NOTES = re.compile(
    r"\b(?:notes?|vault|context|sources?|documents?|excerpts?|provided)\b[^.!?\n]{0,60}?"
    r"\b(?:do(?:es)?\s*n[o'\u2019]t|do(?:es)?\s+not|never|neither)\s+"
    r"(?:mention|say|cover|contain|include|describe|discuss|specify|provide|state|address|refer)"
    r"|\bno\s+(?:mention|information|details?)\s+(?:of|about|on|regarding)\b"
    r"|\b(?:is|are)\s+not\s+(?:mentioned|covered|described|discussed)\b",
    re.IGNORECASE,
)


def says_not_in_notes(answer: str) -> bool:
    """Whether ``answer`` says the notes do not mention or say what was asked."""
    return bool(_NOT_IN_NOTES.search(answer))


def matches_gold(path: str, gold: Sequence[str]) -> bool:
    """Whether ``path`` is one of ``gold`` (equal, or ending with ``/`` + it)."""
    clean = path.strip("/")
    return any(clean == g.strip("/") or clean.endswith("/" + g.strip("/")) for g in gold)


def holds(answer: str, requirements: Sequence[Requirement]) -> bool:
    """Whether ``answer`` holds one alternative of every requirement (case-insensitive)."""
    low = answer.lower()
    return all(any(alt.lower() in low for alt in req) for req in requirements)


def declined(item: QaItem, outcome: QaOutcome) -> bool:
    """Whether the answer counts as an abstention for ``item``."""
    if outcome.abstained:
        return True
    return item.kind == "near-miss" and says_not_in_notes(outcome.answer)


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def score_group(name: str, pairs: Sequence[tuple[QaItem, QaOutcome]], k: int) -> GroupScores:
    """The scores of one group of (item, outcome) pairs."""
    answerable = [(i, o) for i, o in pairs if i.answerable]
    with_gold = [(i, o) for i, o in answerable if i.gold_files]
    with_must = [(i, o) for i, o in answerable if i.must_contain]
    cited = sum(
        not o.abstained and any(matches_gold(p, i.gold_files) for p in o.cited_files)
        for i, o in with_gold
    )
    retrieved = sum(
        any(matches_gold(p, i.gold_files) for p in o.retrieved_files[:k]) for i, o in with_gold
    )
    contained = sum(not o.abstained and holds(o.answer, i.must_contain) for i, o in with_must)
    times = [o.wall_ms for _, o in pairs]
    return GroupScores(
        group=name,
        questions=len(pairs),
        answerable=len(answerable),
        gold_cited=_ratio(cited, len(with_gold)),
        gold_retrieved=_ratio(retrieved, len(with_gold)),
        must_contain=_ratio(contained, len(with_must)),
        wrongly_abstained=_ratio(sum(o.abstained for _, o in answerable), len(answerable)),
        abstained=_ratio(sum(declined(i, o) for i, o in pairs), len(pairs)),
        p50_ms=float(np.percentile(times, 50)) if times else None,
        p95_ms=float(np.percentile(times, 95)) if times else None,
    )


def score_qa(items: Sequence[QaItem], outcomes: Sequence[QaOutcome], k: int = 5) -> QaReport:
    """The scores of ``outcomes`` (one per item, in order), per kind and overall."""
    if len(items) != len(outcomes):
        raise ValueError("one outcome per item is needed")
    pairs = list(zip(items, outcomes, strict=True))
    groups = []
    for kind in (*KINDS, "unanswerable"):  # lines of the older format are answerable or not
        members = [(i, o) for i, o in pairs if i.kind_or_default == kind]
        if members:
            groups.append(score_group(kind, members, k))
    answerable = [(i, o) for i, o in pairs if i.answerable]
    if answerable:
        groups.append(score_group("answerable", answerable, k))
    if pairs:
        groups.append(score_group("all", pairs, k))
    return QaReport(questions=len(pairs), k=k, groups=groups)
