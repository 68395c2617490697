"""Which questions ask for the open tasks due in a window, and which window, read forward
from a fixed now (Wednesday 2 December 2026)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from notecite.retrieve.due_window import DueWindow, asked_due_window, span_words
from notecite.retrieve.task_dates import TaskDate

NOW = datetime(2026, 12, 2, 15, 30, tzinfo=UTC)  # a Wednesday


def d(month: int, day: int, year: int = 2026) -> date:
    return date(year, month, day)


@pytest.mark.parametrize(
    ("question", "since", "until", "said"),
    [
        ("What's due this week?", d(11, 30), d(12, 7), "due this week (30 Nov - 6 Dec 2026)"),
        ("What's overdue?", None, d(12, 2), "overdue"),
        ("What's past due?", None, d(12, 2), "overdue"),
        ("Which tasks are late?", None, d(12, 2), "overdue"),
        ("How many tasks are overdue?", None, d(12, 2), "overdue"),
        ("What is due today?", d(12, 2), d(12, 3), "due today (Wed 2 Dec 2026)"),
        ("Which tasks are due tomorrow?", d(12, 3), d(12, 4), "due tomorrow (Thu 3 Dec 2026)"),
        ("What's due next week?", d(12, 7), d(12, 14), "due next week (7 - 13 Dec 2026)"),
        ("What's due this month?", d(12, 1), d(1, 1, 2027), "due this month (December 2026)"),
        ("What's due next month?", d(1, 1, 2027), d(2, 1, 2027), "due next month (January 2027)"),
        (
            "Anything due in the next 7 days?",
            d(12, 2),
            d(12, 10),
            "due in the next 7 days (2 - 9 Dec 2026)",
        ),
        (
            "What's due within two weeks?",
            d(12, 2),
            d(12, 17),
            "due in the next 2 weeks (2 - 16 Dec 2026)",
        ),
        # a weekday is the next one after today; "before" leaves it out, "by" keeps it
        ("What do I have due before Friday?", None, d(12, 4), "due before Fri 4 Dec 2026"),
        ("What's due by Friday?", None, d(12, 5), "due by Fri 4 Dec 2026"),
        ("What's due before Wednesday?", None, d(12, 9), "due before Wed 9 Dec 2026"),
        ("What's due by the end of the month?", None, d(1, 1, 2027), "due by Thu 31 Dec 2026"),
        ("What's due before next week?", None, d(12, 7), "due before Mon 7 Dec 2026"),
        # a date without its year is the next one on or after today
        ("What's due before 20 March?", None, d(3, 20, 2027), "due before Sat 20 Mar 2027"),
        ("What's due by December 2nd?", None, d(12, 3), "due by Wed 2 Dec 2026"),
        ("What is due on 2026-12-20?", d(12, 20), d(12, 21), "due on Sun 20 Dec 2026"),
        ("What's due Friday?", d(12, 4), d(12, 5), "due on Fri 4 Dec 2026"),
        ("What's due next Friday?", d(12, 11), d(12, 12), "due on Fri 11 Dec 2026"),
        (
            "What's due on Friday 20 March?",
            d(3, 20, 2027),
            d(3, 21, 2027),
            "due on Sat 20 Mar 2027",
        ),
        # a month is the next one, this one included
        ("What deadlines do I have in March?", d(3, 1, 2027), d(4, 1, 2027), "due in March 2027"),
        ("What's due in December?", d(12, 1), d(1, 1, 2027), "due in December 2026"),
        ("What's due in March 2026?", d(3, 1), d(4, 1), "due in March 2026"),
        ("What are my upcoming deadlines?", d(12, 2), None, "due today or later"),
        (
            "What's scheduled for tomorrow?",
            d(12, 3),
            d(12, 4),
            "scheduled tomorrow (Thu 3 Dec 2026)",
        ),
        (
            "What open tasks are due this week?",
            d(11, 30),
            d(12, 7),
            "due this week (30 Nov - 6 Dec 2026)",
        ),
        ("What are my deadlines?", None, None, "with a date"),
        ("What's due?", None, None, "with a date"),
        ("Which tasks have a due date?", None, None, "with a date"),
        ("What are Dana's deadlines?", None, None, "with a date"),
        ("What's due today #house?", d(12, 2), d(12, 3), "due today (Wed 2 Dec 2026)"),
    ],
)
def test_questions_that_ask_for_dated_tasks(
    question: str, since: date | None, until: date | None, said: str
) -> None:
    window = asked_due_window(question, ["#house"], NOW)
    assert window is not None
    assert (window.since, window.until, window.said) == (since, until, said)


@pytest.mark.parametrize(
    "question",
    [
        "What's due for the garden shed?",
        "When is the library book due?",
        "What does the due date field do?",
        "When is the next one due?",
        "What is the deadline for the grant?",
        "What do I have on Friday?",  # names no task's date
        "What's late?",  # "late" asks about tasks only beside a task word
        "What are my open todos?",
        "What's overdue or due this week?",  # two windows
        "What may be overdue?",
        "What is due on 2026-02-30?",  # no calendar has it
        "What's due in 2027?",
        "When did the boiler last have its yearly check, and when is the next one due?",
        "From the terminal, how do I find every note that has a due field?",
    ],
)
def test_questions_that_stay_searches(question: str) -> None:
    assert asked_due_window(question, now=NOW) is None


def test_a_task_only_scheduled_is_never_overdue() -> None:
    overdue = asked_due_window("What's overdue?", now=NOW)
    assert overdue is not None
    assert overdue.holds(TaskDate(d(11, 20), "due"))
    assert not overdue.holds(TaskDate(d(11, 20), "scheduled"))
    assert not overdue.holds(TaskDate(d(12, 2), "due"))  # due today is not late yet


def test_the_day_nearest_a_window() -> None:
    week = DueWindow(d(11, 30), d(12, 7), "this week", "due this week")
    assert week.nearest([d(11, 2), d(12, 20), d(12, 9)]) == d(12, 9)  # the next one first
    assert week.nearest([d(11, 2), d(11, 20)]) == d(11, 20)  # else the last before it
    assert week.nearest([]) is None


def test_a_span_of_days_in_words() -> None:
    assert span_words(d(12, 1), d(12, 7)) == "1 - 7 Dec 2026"
    assert span_words(d(11, 30), d(12, 6)) == "30 Nov - 6 Dec 2026"
    assert span_words(d(12, 28), d(1, 3, 2027)) == "28 Dec 2026 - 3 Jan 2027"
