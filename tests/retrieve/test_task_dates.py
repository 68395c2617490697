"""A task's date as Obsidian Tasks, Dataview, plain words and Logseq write it."""

from __future__ import annotations

from datetime import date

import pytest

from notecite.retrieve.task_dates import (
    TaskDate,
    dated_open_tasks,
    task_date,
    without_date_marks,
)

DUE = TaskDate(date(2026, 3, 20), "due")
SCHEDULED = TaskDate(date(2026, 3, 18), "scheduled")


@pytest.mark.parametrize(
    ("line", "following", "expected"),
    [
        ("- [ ] Order the felt roof \U0001f4c5 2026-03-20", (), DUE),
        ("- [ ] Order the felt roof \U0001f4c5\ufe0f 2026-03-20 \U0001f501 every week", (), DUE),
        ("- [ ] Order the felt roof \u23f3 2026-03-18", (), SCHEDULED),
        ("- [ ] Order the felt roof [due:: 2026-03-20]", (), DUE),
        ("- [ ] Order the felt roof (due:: 2026-03-20)", (), DUE),
        ("- [ ] Order the felt roof due:: 2026-03-20", (), DUE),
        ("- [ ] Order the felt roof [due:: 2026-03-20T09:30]", (), DUE),
        ("- [ ] Order the felt roof [scheduled:: 2026-03-18]", (), SCHEDULED),
        ("- [ ] Order the felt roof due 2026-03-20", (), DUE),
        ("- [ ] Order the felt roof, Due: 2026-03-20", (), DUE),
        ("- [ ] Order the felt roof (due 2026-03-20)", (), DUE),
        ("- TODO Order the felt roof", ("  DEADLINE: <2026-03-20 Fri>",), DUE),
        ("- TODO Order the felt roof", ("  SCHEDULED: <2026-03-18 Wed 10:00>",), SCHEDULED),
        # Logseq writes both, scheduled first: the due date wins
        (
            "- TODO Order the felt roof",
            ("  SCHEDULED: <2026-03-18 Wed>", "  DEADLINE: <2026-03-20 Fri .+1w>"),
            DUE,
        ),
        # a due date wins over a scheduled one written before it
        ("- [ ] Order the felt roof \u23f3 2026-03-18 \U0001f4c5 2026-03-20", (), DUE),
        # a date no calendar has is none: the scheduled one is the task's date
        ("- [ ] Order the felt roof \U0001f4c5 2026-02-30 \u23f3 2026-03-18", (), SCHEDULED),
    ],
)
def test_a_tasks_date(line: str, following: tuple[str, ...], expected: TaskDate) -> None:
    assert task_date(line, following) == expected


@pytest.mark.parametrize(
    ("line", "following"),
    [
        ("- [ ] Order the felt roof", ()),
        ("- [ ] Order the felt roof due next week", ()),  # plain words: ISO dates only
        ("- [ ] Order the felt roof due 20 March", ()),
        ("- [ ] Order the felt roof \U0001f4c5 2026-13-01", ()),
        ("- [ ] Order the felt roof [due:: 2026-02-29]", ()),  # 2026 has no 29 February
        ("- [ ] Order the felt roof, overdue 2026-03-20", ()),
        ("- [ ] Order the felt roof \u2705 2026-03-20", ()),  # the day it was done
        ("- [ ] Order the felt roof \U0001f6eb 2026-03-20", ()),  # the day it may start
        ("- [ ] Order the felt roof", ("  Ask Ed first", "  DEADLINE: <2026-03-20 Fri>")),
        ("- [ ] Order the felt roof", ("- [ ] Paint it \U0001f4c5 2026-03-20",)),
    ],
)
def test_no_date(line: str, following: tuple[str, ...]) -> None:
    assert task_date(line, following) is None


def test_the_dated_open_tasks_of_a_chunk() -> None:
    text = "\n".join(
        [
            "# Garden shed",
            "- [ ] Order the felt roof \U0001f4c5 2026-03-20",
            "- [x] Buy screws \U0001f4c5 2026-03-01",
            "- [ ] Paint it",
            "- TODO Ring the council",
            "  DEADLINE: <2026-03-18 Wed>",
            "```",
            "- [ ] a code sample \U0001f4c5 2026-03-19",
            "```",
        ]
    )
    assert [(t.task.index, t.task.text, t.date) for t in dated_open_tasks(text)] == [
        (1, "Order the felt roof \U0001f4c5 2026-03-20", DUE),
        (4, "Ring the council", TaskDate(date(2026, 3, 18), "due")),
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Order the felt roof \U0001f4c5 2026-03-20", "Order the felt roof"),
        (
            "Order the felt roof \u23f3 2026-03-18 \U0001f4c5 2026-03-20 #shed",
            "Order the felt roof #shed",
        ),
        ("Order the felt roof [due:: 2026-03-20] for Ed", "Order the felt roof for Ed"),
        ("Order the felt roof (scheduled:: 2026-03-18)", "Order the felt roof"),
        ("Order the felt roof due:: 2026-03-20", "Order the felt roof"),
        ("Order the felt roof (due 2026-03-20)", "Order the felt roof"),
        ("Order the felt roof due: 2026-03-20", "Order the felt roof"),
        ("Pay what is due before the roof", "Pay what is due before the roof"),
    ],
)
def test_a_tasks_words_without_its_dates(text: str, words: str) -> None:
    assert without_date_marks(text) == words
