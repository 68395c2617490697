"""Lexical rerank: query-term density in the chunk, a bonus for matching headings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from notecite.retrieve.terms import query_terms, stem, tokenize

LENGTH_SCALE = 10.0
LEXICAL_CAP = 0.4
HEADING_BONUS = 0.1
VECTOR_WEIGHT = 0.7
LEXICAL_WEIGHT = 0.3


@lru_cache(maxsize=1024)
def _query_stems(question: str) -> frozenset[str]:
    return frozenset(stem(t) for t in query_terms(question))


def lexical_score(question: str, text: str, heading_path: str) -> float:
    """Matches of query terms per ``LENGTH_SCALE`` tokens, clamped, plus the heading bonus."""
    terms = _query_stems(question)
    if not terms:
        return 0.0
    counts = Counter(tokenize(text))
    matches = sum(n for token, n in counts.items() if stem(token) in terms)
    length = sum(counts.values())
    density = matches / max(1.0, length / LENGTH_SCALE)
    score = max(0.0, min(LEXICAL_CAP, density))
    if any(stem(t) in terms for t in tokenize(heading_path)):
        score += HEADING_BONUS
    return score


def final_score(vector: float, lexical: float) -> float:
    """0.7 x vector + 0.3 x lexical."""
    return VECTOR_WEIGHT * vector + LEXICAL_WEIGHT * lexical


def rerank_scores(
    question: str, items: Sequence[tuple[float, str, str]]
) -> list[tuple[float, float]]:
    """(lexical, final) for each (vector score, text, heading path)."""
    out = []
    for vector, text, heading in items:
        lexical = lexical_score(question, text, heading)
        out.append((lexical, final_score(vector, lexical)))
    return out
