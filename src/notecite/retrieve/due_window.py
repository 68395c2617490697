"""A question that asks for the open tasks due in a window of days: "What's due this week?".

People who write due dates on their tasks (:mod:`notecite.retrieve.task_dates`) ask "What's
due this week?", "What's overdue?", "Which tasks are due tomorrow?", "What deadlines do I
have in March?", "What do I have due before Friday?", "What are my deadlines?". No note
shares their words; the dated open tasks answer them, listed by date with no search and no
model call (:mod:`notecite.generate.listing`).

A question asks for them (:func:`asked_due_window`) when

1. it names a task's date: "due", "overdue", "past due", "deadline(s)" or "scheduled", or
   "late" beside a task word ("Which tasks are late?");
2. it says at most one window, read forward from today (unlike
   :mod:`~notecite.retrieve.timehints`, whose "this week" is Monday to today):

   - "overdue", "past due", "late": due before today (a task only scheduled is never
     overdue);
   - "today", "tomorrow", "this week" / "next week" (Monday to Sunday), "this month" /
     "next month", "this year" / "next year";
   - "in the next N days", "within N days": today and the N days after it;
   - "before DAY" (due before it, overdue ones included), "by DAY" / "until DAY" (on it
     too); a DAY is "today", "tomorrow", a weekday (the next one after today; "next
     Friday" is the Friday of next week), a date ("20 March", "March 20th", "2026-03-20";
     without its year the next one on or after today), "the end of the week/month", or
     "next week" / "next month" / a month (due before it starts);
   - "in March" (the next March, this one included), "in March 2027";
   - "on DAY", or a DAY alone ("What's due Friday?"): that day;
   - "upcoming", "coming up", "soon", "next": today or later;
   - none at all ("What are my deadlines?", "What's due?"): every dated open task;
3. once the filters, the owners ("Dana's") and the window are cut out, every word left is
   a stopword, a task word ("tasks", "todos", "open", "left"), a word of asking ("list",
   "show", "have", "anything") or of dates ("due", "deadline", "date", "upcoming").

"What's due for the garden shed?", "When is the library book due?", "What does the due date
field do?" hold another word, and "What do I have on Friday?" names no task's date: they are
searched. So is a question of two windows ("What's overdue or due this week?").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from notecite.retrieve.task_dates import DatedTask, TaskDate, dated_open_tasks
from notecite.retrieve.tasks import mentions_owner, without_owners
from notecite.retrieve.terms import STOPWORDS, without_written
from notecite.retrieve.timehints import DAY_PATTERNS, MONTH_PATTERN, MONTHS, WEEKDAYS

_WORD = re.compile(r"[a-z0-9]+")
_DATE_WORDS = frozenset({"due", "overdue", "deadline", "deadlines", "scheduled"})
_TASK_NOUNS = frozenset({"todo", "todos", "task", "tasks", "item", "items", "action", "actions"})
_LEFT_WORDS = frozenset(
    """
    due deadline deadlines scheduled date dates dated upcoming coming soon next later
    todo todos task tasks item items action actions thing things stuff
    open unchecked unticked outstanding pending unfinished incomplete uncompleted remaining
    left undone still yet haven hasn havent
    list lists show give find many number count all every everything anything something
    got have has need needs s t mine
    vault vaults folder folders tagged tag tags
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_NUMBERS = {
    word: number
    for number, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"), start=1
    )
}
_WEEKDAY = "|".join(WEEKDAYS)


@dataclass(frozen=True)
class DueWindow:
    """The days a question asks the open tasks due in: from ``since`` up to, not including,
    ``until`` (None: open on that side).

    Attributes:
        phrase: the question's words for them ("this week", "before friday"; "" for none).
        said: the answer's words for them: "due this week (30 Nov - 6 Dec 2026)", "due
            before Fri 11 Dec 2026", "overdue", "with a date".
        kind: "overdue" (said before "open tasks"), "all" (every dated task: "with a
            date"), or "window" (said after "open tasks is"/"are").
    """

    since: date | None
    until: date | None
    phrase: str
    said: str
    kind: Literal["window", "overdue", "all"] = "window"

    def holds(self, when: TaskDate) -> bool:
        """Is a task of date ``when`` within the window? A task only scheduled is never
        overdue: its day is when its owner meant to start it, not when it is due."""
        if self.kind == "overdue" and when.kind != "due":
            return False
        day = when.day
        return (self.since is None or day >= self.since) and (
            self.until is None or day < self.until
        )

    def nearest(self, days: Iterable[date]) -> date | None:
        """Of ``days`` outside the window, the first after it, else the last before it;
        None when there is neither."""
        days = list(days)
        after = [d for d in days if self.until is not None and d >= self.until]
        if after:
            return min(after)
        before = [d for d in days if self.since is not None and d < self.since]
        return max(before, default=None)


def day_words(day: date) -> str:
    """``day`` as an answer says it: "Fri 4 Dec 2026"."""
    weekday = calendar.day_abbr[day.weekday()]
    return f"{weekday} {day.day} {calendar.month_abbr[day.month]} {day.year}"


def span_words(first: date, last: date) -> str:
    """The days ``first`` to ``last`` as an answer says them: "30 Nov - 6 Dec 2026",
    "1 - 7 Dec 2026"."""
    end = f"{last.day} {calendar.month_abbr[last.month]} {last.year}"
    if first.year != last.year:
        return f"{first.day} {calendar.month_abbr[first.month]} {first.year} - {end}"
    if first.month != last.month:
        return f"{first.day} {calendar.month_abbr[first.month]} - {end}"
    return f"{first.day} - {end}"


def tasks_due(text: str, window: DueWindow, owners: Sequence[str] = ()) -> list[DatedTask]:
    """The open tasks of a chunk's ``text`` dated within ``window`` that name one of
    ``owners`` (any, when empty), in order."""
    return [
        t
        for t in dated_open_tasks(text)
        if window.holds(t.date) and mentions_owner(t.task.text, owners)
    ]


def asked_due_window(
    question: str, filters: Sequence[str] = (), now: datetime | None = None
) -> DueWindow | None:
    """The window of days ``question`` asks the dated open tasks of, read from ``now`` (the
    rules are the module's), once the ``filters`` written in it are cut out; None when it
    asks anything else."""
    today = (now or datetime.now(UTC)).date()
    text = without_owners(without_written(question, filters))
    text = " ".join(text.lower().replace("\u2019", "'").split())
    words = _WORD.findall(text)
    late = "late" in words and any(w in _TASK_NOUNS for w in words)
    if not late and _DATE_WORDS.isdisjoint(words):
        return None
    said_due = not _DATE_WORDS.isdisjoint(set(words) - {"scheduled"})
    verb = "scheduled" if "scheduled" in words and not said_due else "due"
    window, start, end = _window(text, today, verb)
    rest = text[:start] + " " + text[end:]
    if any(w not in STOPWORDS and w not in _LEFT_WORDS for w in _WORD.findall(rest)):
        return None
    return window


# -- the window ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Days:
    """Days a question names: ``start`` up to, not including, ``end``; ``stop``: where its
    words end in the question."""

    start: date
    end: date
    stop: int


def _week_start(today: date) -> date:
    return today - timedelta(days=today.weekday())


def _month_after(first: date) -> date:
    return date(first.year + (first.month == 12), first.month % 12 + 1, 1)


def _next_on_or_after(today: date, month: int, day: int) -> date | None:
    """The ``day`` of ``month`` on or after ``today``, this year's or next year's."""
    for year in (today.year, today.year + 1):
        try:
            found = date(year, month, day)
        except ValueError:
            continue
        if found >= today:
            return found
    return None


_END_OF = re.compile(r"(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(week|month)\b")
_NEXT_PERIOD = re.compile(r"next\s+(week|month)\b")
_WEEKDAY_FIRST = re.compile(rf"(?:{_WEEKDAY}),?\s+")
_A_WEEKDAY = re.compile(rf"(?:(this\s+coming|this|coming|next)\s+)?({_WEEKDAY})\b")
_A_MONTH = re.compile(rf"({MONTH_PATTERN})\.?(?:\s+(\d{{4}}))?\b")


def _dated(text: str, pos: int, today: date) -> _Days | None:
    """The calendar date written at ``pos`` ("20 March", "Friday, March 20th",
    "2026-03-20"), a date without its year the next one on or after ``today``."""
    weekday = _WEEKDAY_FIRST.match(text, pos)
    starts = (weekday.end(), pos) if weekday else (pos,)
    for at in starts:
        for pattern in DAY_PATTERNS:
            found = pattern.match(text, at)
            if found is None:
                continue
            month = found.group("month")
            number = int(month) if month.isdigit() else MONTHS[month]
            day = int(found.group("day"))
            try:
                year = found.group("year")
                when = (
                    date(int(year), number, day) if year else _next_on_or_after(today, number, day)
                )
            except ValueError:
                return None
            if when is None:
                return None
            return _Days(when, when + timedelta(days=1), found.end())
    return None


def _day_at(text: str, pos: int, today: date) -> _Days | None:
    """The day or days written at ``pos`` of ``text`` (a DAY of the module's rules)."""
    for word, offset in (("today", 0), ("tomorrow", 1)):
        if re.match(rf"{word}\b", text[pos:]):
            day = today + timedelta(days=offset)
            return _Days(day, day + timedelta(days=1), pos + len(word))
    found = _END_OF.match(text, pos)
    if found:
        if found.group(1) == "week":
            last = _week_start(today) + timedelta(days=6)
        else:
            last = _month_after(today.replace(day=1)) - timedelta(days=1)
        return _Days(last, last + timedelta(days=1), found.end())
    found = _NEXT_PERIOD.match(text, pos)
    if found:
        if found.group(1) == "week":
            first = _week_start(today) + timedelta(days=7)
            return _Days(first, first + timedelta(days=7), found.end())
        first = _month_after(today.replace(day=1))
        return _Days(first, _month_after(first), found.end())
    dated = _dated(text, pos, today)
    if dated is not None:
        return dated
    found = _A_WEEKDAY.match(text, pos)
    if found:
        index = WEEKDAYS.index(found.group(2))
        if found.group(1) == "next":
            day = _week_start(today) + timedelta(days=7 + index)
        else:
            day = today + timedelta(days=(index - today.weekday()) % 7 or 7)
        return _Days(day, day + timedelta(days=1), found.end())
    found = _A_MONTH.match(text, pos)
    if found:
        number = MONTHS[found.group(1)]
        year = int(found.group(2)) if found.group(2) else None
        if year is None:
            year = today.year if number >= today.month else today.year + 1
        first = date(year, number, 1)
        return _Days(first, _month_after(first), found.end())
    return None


_Found = tuple[DueWindow, int, int]
"""A window a question says, and where its words start and end in the question."""
_Reader = Callable[[str, date, str], _Found | None]


def _overdue(text: str, today: date, verb: str) -> _Found | None:
    found = re.search(r"\b(?:over\s*due|past\s+due|late)\b", text)
    if found is None:
        return None
    return DueWindow(None, today, found.group(0), "overdue", "overdue"), *found.span()


def _until(text: str, today: date, verb: str) -> _Found | None:
    for found in re.finditer(r"\b(before|by|until|till)\s+", text):
        days = _day_at(text, found.end(), today)
        if days is None:
            continue
        one_day = days.end - days.start == timedelta(days=1)
        if found.group(1) == "before" or not one_day:
            until, said = days.start, f"{verb} before {day_words(days.start)}"
        else:
            until, said = days.end, f"{verb} by {day_words(days.start)}"
        phrase = text[found.start() : days.stop]
        return DueWindow(None, until, phrase, said), found.start(), days.stop
    return None


def _next_days(text: str, today: date, verb: str) -> _Found | None:
    """ "in the next 7 days", "within two weeks": today and the days after it."""
    found = re.search(
        r"\b(?:(?:(?:in|over|during)\s+)?(?:the\s+)?(?:next|coming)|within(?:\s+the\s+next)?)"
        rf"\s+(\d{{1,3}}|{'|'.join(_NUMBERS)})\s+(day|week)s?\b",
        text,
    )
    if found is None:
        return None
    written, unit = found.group(1), found.group(2)
    count = int(written) if written.isdigit() else _NUMBERS[written]
    last = today + timedelta(days=count * (7 if unit == "week" else 1))
    said = f"{verb} in the next {count} {unit}{'' if count == 1 else 's'}"
    window = DueWindow(
        today, last + timedelta(days=1), found.group(0), f"{said} ({span_words(today, last)})"
    )
    return window, *found.span()


def _period(text: str, today: date, verb: str) -> _Found | None:
    """Today, tomorrow, this or next week, month or year."""
    week = _week_start(today)
    month = today.replace(day=1)
    year = date(today.year, 1, 1)
    periods: list[tuple[str, date, date]] = [
        (r"today|tonight", today, today + timedelta(days=1)),
        (r"tomorrow", today + timedelta(days=1), today + timedelta(days=2)),
        (r"this\s+week", week, week + timedelta(days=7)),
        (r"next\s+week", week + timedelta(days=7), week + timedelta(days=14)),
        (r"this\s+month", month, _month_after(month)),
        (r"next\s+month", _month_after(month), _month_after(_month_after(month))),
        (r"this\s+year", year, year.replace(year=year.year + 1)),
        (r"next\s+year", year.replace(year=year.year + 1), year.replace(year=year.year + 2)),
    ]
    for pattern, since, until in periods:
        found = re.search(rf"\b(?:{pattern})\b", text)
        if found is None:
            continue
        name = " ".join(found.group(0).split())
        last = until - timedelta(days=1)
        if since == last:
            shown = day_words(since)
        elif "month" in name:
            shown = f"{calendar.month_name[since.month]} {since.year}"
        elif "year" in name:
            shown = str(since.year)
        else:
            shown = span_words(since, last)
        window = DueWindow(since, until, found.group(0), f"{verb} {name} ({shown})")
        return window, *found.span()
    return None


def _in_month(text: str, today: date, verb: str) -> _Found | None:
    """ "in March" (the next March, this one included), "during March", "March 2027"; a
    month's name alone ("may") is no month."""
    for found in re.finditer(rf"\b(?:(?:in|during|for|of)\s+)?(?=(?:{MONTH_PATTERN})\b)", text):
        days = _day_at(text, found.end(), today)
        if days is None or days.end - days.start == timedelta(days=1):
            continue
        phrase = text[found.start() : days.stop]
        if phrase == text[found.end() : days.stop] and not phrase[-1].isdigit():
            continue
        said = f"{verb} in {calendar.month_name[days.start.month]} {days.start.year}"
        return DueWindow(days.start, days.end, phrase, said), found.start(), days.stop
    return None


def _on_day(text: str, today: date, verb: str) -> _Found | None:
    """ "on Friday", "Friday", "on 20 March", "2026-03-20": one day."""
    for found in re.finditer(r"\b(?:on\s+)?(?=\w)", text):
        days = _day_at(text, found.end(), today)
        if days is None or days.end - days.start != timedelta(days=1):
            continue
        said = f"{verb} on {day_words(days.start)}"
        phrase = text[found.start() : days.stop]
        return DueWindow(days.start, days.end, phrase, said), found.start(), days.stop
    return None


def _upcoming(text: str, today: date, verb: str) -> _Found | None:
    found = re.search(r"\b(?:upcoming|coming\s+up|coming|soon|next|later)\b", text)
    if found is None:
        return None
    return DueWindow(today, None, found.group(0), f"{verb} today or later"), *found.span()


_READERS: tuple[_Reader, ...] = (
    _overdue,
    _until,
    _next_days,
    _period,
    _on_day,
    _in_month,
    _upcoming,
)
"""The windows a question may say, tried in turn (those whose words hold another's first:
"before next week" before "next week", "on 20 March 2027" before "March 2027", "next
week" before "next")."""


def _window(text: str, today: date, verb: str) -> tuple[DueWindow, int, int]:
    """The window ``text`` says (every dated task when it says none), and where its words
    start and end in ``text``."""
    for read in _READERS:
        found = read(text, today, verb)
        if found is not None:
            return found
    return DueWindow(None, None, "", "with a date", "all"), 0, 0
