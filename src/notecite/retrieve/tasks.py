"""A question that asks for what is still to do: "What are my open todos?".

People keep tasks in their notes as Markdown task items (``- [ ] Buy seed potatoes``, the
GitHub, Obsidian and Foam form) or as lines that start with ``TODO``. "What are my open
todos?" shares no word with any of them, so a search finds none and the ask abstains; the
unchecked items of the notes answer it. A question that asks for nothing but the open tasks
of a scope (its words, once a tag, filter or folder written in it is cut out, are only
stopwords and the words below) is answered with them, each cited at its line, with no
search and no model call (:mod:`notecite.generate.listing`). A question with one more word
("open tasks about the boiler", "What is a task note?") is searched as any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.ingest.code_regions import in_code
from notecite.retrieve.terms import POSSESSIVE_NAME, STOPWORDS, names_someone, without_written

TASKS_LISTED_AT_MOST = 20
"""The open tasks an answer names; it says how many more the scope holds."""

TASK_CHUNKS_AT_MOST = 500
"""The chunks holding an unchecked item that are read for one question (newest notes
first): the count an answer gives is of the tasks in these."""

TASK_MARKS = ("[ ]", "TODO")
"""Text every chunk holding an open task has (the store finds the chunks by it)."""

_TODO = re.compile(r"\bto[\s-]?dos?\b", re.IGNORECASE)  # todo, todos, to-do, to-dos, to do
_WORD = re.compile(r"[a-z0-9]+")
_TASK_NOUNS = frozenset({"todo", "task", "tasks", "item", "items", "action", "actions"})
_OPEN_WORDS = frozenset(
    """
    open unchecked unticked outstanding pending unfinished incomplete uncompleted remaining
    left undone haven hasn havent still yet
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_OTHER_WORDS = frozenset(
    """
    list lists show give tell find many number count all every everything anything
    need needs t s finished done complete completed checked ticked got have has mine
    across notes note vault vaults folder folders tagged tag tags
    """.split()  # noqa: SIM905
)

# "- [ ] Buy seed potatoes", "* [ ] ...", "1. [ ] ...": an unchecked Markdown task item
_UNCHECKED = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+\[ \]\s+(\S.*)$")
# "TODO: ring the plumber", "- TODO ring the plumber", a heading "## TODO Book the service"
# (org-mode's "* TODO ..." is read as one) (upper case only: "todo" in a sentence is a word,
# not a mark)
_TODO_LINE = re.compile(r"^\s*(?:[-*+]\s+|#{1,6}\s+)?TODO\b[:\s]\s*(\S.*)$")


@dataclass(frozen=True)
class OpenTask:
    """An open task of a chunk: its line (0-based, within the chunk's text) and its text."""

    index: int
    text: str


# "Dana's open action items", "todos for @dana": whose tasks the question asks for
_OWNER = re.compile(rf"{POSSESSIVE_NAME.pattern}|(?<![\w@])@(\w+)")


def task_owners(question: str) -> tuple[str, ...]:
    """The people ``question`` asks the tasks of ("Dana's", "@dana"), in lower case."""
    names = ((a or b).lower() for a, b in _OWNER.findall(question))
    return tuple(dict.fromkeys(n for n in names if names_someone(n)))


def without_owners(question: str) -> str:
    """``question`` without the people it names as the tasks' owners (:func:`task_owners`:
    "Dana's", "@dana"); "What's" and "Today's" are left as they are."""

    def cut(found: re.Match[str]) -> str:
        return " " if names_someone((found.group(1) or found.group(2)).lower()) else found.group(0)

    return _OWNER.sub(cut, question)


def mentions_owner(text: str, owners: Sequence[str]) -> bool:
    """Does a task's ``text`` name one of ``owners`` ("@dana", "Dana", "dana's")? Any task
    does when ``owners`` is empty."""
    return not owners or any(
        re.search(rf"(?<!\w)@?{re.escape(owner)}\b", text, re.IGNORECASE) for owner in owners
    )


def asks_for_open_tasks(question: str, filters: Sequence[str] = ()) -> bool:
    """Whether ``question`` asks for nothing but the open tasks (of the scope its ``filters``
    and folders give, of the people it names as their owners: :func:`task_owners`): it
    names them ("todos", "to-do list", "action items", or "tasks" with a word such as
    "open", "left", "unfinished", or as "my tasks"), and holds no other word than stopwords
    and the words of such a question."""
    question = _OWNER.sub(" ", without_written(question, filters))
    text = _TODO.sub(" todo ", question.lower().replace("\u2019", "'"))
    words = _WORD.findall(text)
    said = [w for w in words if w not in STOPWORDS]
    if not said or any(
        w not in _TASK_NOUNS and w not in _OPEN_WORDS and w not in _OTHER_WORDS for w in said
    ):
        return False
    if "todo" in said or ("action" in said and ("items" in said or "item" in said)):
        return True
    tasks = any(w in ("task", "tasks") for w in said)
    mine = re.search(r"\bmy\s+(?:\w+\s+)?tasks\b", text) is not None
    return tasks and (mine or any(w in _OPEN_WORDS for w in said))


def open_tasks(text: str) -> list[OpenTask]:
    """The open tasks of a chunk's ``text``: its unchecked task items and its lines that
    start with ``TODO``, outside fenced code blocks (a code sample's ``- [ ]`` is no task)."""
    found: list[OpenTask] = []
    lines = text.split("\n")
    for index, (line, code) in enumerate(zip(lines, in_code(lines), strict=True)):
        if code:
            continue
        task = _UNCHECKED.match(line) or _TODO_LINE.match(line)
        if task:
            found.append(OpenTask(index, task.group(1).strip()))
    return found
