"""Automatic K: how many chunks a question deserves, from its wording and scope."""

from __future__ import annotations

import re

_BROAD = re.compile(
    r"\b(overview|everything|all|summar(y|ize|ise)|list|compare|comparison|history|timeline|"
    r"each|every|various|differences?)\b",
    re.IGNORECASE,
)


def automatic_k(
    question: str,
    detail: str = "normal",
    narrow_folders: bool = False,
    legacy_k: int | None = None,
    k_min: int = 3,
    k_default: int = 5,
    k_max: int = 8,
) -> int:
    """K in [k_min, k_max]; an explicit legacy ``k`` wins, clamped to the same range."""
    if legacy_k is not None:
        return max(k_min, min(k_max, legacy_k))
    k = k_default
    if detail == "brief":
        k -= 1
    elif detail == "detailed":
        k += 2
    if len(question.split()) > 20:
        k += 1
    if question.count("?") >= 2:
        k += 1
    if _BROAD.search(question):
        k += 2
    if narrow_folders:
        k -= 1
    return max(k_min, min(k_max, k))
