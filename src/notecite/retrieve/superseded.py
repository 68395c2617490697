"""Notes their own names mark as superseded, weighted down unless the question asks for them.

A vault keeps what it replaced: Dendron's `dendron.topic.publish-legacy.configuration` beside
the current `dendron.topic.publish.config.*` notes, an `Archive/` folder of old projects, a
`deprecated-api.md`. The old note says as much about the thing as the new one, often more
(it was written out at length before it was split up), so it ranks beside or above the note
that holds today's answer. A candidate of a note whose path carries one of those words (or
whose title says deprecated, archived or obsolete) weighs ``retrieval.superseded_weight``,
the way a type weight weighs a kind of note; a question that itself says "legacy",
"deprecated", "archived", "obsolete", "old" or "previous" is ranked as before.
"""

from __future__ import annotations

import re

# one word of the path: "publish-legacy", "Archive/", "Archives/", "deprecated_api"
_SUPERSEDED_PATH = re.compile(
    r"(?<![a-z])(?:legacy|deprecated|archive[ds]?|obsolete|superseded)(?![a-z])", re.IGNORECASE
)
# a title says it less often, and "archive" and "legacy" are things a title is about ("An
# archive for genomics data", "Of lineage and legacy"): only the words that mark the note
_SUPERSEDED_TITLE = re.compile(r"\b(?:deprecated|archived|obsolete|superseded)\b", re.IGNORECASE)
_ASKS_FOR_OLD = re.compile(
    r"\b(?:legacy|deprecated?|deprecation|archived?|archives|obsolete|superseded|old|older|"
    r"previous|former|outdated)\b",
    re.IGNORECASE,
)


def is_superseded(rel_path: str, title: str) -> bool:
    """Whether a note's path names it legacy, deprecated, archived or obsolete (a word of a
    folder or file name), or its title says deprecated, archived or obsolete."""
    return bool(_SUPERSEDED_PATH.search(rel_path) or _SUPERSEDED_TITLE.search(title))


def asks_for_superseded(question: str) -> bool:
    """Whether ``question`` asks about what was replaced ("the legacy publishing", "the old
    config", "deprecated options")."""
    return bool(_ASKS_FOR_OLD.search(question))
