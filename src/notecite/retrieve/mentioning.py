"""A question that asks which notes mention something: "Which notes mention Kasia?".

Obsidian's search answers it with the notes that hold the words; a search ranked by meaning
finds a few chunks, quotes a table row, or abstains when no chunk is about the words alone
("Where do I mention GopherCon?"). Such a question is answered from the notes of its scope
whose text holds the words, newest first, each cited at its first line that holds them, with
no search and no model call (:mod:`notecite.generate.listing`). When no note holds them the
question is searched as any other.

Only a question that asks nothing else takes this path (:func:`asked_mention`): "Which notes
mention / talk about / are about / discuss / cover / say something about X?", "Where do I
mention X?", "Where did I write about X?", "Find notes mentioning X", "Show me notes that
mention 'X'". A question about a fact ("Which note says when the boiler was serviced?",
"What did Kasia say about the hotel?") or about the tool ("How do I mention someone?") is
searched.

A note holds X (:func:`first_mention`) where a line of its text holds X's words one after
the other as whole words, in any case, with or without accents ("Jose" is in "José"), with
any punctuation or spaces between them ("pg16 main" is in "pg16-main"), the last one
perhaps with a plural ending ("boilers" for "boiler"): "Kasia" is not in "Kasiak". The
store finds the chunks by its full-text index (``Store.chunks_mentioning``, which reads
words the same way on SQLite and PostgreSQL), and each line is checked here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from notecite.retrieve.terms import asked_part, fold, without_written

MENTIONS_LISTED_AT_MOST = 15
"""The notes a mentions answer names; it says how many more hold the words."""

MENTION_CHUNKS_AT_MOST = 2000
"""The chunks holding the words that are read for one question (newest notes first): the
count an answer gives is of the notes among these."""

WORDS_AT_MOST = 6
"""The most words a thing asked about may have: more read as a question to search."""

# "tagged" is left where a tag written after it was cut ("Which notes tagged #home mention X?")
_NOTES = (
    r"(?:notes?|pages?|files?|documents?|entries|journal\s+entries)"
    r"(?:\s+tagged(?:\s+with)?|\s+with\s+the\s+tags?)?"
)
_VERB = (
    r"(?:mention(?:s|ed)?"
    r"|(?:talk|talks|talked|write|writes|wrote|written|say|says|said)\s+"
    r"(?:(?:something|anything|a\s+lot)\s+)?about"
    r"|(?:are|is)\s+(?:all\s+)?about"
    r"|discuss(?:es|ed)?|cover(?:s|ed)?)"
)
_VERB_ING = r"(?:mentioning|talking\s+about|discussing|covering|about)"
_ASKS = [
    # Which notes mention X? / What notes talk about X? / In which notes do I mention X?
    re.compile(
        rf"^(?:in\s+)?(?:which|what)\s+(?:of\s+my\s+)?(?:other\s+)?{_NOTES}\s+"
        rf"(?:(?:do|did|have|else)\s+(?:i\s+)?)?{_VERB}\s+(?P<target>.+)$"
    ),
    # Where do I mention X? / Where did I write about X? / Where have I talked about X?
    re.compile(
        r"^(?:in\s+which\s+notes?\s+|where\s+(?:in\s+my\s+notes\s+)?)"
        r"(?:do|did|have)\s+i\s+(?:ever\s+)?"
        r"(?:mention(?:ed)?|(?:write|wrote|written|talk|talked|say|said)\s+"
        r"(?:(?:something|anything)\s+)?about)\s+(?P<target>.+)$"
    ),
    # Find notes mentioning X / Show me notes that mention X / List the notes about X
    re.compile(
        r"^(?:find|show|list|give|get|search)\s+(?:me\s+)?(?:all\s+)?(?:the\s+|my\s+)?"
        rf"{_NOTES}\s+(?:(?:that|which)\s+{_VERB}|{_VERB_ING})\s+(?P<target>.+)$"
    ),
]
_SCOPE_TAIL = re.compile(r"\s+(?:in|across|from)\s+(?:all\s+)?(?:my\s+|the\s+)?(?:notes?|vaults?)$")
_OPENING = re.compile(r"^(?:the|a|an|my|our)\s+", re.IGNORECASE)
_QUOTES = "\"'`\u201c\u201d\u2018\u2019*_[]"
# a clause, not a thing: "Which note says when the boiler was serviced?"
_CLAUSE = frozenset(
    """
    when where what which who whom whose why how whether if that this it them me anything
    something everything nothing
    """.split()  # noqa: SIM905 (a word list reads better as words)
)
_WORD = re.compile(r"[^\W_]+")


def asked_mention(question: str, filters: Sequence[str] = ()) -> str | None:
    """What ``question`` asks the notes mentioning of, as it writes it without an opening
    article, quotes or a closing "in my notes" ("Kasia", "boiler", "pg16-main"), once the
    ``filters`` written in it are cut out; None when it asks something else."""
    said = asked_part(without_written(question, filters), _ASKS)
    return None if said is None else _thing(said)


def _thing(said: str) -> str | None:
    """``said`` as the thing asked about, or None when it reads as a clause or a sentence."""
    said = _SCOPE_TAIL.sub("", said.strip())
    said = _OPENING.sub("", said.strip(_QUOTES).strip()).strip(_QUOTES).strip()
    words = _WORD.findall(said.lower())
    if not words or len(words) > WORDS_AT_MOST or words[0] in _CLAUSE:
        return None
    return said


def mention_pattern(thing: str) -> re.Pattern[str] | None:
    """The words of ``thing`` (without accents) one after the other as whole words, in any
    case, with anything but letters and digits between them, the last perhaps plural."""
    words = _WORD.findall(fold(thing).lower())
    if not words:
        return None
    inner = r"[\W_]+".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![^\W_]){inner}(?:e?s)?(?![^\W_])", re.IGNORECASE)


def first_mention(text: str, thing: str, above: int = 0) -> int | None:
    """The line (0-based) of ``text`` to cite as holding ``thing`` (:func:`mention_pattern`):
    the first such line that is not a heading, else the first heading; its first ``above``
    lines (the note's properties shown above a chunk) only when no other line holds it. None
    when no line does."""
    pattern = mention_pattern(thing)
    if pattern is None:
        return None
    held = [
        (index < above, line.lstrip().startswith("#"), index)
        for index, line in enumerate(text.split("\n"))
        if pattern.search(fold(line))
    ]
    return min(held)[2] if held else None


def around_mention(line: str, thing: str, width: int) -> str:
    """``line`` from a few words before its first mention of ``thing`` on, when the mention
    would be past ``width`` characters ("… heating in boiler-service."); else ``line``."""
    pattern = mention_pattern(thing)
    found = pattern.search(fold(line)) if pattern else None
    if found is None or found.end() <= width or len(fold(line)) != len(line):
        return line
    start = line.rfind(" ", 0, max(found.start() - width // 3, 0)) + 1
    return "\u2026 " + line[start:] if start else line
