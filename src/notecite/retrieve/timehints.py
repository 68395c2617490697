"""Time hints in a question: "today", "last week", "in March 2024", "since 2023"...

A hint becomes a date range that filters notes by their date and raises the weight of
recency. Without a hint there is no date filter: old notes are never hidden by default.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
"""A month's name or short form, in lower case ("march", "mar") -> its number."""
MONTH_PATTERN = "|".join(sorted(MONTHS, key=len, reverse=True))
"""A regular expression alternation of :data:`MONTHS`' names, longest first."""


@dataclass(frozen=True)
class TimeRange:
    """A half-open date range [since, until) found in a question, and the words that said so."""

    since: datetime | None
    until: datetime | None
    phrase: str

    @property
    def last_moment(self) -> datetime | None:
        """The last moment inside the range (the store's ``until`` is inclusive: a note of
        the next day or month is dated at its midnight, ``until`` itself)."""
        return self.until - timedelta(microseconds=1) if self.until else None


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_range(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def parse_time_hint(question: str, now: datetime | None = None) -> TimeRange | None:
    """The first time hint in ``question``, as a date range relative to ``now``: a week
    named by a day of it (:func:`parse_week`) before anything else, for "the week of 19
    January 2026" also names January 2026."""
    now = now or datetime.now(UTC)
    week = parse_week(question, now)
    if week is not None:
        return week
    today = _day(now)
    text = question.lower()
    relative: list[tuple[str, datetime, datetime]] = [
        (r"\btoday\b", today, today + timedelta(days=1)),
        (r"\byesterday\b", today - timedelta(days=1), today),
        (r"\b(last|past|previous) week\b", today - timedelta(days=14), today + timedelta(days=1)),
        (r"\bthis week\b", today - timedelta(days=today.weekday()), today + timedelta(days=1)),
        (r"\b(last|past|previous) month\b", *_previous_month(today)),
        (r"\bthis month\b", today.replace(day=1), today + timedelta(days=1)),
        (r"\bthis year\b", today.replace(month=1, day=1), today + timedelta(days=1)),
        (
            r"\blast year\b",
            today.replace(year=today.year - 1, month=1, day=1),
            today.replace(month=1, day=1),
        ),
    ]
    for pattern, since, until in relative:
        match = re.search(pattern, text)
        if match:
            return TimeRange(since, until, match.group(0))
    match = re.search(rf"\b(?:in|during|from)?\s*({MONTH_PATTERN})\.?\s+(\d{{4}})\b", text)
    if match:
        since, until = _month_range(int(match.group(2)), MONTHS[match.group(1)])
        return TimeRange(since, until, match.group(0).strip())
    match = re.search(r"\b(since|after)\s+(\d{4})\b", text)
    if match:
        year = int(match.group(2)) + (match.group(1) == "after")
        return TimeRange(datetime(year, 1, 1, tzinfo=UTC), None, match.group(0))
    match = re.search(r"\bbefore\s+(\d{4})\b", text)
    if match:
        return TimeRange(None, datetime(int(match.group(1)), 1, 1, tzinfo=UTC), match.group(0))
    match = re.search(r"\b(?:in|during)\s+(\d{4})\b", text)
    if match:
        year = int(match.group(1))
        return TimeRange(
            datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC), match.group(0)
        )
    return None


def _previous_month(today: datetime) -> tuple[datetime, datetime]:
    first = today.replace(day=1)
    last_month_end = first - timedelta(days=1)
    return _month_range(last_month_end.year, last_month_end.month)


_ORDINAL = r"(\d{1,2})(?:st|nd|rd|th)?"
DAY_PATTERNS = (
    # 2026-01-22
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b"),
    # 22 January 2026, 22nd of Jan, the 22nd of January
    re.compile(
        rf"\b(?:the\s+)?{_ORDINAL.replace('(', '(?P<day>', 1)}\s+(?:of\s+)?"
        rf"(?P<month>{MONTH_PATTERN})\.?(?:,?\s+(?P<year>\d{{4}}))?\b"
    ),
    # January 22, 2026; Jan 22nd
    re.compile(
        rf"\b(?P<month>{MONTH_PATTERN})\.?\s+{_ORDINAL.replace('(', '(?P<day>', 1)}"
        rf"(?:,?\s+(?P<year>\d{{4}}))?\b"
    ),
)
"""The ways a question writes a calendar day, each with the groups ``year`` (may be None),
``month`` (digits or a name of :data:`MONTHS`) and ``day``, matching lower case."""

WEEKDAYS = [name.lower() for name in calendar.day_name]
"""The weekdays' names in lower case, Monday first (``WEEKDAYS[d.weekday()]``)."""

# "last Tuesday", "on Tuesday", "this past Friday" (not "every Tuesday", "next Tuesday")
_WEEKDAY = re.compile(rf"\b(?:last|on|this\s+past)\s+({'|'.join(WEEKDAYS)})\b")


def parse_day(question: str, now: datetime | None = None) -> TimeRange | None:
    """The first calendar day ``question`` names ("2026-01-22", "22 January", "Jan 22nd,
    2026", "last Tuesday"), as the range of that day; a day named without its year is the
    last one on or before ``now``, a weekday the last one before today. None when it names
    no day, or one no calendar has."""
    now = now or datetime.now(UTC)
    text = question.lower()
    weekday = _WEEKDAY.search(text)
    for pattern in DAY_PATTERNS:
        for match in pattern.finditer(text):
            month = match.group("month")
            number = int(month) if month.isdigit() else MONTHS[month]
            day = int(match.group("day"))
            year = match.group("year")
            try:
                if year is not None:
                    since = datetime(int(year), number, day, tzinfo=UTC)
                else:
                    since = datetime(now.year, number, day, tzinfo=UTC)
                    if since > now:
                        since = since.replace(year=now.year - 1)
            except ValueError:
                continue
            return TimeRange(since, since + timedelta(days=1), match.group(0).strip())
    if weekday is not None:
        today = _day(now)
        back = (today.weekday() - WEEKDAYS.index(weekday.group(1))) % 7 or 7
        since = today - timedelta(days=back)
        return TimeRange(since, since + timedelta(days=1), weekday.group(0))
    return None


# "the week of 19 January", "week starting 2026-03-16", "the week beginning Jan 5th"
_WEEK_OF = re.compile(
    r"\b(?:the\s+)?week\s+(?P<how>of|starting|beginning|commencing|from)\s+(?:the\s+)?"
    r"(?P<rest>.+)",
    re.IGNORECASE,
)


_NAMED_WEEKDAY = re.compile(rf"^(?:{'|'.join(WEEKDAYS)}),?\s+", re.IGNORECASE)


def parse_week(question: str, now: datetime | None = None) -> TimeRange | None:
    """The week ``question`` names by a day of it, as a range of seven days: "the week of
    19 January 2026" from its Monday, "the week starting 16 March" from that day (a day
    without its year as :func:`parse_day` reads it). None when it names no such week."""
    found = _WEEK_OF.search(question)
    if found is None:
        return None
    rest = found.group("rest")
    dated = _NAMED_WEEKDAY.sub("", rest, count=1)  # "the week of Wednesday 21 January"
    day = parse_day(dated, now)
    if day is None or day.since is None or not dated.lower().startswith(day.phrase):
        return None
    since = day.since
    if found.group("how").lower() == "of":
        since -= timedelta(days=since.weekday())
    end = found.start("rest") + len(rest) - len(dated) + len(day.phrase)
    phrase = question[found.start() : end]
    return TimeRange(since, since + timedelta(days=7), phrase)
