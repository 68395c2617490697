"""The date of an open task, as the tools that keep tasks in Markdown write it.

Obsidian's Tasks plugin writes a task's due date after 📅 and its scheduled date after ⏳
(``- [ ] Order the felt roof 📅 2026-12-04``); Dataview as an inline field (``[due::
2026-12-04]``, ``(due:: 2026-12-04)``, ``due:: 2026-12-04``, ``scheduled:: ...``); many
people in plain words (``due 2026-12-04``, ``due: 2026-12-04``, ``(due 2026-12-04)``: ISO
dates only, so that "due next week" in a task's words is no date); Logseq on the lines right
after its task (``DEADLINE: <2026-12-04 Fri>``, ``SCHEDULED: <2026-12-04 Fri>``). A task's
date is its due date, else its scheduled date; a date no calendar has (2026-02-30) is none.
Which dated tasks a question asks for is :mod:`notecite.retrieve.due_window`'s to read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import takewhile
from typing import Literal

from notecite.retrieve.tasks import OpenTask, open_tasks

_ISO = r"(?P<day>\d{4}-\d{2}-\d{2})(?!\d)"
_DUE = (
    re.compile(rf"\U0001f4c5\ufe0f?\s*{_ISO}"),  # 📅 (Tasks)
    # due:: (Dataview, bare or in [] or ()), due: and due (plain words)
    re.compile(rf"(?<![\w-])due(?::{{1,2}}|\s)\s*{_ISO}", re.IGNORECASE),
    re.compile(rf"\bDEADLINE:\s*<{_ISO}[^>]*>"),  # Logseq
)
_SCHEDULED = (
    re.compile(rf"\u23f3\ufe0f?\s*{_ISO}"),  # ⏳ (Tasks)
    re.compile(rf"(?<![\w-])scheduled::\s*{_ISO}", re.IGNORECASE),  # Dataview
    re.compile(rf"\bSCHEDULED:\s*<{_ISO}[^>]*>"),  # Logseq
)
# the lines Logseq writes right after a task: "  DEADLINE: <2026-12-04 Fri>"
_PLANNING = re.compile(r"^\s*(?:DEADLINE|SCHEDULED):\s*<")
# what a task's words show of its dates, left out when it is listed by its date: a Tasks
# emoji's date (due, scheduled, start, created, done, cancelled), a Dataview field of a date,
# a plain "due 2026-12-04"
_DATE_MARKS = (
    re.compile(r"[\U0001f4c5\u23f3\U0001f6eb\u2795\u2705\u274c]\ufe0f?\s*\d{4}-\d{2}-\d{2}"),
    re.compile(r"[\[(]\s*(?:due|scheduled|start|created|completion)::[^\])]*[\])]", re.I),
    re.compile(r"(?<![\w-])(?:due|scheduled)::\s*\d{4}-\d{2}-\d{2}\S*", re.IGNORECASE),
    re.compile(r"\(due:?\s+\d{4}-\d{2}-\d{2}\)|(?<![\w-])due:?\s+\d{4}-\d{2}-\d{2}", re.I),
)


@dataclass(frozen=True)
class TaskDate:
    """The day a task is due (``kind`` "due") or, with no due date, scheduled for."""

    day: date
    kind: Literal["due", "scheduled"]


@dataclass(frozen=True)
class DatedTask:
    """An open task of a chunk and its date."""

    task: OpenTask
    date: TaskDate


def _day(written: str) -> date | None:
    """The ISO date ``written``, or None when no calendar has it."""
    try:
        return date.fromisoformat(written)
    except ValueError:
        return None


def task_date(line: str, following: Sequence[str] = ()) -> TaskDate | None:
    """The date of the task written on ``line``: its due date, else its scheduled date,
    read from the line and from the Logseq planning lines (``DEADLINE: <...>``) that open
    the ``following`` lines; None when it has neither, or only dates no calendar has."""
    texts = [line, *takewhile(_PLANNING.match, following)]
    kinds: tuple[tuple[Literal["due", "scheduled"], tuple[re.Pattern[str], ...]], ...] = (
        ("due", _DUE),
        ("scheduled", _SCHEDULED),
    )
    for kind, patterns in kinds:
        for text in texts:
            for pattern in patterns:
                for found in pattern.finditer(text):
                    day = _day(found.group("day"))
                    if day is not None:
                        return TaskDate(day, kind)
    return None


def dated_open_tasks(text: str) -> list[DatedTask]:
    """The open tasks of a chunk's ``text`` (:func:`~notecite.retrieve.tasks.open_tasks`)
    that have a date, in order."""
    lines = text.split("\n")
    found: list[DatedTask] = []
    for task in open_tasks(text):
        when = task_date(lines[task.index], lines[task.index + 1 : task.index + 3])
        if when is not None:
            found.append(DatedTask(task, when))
    return found


def without_date_marks(text: str) -> str:
    """A task's ``text`` without the dates it writes (``📅 2026-12-04``, ``[due::
    2026-12-04]``, ``due 2026-12-04``), for an answer that says its date in words."""
    for mark in _DATE_MARKS:
        text = mark.sub(" ", text)
    return " ".join(text.split())
