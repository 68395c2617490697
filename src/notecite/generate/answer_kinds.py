"""The kind of value a question asks for, and the lines that hold one.

"What oven temperatures and timings do I go with?" shares no word with the line that
answers it ("**220°C for 20 min**, then down to **190°C for 50 min**"); "What day did I
book the flights?" shares "book" and "flights" with many lines of the trip's note, and only
one of them holds a day ("Booked 3 Feb, easyJet ..."). A question that asks for a
temperature, a length of time, a day, a time of day, a sum of money, a version or a key
combination names the kind of its answer, and the line that holds a value of that kind is
the one to read. :func:`asked_kinds` names the kinds a question asks for and
:func:`held_kinds` those a line holds; in a block none of whose lines holds a word of the
question, the choice of evidence lines (:mod:`notecite.generate.evidence`) counts a kind
asked for and held like a question word the line holds, weighed by how rare it is among the
context's lines (a kind every line holds tells nothing).

A kind is asked for by the words of the question, not guessed from its topic: "when" is a
day only as a question ("When did I ...?"), not as a condition ("When I export ..."), and
"how many" asks for a count only where no unit of time follows (then it asks for a length).
"""

from __future__ import annotations

import re

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WEEKDAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day)?\b"
_UNIT_OF_TIME = (
    r"(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?|nights?|weeks?|wks?|months?|"
    r"years?|yrs?)"
)

# What a question asks for: each kind with the words that ask for it.
_ASKS: dict[str, re.Pattern[str]] = {
    "temperature": re.compile(
        r"\b(?:temperatures?|temps?|how\s+hot|how\s+cold|degrees)\b", re.IGNORECASE
    ),
    "duration": re.compile(
        r"\bhow\s+long\b|\btimings?\b|\bduration\b|\bhow\s+much\s+time\b"
        rf"|\bhow\s+many\s+{_UNIT_OF_TIME}\b",
        re.IGNORECASE,
    ),
    "day": re.compile(
        r"\b(?:what|which)\s+(?:day|date)\b|\bwhat\s+year\b|\bon\s+what\s+day\b"
        r"|(?:^|[,;:]\s*|\band\s+)when\s+(?:did|does|do|is|was|were|are|will|should|would|"
        r"can|could|has|have|had|am)\b",
        re.IGNORECASE,
    ),
    "clock": re.compile(r"\bwhat\s+time\b|\bat\s+what\s+time\b", re.IGNORECASE),
    "money": re.compile(
        r"\bhow\s+much\s+(?:did|does|do|is|was|were|will|would|money|does\s+it\s+cost)\b"
        r"|\b(?:cost|costs|price|prices|spend|spent|paid|pay|budget|fee|fees)\b"
        r"|\b(?:cheap|cheaper|cheapest|(?:more|most|less|least)\s+expensive|pricier|priciest)\b",
        re.IGNORECASE,
    ),
    "version": re.compile(
        r"\b(?:what|which)\s+(?:version|release)\b|\bsince\s+which\b", re.IGNORECASE
    ),
    "keys": re.compile(
        r"\b(?:keys|key\s+combination|shortcuts?|keybindings?|hotkeys?|keystrokes?)\b",
        re.IGNORECASE,
    ),
    "count": re.compile(rf"\bhow\s+many\b(?!\s+{_UNIT_OF_TIME}\b)", re.IGNORECASE),
}

# What a line holds: each kind with the shape of a value of it.
_HOLDS: dict[str, re.Pattern[str]] = {
    "temperature": re.compile(
        r"\d\s*°\s*[CF]?|\b\d+\s*(?:degrees|deg)\b|\bgas\s+mark\s+\d", re.IGNORECASE
    ),
    "duration": re.compile(
        rf"\b\d+(?:[.,]\d+)?(?:\s*(?:-|\u2013|to)\s*\d+(?:[.,]\d+)?)?\s*{_UNIT_OF_TIME}\b"
        r"|\b\d+h\s*\d+m?\b|\b(?:an?|one|two|three|half\s+an?)\s+(?:hour|minute|day|week)s?\b",
        re.IGNORECASE,
    ),
    "day": re.compile(
        r"(?<!\d)\d{4}-\d{1,2}-\d{1,2}(?!\d)"
        rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:\s|,|$)"
        rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
        rf"|\b{_WEEKDAY}"
        r"|\b(?:yesterday|today|tomorrow)\b",
        re.IGNORECASE,
    ),
    "clock": re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm)\b", re.IGNORECASE),
    "money": re.compile(
        r"[£$€¥]\s*\d|\b\d[\d,.]*\s*(?:€|£|\$|EUR|USD|GBP|dollars|euros|pounds)\b",
        re.IGNORECASE,
    ),
    "version": re.compile(r"\bv?\d+\.\d+(?:\.\d+)*\b"),
    "keys": re.compile(
        r"\b(?:ctrl|cmd|command|shift|alt|option|opt|meta|super|win)\s*\+|[⌘⌃⌥⇧]", re.IGNORECASE
    ),
    "count": re.compile(r"\b\d[\d,.]*\b"),
}

MARK = "\x00kind:"
"""The prefix of a kind counted as a term (no word of a note starts with it)."""


def asked_kinds(question: str) -> frozenset[str]:
    """The kinds of value ``question`` asks for ("temperature", "duration", "day", "clock",
    "money", "version", "keys", "count")."""
    return frozenset(kind for kind, asks in _ASKS.items() if asks.search(question))


def held_kinds(line: str, kinds: frozenset[str]) -> frozenset[str]:
    """Which of ``kinds`` ``line`` holds a value of."""
    return frozenset(kind for kind in kinds if _HOLDS[kind].search(line))
