"""Questions about a note as a whole, not about a line of it.

"What did we decide at the last platform sync?" and "What's new in the latest release?" ask
what the newest note of a series holds (:mod:`notecite.retrieve.latest`); "What did I do on
22 January?" and "What happened last week?" ask what the notes of a day or a week hold.
Their words name the note or the time and nothing in it, so the lines chosen by the
question's words are the wrong ones (a day's note holds no "do" or "happened"): such a note
is read whole, as its outline (:mod:`notecite.generate.outline`), and the notes of a time
that no word narrows are found by their dates, not searched.
"""

from __future__ import annotations

import re
from datetime import datetime

from notecite.retrieve.terms import query_terms, stem, tokenize
from notecite.retrieve.timehints import TimeRange, parse_day, parse_time_hint, parse_week

# Words a question about a note as a whole asks with ("What's new in ...", "What did we
# decide at ...") and the words that ask for the latest ("the last", "most recent").
_OF_THE_WHOLE = frozenset(
    stem(word)
    for word in """
    new news change changes changed happen happened decide decided decision decisions
    discuss discussed cover covered say said talk talked agree agreed update updates
    highlight highlights outcome outcomes agenda come came go went
    last latest newest recent recently
    """.split()  # noqa: SIM905 (a word list reads better as words)
)

# Words a question about what the notes of a time hold asks with ("What did I do on 22
# January?", "What happened last week?", "Show my journal entries from March 2nd").
_OF_A_TIME = frozenset(
    stem(word)
    for word in """
    do did does done doing happen happened happening write wrote written note notes
    journal journals entry entries diary day days week log logged plan planned go went get got
    work worked thing things anything everything show list tell say said summary summarize
    summarise recap overview up
    monday tuesday wednesday thursday friday saturday sunday
    """.split()  # noqa: SIM905
)


def asks_of_the_whole(question: str, vault: str, rel_path: str, title: str) -> bool:
    """Whether ``question`` asks what a note holds as a whole: every word of it, but for
    stopwords, is of the note's vault, path or title, or asks what is new, what was
    decided, discussed, changed, or for the latest."""
    named = {stem(word) for word in tokenize(" ".join((vault, rel_path, title)))}
    said = [stem(term) for term in query_terms(question) if len(term) > 1]
    return bool(said) and all(term in named or term in _OF_THE_WHOLE for term in said)


def asks_of_a_time(question: str, now: datetime | None = None) -> TimeRange | None:
    """The day or the time ``question`` asks what the notes of hold ("What did I do on 22
    January?", "What happened last week?"), or None: a question that names a day or a time
    (:func:`~notecite.retrieve.timehints.parse_week`, then
    :func:`~notecite.retrieve.timehints.parse_day`, then
    :func:`~notecite.retrieve.timehints.parse_time_hint`) and no other word than stopwords
    and words such as "do", "happened", "write", "notes", "journal"; a time relative to
    ``now`` (the clock's when None)."""
    found = parse_week(question, now) or parse_day(question, now) or parse_time_hint(question, now)
    if found is None:
        return None
    rest = re.sub(re.escape(found.phrase), " ", question, flags=re.IGNORECASE)
    said = [stem(term) for term in query_terms(rest) if len(term) > 1 and not term.isdigit()]
    return found if all(term in _OF_A_TIME for term in said) else None
