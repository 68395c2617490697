"""Questions about when something arrived, and the release notes that answer them.

"Which release added X?", "In which version did Y ship?", "When did Z land?" are answered by
a release note (a changelog entry, a note titled with its version), while the pages that
describe X itself rank higher on every other signal: they say more about X. For such a
question the candidates from release notes get a weight (``retrieval.release_weight``), the
way a type weight favours a kind of note. Other questions are ranked as before.
"""

from __future__ import annotations

import re

# "which release / version", "in what version", "since which version", "what release"
_WHICH_RELEASE = re.compile(
    r"\b(which|what)\s+(?:(?!(?:is|are|was|were|do|does|did|can|should)\b)\w+\s+)?"
    r"(release|version)s?\b(?!\s+(control|number))",
    re.IGNORECASE,
)
# "when did ... land / ship / arrive / get added / appear / start", "when was ... released"
_WHEN_ARRIVED = re.compile(
    r"\bwhen\s+(did|was|were|has|have)\b.*\b(add|added|introduc\w*|land\w*|ship\w*|releas\w*|"
    r"arriv\w*|appear\w*|start\w*|launch\w*|support\w*|chang\w*|remov\w*|deprecat\w*|"
    r"switch\w*|mov\w*|brought|came|come)\b",
    re.IGNORECASE,
)
# a note titled with a version ("0.47", "v2.3.1", "Version 1.4") or a changelog/release page
_VERSION_TITLE = re.compile(r"^\s*(v|version\s*|release\s*)?\d+(\.\d+)+\b", re.IGNORECASE)
_RELEASE_NAME = re.compile(
    r"change[\s._-]?log|release[\s._-]?notes?|(^|[\s./_-])releases?([\s./_-]|$)|what'?s[\s._-]new",
    re.IGNORECASE,
)


_WHAT_DATE = re.compile(r"\bwhat\s+(date|day)\b.*\breleas\w*", re.IGNORECASE)
# "Since when can I run exports from the CLI?": since which release
_SINCE_WHEN = re.compile(r"\bsince\s+when\b", re.IGNORECASE)


def asks_when_released(question: str) -> bool:
    """Whether ``question`` asks in which release or version, or when, something arrived."""
    return any(p.search(question) for p in (_WHICH_RELEASE, _WHEN_ARRIVED, _WHAT_DATE, _SINCE_WHEN))


def is_release_note(rel_path: str, title: str) -> bool:
    """Whether a note is a release note: titled with a version, or named like a changelog or
    release notes (in its path or its title)."""
    return bool(
        _VERSION_TITLE.match(title) or _RELEASE_NAME.search(rel_path) or _RELEASE_NAME.search(title)
    )
