"""The answer to a question that asks which notes a scope holds, or what is still to do.

"What notes are tagged #baking?" is answered by the notes tagged #baking, not by any one
line of them (:mod:`notecite.retrieve.listing` tells such a question). The answer names
how many notes the scope holds and lists the newest of them by title, one a line, each
cited by its own source id, with the first line of its text (a gist of what it is about).
"What are my open todos?" (:mod:`notecite.retrieve.tasks`) is answered by the open tasks
of the notes, newest notes first, each cited at its own line, and "What's due this week?"
(:mod:`notecite.retrieve.due_window`) by those dated then, by date; "Which notes link to the PG16
upgrade?" (:mod:`notecite.retrieve.backlinks`) by the notes that link to it, newest first,
each cited at the line of its link; "Which notes mention Kasia?"
(:mod:`notecite.retrieve.mentioning`) by the notes whose text holds it, newest first, each
cited at its first line that does. No model writes any of them, so nothing in them can be
unsupported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from notecite.generate.answer import CitedAnswer
from notecite.generate.base import ContextSource
from notecite.generate.context import ContextPiece
from notecite.generate.grounding import SupportLine
from notecite.retrieve.backlinks import LinkedTo
from notecite.retrieve.due_window import DueWindow, day_words, tasks_due
from notecite.retrieve.listing import Listing
from notecite.retrieve.mentioning import around_mention, first_mention
from notecite.retrieve.task_dates import TaskDate, dated_open_tasks, without_date_marks
from notecite.retrieve.tasks import TASKS_LISTED_AT_MOST, OpenTask, mentions_owner, open_tasks

GIST_CHARS = 100
"""The longest line of a note a listing shows beside its name."""

_LIST_MARK = re.compile(r"^(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_WIKILINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_MARKER = re.compile(r"\[N\d+\]")  # a citation marker a note writes is no citation here


def _name(piece: ContextPiece) -> str:
    """The note's title, or its file name without the extension."""
    return " ".join(piece.title.split()) or PurePosixPath(piece.rel_path).stem


def plain_line(line: str) -> str:
    """A line of a note as plain words: list marks, checkboxes, emphasis and link brackets
    dropped (``- [ ] Ring [[priya|Priya]] **today**`` -> ``Ring Priya today``)."""
    line = _LIST_MARK.sub("", line.strip())
    line = _WIKILINK.sub(lambda m: m.group(2) or m.group(1), line)
    line = _LINK.sub(r"\1", line)
    return " ".join(line.replace("**", "").replace("__", "").split())


def _cut(line: str) -> str:
    """``line`` cut at a word under :data:`GIST_CHARS`."""
    if len(line) <= GIST_CHARS:
        return line
    return line[:GIST_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + " \u2026"


def gist(text: str) -> str:
    """The first line of a note's text that is not a heading, a rule or a table, as plain
    words (:func:`plain_line`), cut at a word under :data:`GIST_CHARS`; "" when there is
    none."""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "|", "```", "---", "![", "<")):
            continue
        line = plain_line(line)
        if any(c.isalnum() for c in line):
            return _cut(line)
    return ""


def listing_text(notes: Sequence[tuple[str, str]], scope: str, total: int) -> str:
    """ "3 notes tagged #baking:" and one line per (name, gist), each cited ``[Nk]`` in
    order."""
    noun = "note" if total == 1 else "notes"
    head = f"{total} {noun} {scope}".rstrip()
    if len(notes) < total:
        head += f"; the {len(notes)} newest"
    return "\n".join([f"{head}:", *_note_lines(notes)])


def _note_lines(notes: Sequence[tuple[str, str]]) -> list[str]:
    """One line per (note name, what it says), each cited ``[Nk]`` in order: "- Slow Bread:
    About fermentation time. [N1]" (a citation marker the note writes left out)."""
    plain = [
        (_MARKER.sub("", name).strip(), _MARKER.sub("", about).strip()) for name, about in notes
    ]
    return [
        f"- {name}: {about} [N{i}]" if about else f"- {name} [N{i}]"
        for i, (name, about) in enumerate(plain, start=1)
    ]


def _source(cid: str, piece: ContextPiece, text: str, line_start: int) -> ContextSource:
    """``piece``'s note as source ``cid``, showing ``text`` from ``line_start``."""
    return ContextSource(
        cid=cid,
        vault=piece.vault,
        rel_path=piece.rel_path,
        heading_path=piece.heading_path,
        text=text,
        line_start=line_start,
        title=piece.title,
    )


def listing_answer(pieces: Sequence[ContextPiece], scope: str, total: int) -> CitedAnswer:
    """The listing of the notes ``pieces`` stand for (one piece a note, newest first; the
    scope holds ``total`` notes in all) as an answer citing each of them."""
    sources = tuple(
        _source(f"N{i}", p, p.text, p.line_start) for i, p in enumerate(pieces, start=1)
    )
    return CitedAnswer(
        text=listing_text(
            [(_name(p), gist(p.text)) for p in pieces], scope, max(total, len(pieces))
        ),
        outcome="answered",
        sources=sources,
        members={s.cid: [p.index] for s, p in zip(sources, pieces, strict=True)},
        cited=tuple(s.cid for s in sources),
    )


def tasks_text(
    tasks: Sequence[tuple[str, str]],
    scope: str,
    total: int,
    window: DueWindow | None = None,
    after: bool = True,
) -> str:
    """ "3 open tasks in your notes:" and one line per (task, where it is: its note's name,
    with ``window`` its date too), each cited ``[Nk]`` in order. With a ``window``, the
    head says it ("2 open tasks due this week (30 Nov - 6 Dec 2026):", "3 overdue open
    tasks:", "4 open tasks with a date:"); with ``total`` 0, that none is, and names the
    one task listed as the next one after the window (``after``) or the last before it;
    "No open task in your notes has a due date." when none is listed either."""
    lines = [
        f"- {_MARKER.sub('', task).strip()} ({_MARKER.sub('', where).strip()}) [N{i}]"
        for i, (task, where) in enumerate(tasks, start=1)
    ]
    return "\n".join([_tasks_head(len(tasks), scope, total, window, after), *lines])


def _tasks_head(shown: int, scope: str, total: int, window: DueWindow | None, after: bool) -> str:
    """The first line of :func:`tasks_text`."""
    noun = "open task" if total == 1 else "open tasks"
    where = f" {scope}" if scope else ""
    if window is not None and total == 0:
        if not shown:
            return f"No open task{where or ' in your notes'} has a due date."
        return f"No open task{where} is {window.said}. " + (
            "The next one:" if after else "The last one before then:"
        )
    if window is None:
        head, order = f"{total} {noun} {scope or 'in your notes'}", "newest notes first"
    elif window.kind == "overdue":
        head, order = f"{total} overdue {noun}{where}", "soonest first"
    else:
        head, order = f"{total} {noun}{where} {window.said}", "soonest first"
    if shown < total:
        head += f"; the first {shown}, {order}"
    return f"{head}:"


def _listed_tasks(
    pieces: Sequence[ContextPiece], owners: Sequence[str], window: DueWindow | None
) -> tuple[list[tuple[ContextPiece, OpenTask, TaskDate | None]], bool]:
    """The open tasks of ``pieces`` that name one of ``owners`` (any, when empty), each with
    its date (None for one with none), in the order an answer lists them: with no
    ``window``, as the pieces hold them; with one, those dated within it by date (the pieces
    come newest notes first), or when none is, the dated task nearest it alone. And whether
    that one is after the window."""
    if window is None:  # each with its date, when it has one
        listed: list[tuple[ContextPiece, OpenTask, TaskDate | None]] = []
        for piece in pieces:
            dates = {t.task.index: t.date for t in dated_open_tasks(piece.text)}
            listed.extend(
                (piece, task, dates.get(task.index))
                for task in open_tasks(piece.text)
                if mentions_owner(task.text, owners)
            )
        return listed, True
    within = [(piece, t) for piece in pieces for t in tasks_due(piece.text, window, owners)]
    within.sort(key=lambda item: item[1].date.day)
    if not within:
        dated = [
            (piece, t)
            for piece in pieces
            for t in dated_open_tasks(piece.text)
            if mentions_owner(t.task.text, owners)
        ]
        nearest = window.nearest(t.date.day for _, t in dated)
        within = [next(item for item in dated if item[1].date.day == nearest)] if nearest else []
        after = nearest is None or window.until is None or nearest >= window.until
        return [(piece, t.task, t.date) for piece, t in within], after
    return [(piece, t.task, t.date) for piece, t in within], True


def tasks_answer(
    pieces: Sequence[ContextPiece],
    scope: str,
    total: int,
    at_most: int,
    owners: Sequence[str] = (),
    window: DueWindow | None = None,
) -> CitedAnswer:
    """The open tasks of ``pieces`` (chunks, newest notes first; the scope holds ``total``
    tasks in all) that name one of ``owners`` (any, when empty), at most ``at_most``, each
    a source of its own cited at its line; with a ``window``, those dated within it, by
    date, each with its date and without the marks that write it (``📅 2026-12-04``)."""
    sources: list[ContextSource] = []
    members: dict[str, list[int]] = {}
    support: dict[str, SupportLine] = {}
    listed: list[tuple[str, str]] = []
    tasks, after = _listed_tasks(pieces, owners, window)
    for piece, task, when in tasks[:at_most]:
        lines = piece.text.split("\n")
        cid = f"N{len(sources) + 1}"
        line = piece.line_start + task.index if piece.line_start else 0
        sources.append(_source(cid, piece, lines[task.index], line))
        members[cid] = [piece.index]
        support[cid] = SupportLine(cid, lines[task.index].strip(), line, 1.0)
        words = _cut(plain_line(without_date_marks(task.text) if when else task.text))
        where = f"{when.kind} {day_words(when.day)}; {_name(piece)}" if when else _name(piece)
        listed.append((words, where))
    count = total if window is not None else max(total, len(listed))
    return CitedAnswer(
        text=tasks_text(listed, scope, count, window, after),
        outcome="answered",
        sources=tuple(sources),
        members=members,
        cited=tuple(s.cid for s in sources),
        support=support,
    )


def backlinks_text(
    notes: Sequence[tuple[str, str, int]], name: str, scope: str, total: int, unread: int
) -> str:
    """ "2 notes link to PG16 upgrade:" and one line per (note name, its link's line, links
    it makes), each cited ``[Nk]`` in order; "No note links to PG16 upgrade [N1]." when
    ``total`` is 0 (the note itself is N1). A closing line says how many notes were indexed
    before links were recorded, when any was."""
    name = _MARKER.sub("", name).strip()
    where = f" {scope}" if scope else ""
    if total == 0:
        lines = [f"No note{where} links to {name} [N1]."]
    else:
        verb = "links" if total == 1 else "link"
        head = f"{total} {'note' if total == 1 else 'notes'}{where} {verb} to {name}"
        if len(notes) < total:
            head += f"; the {len(notes)} newest"
        said = [
            (
                _MARKER.sub("", title).strip() + (f" ({links} links)" if links > 1 else ""),
                _cut(plain_line(line)),
            )
            for title, line, links in notes
        ]
        lines = [f"{head}:", *_note_lines(said)]
    if unread:
        noun = "note was" if unread == 1 else "notes were"
        lines.append(
            f"({unread} {noun} indexed before notecite recorded links; their links are "
            "known after the next `notecite index`.)"
        )
    return "\n".join(lines)


def backlinks_answer(
    pieces: Sequence[ContextPiece], linked_to: LinkedTo, scope: str, total: int
) -> CitedAnswer:
    """The notes ``pieces`` stand for (one piece a linking note, newest first; ``total``
    link to the note in all), each a source cited at the line of its link; with ``total``
    0, the one piece is the note linked to, cited as it is."""
    if total == 0:
        (piece,) = pieces
        source = _source("N1", piece, piece.text, piece.line_start)
        return CitedAnswer(
            text=backlinks_text([], linked_to.name, scope, 0, linked_to.unread),
            outcome="answered",
            sources=(source,),
            members={"N1": [piece.index]},
            cited=("N1",),
        )
    sources: list[ContextSource] = []
    support: dict[str, SupportLine] = {}
    listed: list[tuple[str, str, int]] = []
    for i, (piece, line, quote, links) in enumerate(
        zip(pieces, linked_to.lines, linked_to.quotes, linked_to.links, strict=True), start=1
    ):
        cid = f"N{i}"
        sources.append(_source(cid, piece, quote, line))
        support[cid] = SupportLine(cid, quote, line, 1.0)
        listed.append((_name(piece), quote, links))
    return CitedAnswer(
        text=backlinks_text(listed, linked_to.name, scope, total, linked_to.unread),
        outcome="answered",
        sources=tuple(sources),
        members={s.cid: [p.index] for s, p in zip(sources, pieces, strict=True)},
        cited=tuple(s.cid for s in sources),
        support=support,
    )


def mentions_text(notes: Sequence[tuple[str, str]], thing: str, scope: str, total: int) -> str:
    """ "2 notes mention "Kasia":" and one line per (note name, its first line that holds
    it), each cited ``[Nk]`` in order."""
    thing = _MARKER.sub("", thing).strip()
    where = f" {scope}" if scope else ""
    verb = "mentions" if total == 1 else "mention"
    head = f'{total} {"note" if total == 1 else "notes"}{where} {verb} "{thing}"'
    if len(notes) < total:
        head += f"; the {len(notes)} newest"
    said = [
        (title, _cut(around_mention(plain_line(line), thing, GIST_CHARS))) for title, line in notes
    ]
    return "\n".join([f"{head}:", *_note_lines(said)])


def mentions_answer(
    pieces: Sequence[ContextPiece], thing: str, scope: str, total: int
) -> CitedAnswer:
    """The notes ``pieces`` stand for (one piece a note that mentions ``thing``, newest
    first; ``total`` mention it in all), each a source cited at its first line that holds
    ``thing`` (:func:`~notecite.retrieve.mentioning.first_mention`)."""
    sources: list[ContextSource] = []
    support: dict[str, SupportLine] = {}
    listed: list[tuple[str, str]] = []
    for i, piece in enumerate(pieces, start=1):
        cid = f"N{i}"
        lines = piece.text.split("\n")
        index = first_mention(piece.text, thing, piece.properties) or 0
        line = piece.line_start + index if piece.line_start else 0
        sources.append(_source(cid, piece, lines[index], line))
        support[cid] = SupportLine(cid, lines[index].strip(), line, 1.0)
        listed.append((_name(piece), lines[index]))
    return CitedAnswer(
        text=mentions_text(listed, thing, scope, max(total, len(listed))),
        outcome="answered",
        sources=tuple(sources),
        members={s.cid: [p.index] for s, p in zip(sources, pieces, strict=True)},
        cited=tuple(s.cid for s in sources),
        support=support,
    )


def listed_answer(pieces: Sequence[ContextPiece], listing: Listing) -> CitedAnswer:
    """The answer ``listing`` asks for: the open tasks of ``pieces``, the notes linking to
    a note, the notes mentioning something, or the notes they stand for."""
    if listing.linked_to is not None:
        return backlinks_answer(pieces, listing.linked_to, listing.scope, listing.total)
    if listing.mentioned is not None:
        return mentions_answer(pieces, listing.mentioned, listing.scope, listing.total)
    if listing.tasks:
        return tasks_answer(
            pieces, listing.scope, listing.total, TASKS_LISTED_AT_MOST, listing.owners, listing.due
        )
    return listing_answer(pieces, listing.scope, listing.total)
