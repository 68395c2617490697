"""Words a question means without saying them.

"If I never say which note is the home page, which one does it use?", "How many files do I
get back unless I raise it?", "What embed style does the preview use when I haven't picked
one?" each ask for a default; the notes say "default: first element of siteHierarchies",
"(default: 20)", "`full-card` (default)". The question's own words are not on the line that
answers it, so neither the full-text search nor the choice of evidence lines finds it.

:func:`implied_terms` names the word such a question means ("default"); the question is
searched with it after its own words (ask and search alike), and the model reads the question
as asked. (Weighting it in the choice of evidence lines too changed nothing on the dev
questions: the line is chosen once its chunk is found.)
"""

from __future__ import annotations

import calendar
import re

from notecite.retrieve.units import asked_abbreviations

_SET = (
    r"(?:set|setting|sets|give|giving|gave|given|pick|picking|picked|choose|choosing|chose|"
    r"chosen|specify|specifying|specified|configure|configuring|configured|change|changing|"
    r"changed|pass|passing|passed|provide|providing|provided|say|saying|said|name|naming|"
    r"named|touch|touching|touched|raise|raising|raised|add|adding|added|tell|telling|told|"
    r"supply|supplying|supplied|define|defining|defined|customi[sz]e|customi[sz]ing|"
    r"customi[sz]ed|override|overriding|overridden|adjust|adjusting|adjusted|tweak|tweaking|"
    r"tweaked|select|selecting|selected)"
)
# what is left unset is unnamed ("it", "one", "anything", "which note"): "without touching
# dendron.yml" names what is left alone and asks how else to do it, and "do not provide
# better care" says what something does; neither asks for a default
_UNNAMED = (
    r"(?=\s+(?:it|them|one|anything|something|any|a|an|its|their|up|which|what)\b"
    r"|\s*[,.?!]|\s*$)"
)
# "I never say which", "you haven't picked one", "when I don't give it a format string"
_NOT_SET = re.compile(
    rf"\b(?:never|not|haven't|hasn't|don't|doesn't|didn't|won't)\s+(?:\w+\s+){{0,2}}?"
    rf"{_SET}{_UNNAMED}",
    re.IGNORECASE,
)
_LEFT_UNSET = re.compile(
    rf"\b(?:without|unless)\s+(?:\w+\s+){{0,2}}?{_SET}{_UNNAMED}"  # "unless I raise it"
    r"|\bleav(?:e|ing)\s+(?:\w+\s+){0,3}?(?:alone|as\s+(?:it\s+)?is|untouched|unset|empty|"
    r"blank)\b"  # "leave its settings alone"
    r"|\bout\s+of\s+the\s+box\b",
    re.IGNORECASE,
)
# The asker leaves it unset ("If I never say", "you haven't picked one", "I saved a query and
# never gave it"): "What does article 288 not say?" asks what a text leaves out.
_ASKER = re.compile(r"\b(?:i|i've|i'd|we|we've|you|you've)\b[^.?!]*$", re.IGNORECASE)
# "Why was Quartz not picked?": a passive says what someone decided, not what is unset
_PASSIVE = re.compile(
    r"\b(?:was|were|is|are|been|be|being|isn't|wasn't|weren't|aren't)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
_SAYS_DEFAULT = re.compile(r"\bdefaults?\b", re.IGNORECASE)


def _asks_default(question: str) -> bool:
    if _LEFT_UNSET.search(question):
        return True
    return any(
        _ASKER.search(before) and not _PASSIVE.search(before)
        for before in (question[: found.start()] for found in _NOT_SET.finditer(question))
    )


# "Who was at the kickoff?", "who attended the retro", "who came to the sync": the note's
# line says "Attendees: me, Dana, Tomasz"
_ASKS_ATTENDEES = re.compile(
    r"\bwho\s+(?:was|were|is|are|will\s+be)\s+(?:at|in|present\s+at|there)\b"
    r"|\bwho\s+(?:attended|came\s+to|joined|went\s+to|showed\s+up)\b"
    r"|\bwho\s+(?:else\s+)?(?:was|were)\s+(?:invited|there)\b",
    re.IGNORECASE,
)
_SAYS_ATTENDEES = re.compile(r"\b(?:attendees|participants)\b", re.IGNORECASE)


# "Sunday" in a question, "Sun 19 — Sintra" in a trip's plan by day: a weekday is written
# short in notes (a heading of a day, a table of a week)
_SHORT_WEEKDAY = {
    day.lower(): short.lower()
    for day, short in zip(calendar.day_name, calendar.day_abbr, strict=True)
}
_WEEKDAY = re.compile(rf"\b({'|'.join(_SHORT_WEEKDAY)})s?\b", re.IGNORECASE)


def implied_terms(question: str) -> tuple[str, ...]:
    """The words ``question`` means without saying them: "default" when it asks what
    happens when the asker sets nothing ("if I never say ...", "unless I raise it",
    "without me setting anything up", "leave its settings alone"), "attendees" when it asks
    who was at a meeting ("Who was at the kickoff?", "who came to the retro"), and for a
    weekday its short form, as a day's heading writes it ("Sunday": "sun", for "### Sun 19 —
    Sintra"), and for a unit spelled out its symbol ("kilometres": "km",
    :mod:`notecite.retrieve.units`)."""
    implied: list[str] = []
    if not _SAYS_DEFAULT.search(question) and _asks_default(question):
        implied.append("default")
    if not _SAYS_ATTENDEES.search(question) and _ASKS_ATTENDEES.search(question):
        implied.append("attendees")
    for day in _WEEKDAY.finditer(question):
        short = _SHORT_WEEKDAY[day.group(1).lower()]
        if short not in implied:
            implied.append(short)
    said = {w.lower() for w in re.findall(r"\w+", question)}
    implied.extend(s for s in asked_abbreviations(question) if s not in said and s not in implied)
    return tuple(implied)
