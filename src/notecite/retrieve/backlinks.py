"""A question that asks which notes link to a note: "Which notes link to the PG16 upgrade?".

Obsidian, Foam and Dendron show a note's backlinks; a search for the question's words
finds the note itself, or nothing, and the ask abstains. The links each note makes are
recorded when it is indexed (:mod:`notecite.ingest.links`), so such a question is answered
from them, each linking note cited at the line of its link, with no search and no model call
(:mod:`notecite.generate.listing`).

Only a question that asks nothing else takes this path: "Which notes link to X?", "What
links to [[x]]?", "Which notes point to / reference X?", "Backlinks of X". A question about
the tool ("How do I link to a heading?", "What is a backlink?", "How do I see backlinks in
VS Code?") names no note and is searched as any other.

The note is named as a vault names it (:func:`target_names`): by its file name in any folder
(a path narrows it), a Dendron dotted name (its file name), its title or an alias, in any
case; ``[[wikilink]]`` works as written. When no note is so named the question is searched.
When several are, the one whose path is shortest is meant (``[[index]]`` from the vault's
root). A link counts when its target names the note the same way (:func:`linked_by`), in
the note's own vault; a note's links to itself do not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.ingest.links import WIKILINK, link_target, names_of
from notecite.ingest.links import reads_as_target as _reads_as_target
from notecite.retrieve.terms import asked_part

LINKS_LISTED_AT_MOST = 15
"""The linking notes an answer names; it says how many more link to the note."""

LINK_LINES_AT_MOST = 1000
"""The link lines read for one question (newest notes first): the count is of these."""

TARGETS_TRIED_AT_MOST = 5
"""The notes named by the question's words among which the one meant is chosen."""

_VERB = (
    r"(?:have\s+(?:a\s+|any\s+)?links?\s+(?:to|into)"
    r"|link(?:s|ed|ing)?\s+(?:back\s+)?(?:to|into)"
    r"|(?:are|is)\s+link(?:ed|ing)\s+(?:back\s+)?to"
    r"|point(?:s|ing)?\s+(?:to|at)"
    r"|refer(?:s|red|ring)?\s+to"
    r"|(?:are|is)\s+referring\s+to"
    r"|reference(?:s|d)?"
    r"|(?:have|has)\s+backlinks?\s+to"
    r"|backlinks?\s+to)"
)
_SUBJECT = r"(?:(?:which|what)(?:\s+(?:other\s+)?(?:notes?|pages?|files?|documents?|entries))?)"
_ASKS = [
    # Which notes link to X? / What links to [[x]]? / Which notes point to my X note?
    re.compile(rf"^{_SUBJECT}\s+(?:(?:do|does|else)\s+)?{_VERB}\s+(?P<target>.+)$"),
    # Backlinks of X / Show me the backlinks to X / What are the backlinks for X?
    re.compile(
        r"^(?:(?:show|list|give|find|get)\s+(?:me\s+)?|what\s+are\s+|which\s+are\s+)?"
        r"(?:all\s+)?(?:the\s+)?backlinks?\s+(?:of|to|for|into)\s+(?P<target>.+)$"
    ),
    # List the notes that link to X / Show notes linking to X
    re.compile(
        r"^(?:show|list|give|find|get)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?"
        rf"(?:notes?|pages?|files?)\s+(?:that\s+|which\s+)?{_VERB}\s+(?P<target>.+)$"
    ),
]
_SCOPE_TAIL = re.compile(r"\s+(?:in|across|from)\s+(?:my\s+|the\s+)?(?:notes?|vaults?)$")
_OPENING = re.compile(r"^(?:the|my|our|this|that|a|an)\s+")
_NOUN = re.compile(r"\s+(?:note|page|file|entry|document)$")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019*_"


def asked_target(question: str) -> str | None:
    """The note ``question`` asks the backlinks of, as it says it ("the PG16 upgrade",
    "[[pg16-upgrade]]"), or None when it asks something else."""
    said = asked_part(question, _ASKS)
    if said is None:
        return None
    return _SCOPE_TAIL.sub("", said).strip() or None


def target_names(said: str) -> tuple[str, ...]:
    """The names (lower case) the note a question names as ``said`` may go by, best
    first: a ``[[wikilink]]``'s target as written; else the words without an opening
    article or "my" and a closing "note", as written and with ``-`` or ``_`` for spaces."""
    link = WIKILINK.search(said)
    if link:
        target, alias = link.group(1).strip(), link.group(3)
        if alias and _reads_as_target(alias.strip()) and not _reads_as_target(target):
            target = alias.strip()
        name = link_target(target)
        return (name,) if name else ()
    text = said.strip().strip(_QUOTES).strip()
    lowered = " ".join(text.lower().split())
    names = [lowered]
    bare = _NOUN.sub("", _OPENING.sub("", lowered))
    names.append(bare)
    names.append(_OPENING.sub("", lowered))
    words = [n for n in dict.fromkeys(names) if n]
    spelled = [w.replace(" ", sep) for w in words for sep in ("-", "_") if " " in w]
    return tuple(dict.fromkeys(link_target(n) for n in [*words, *spelled] if link_target(n)))


def linked_by(rel_path: str, title: str, aliases: Sequence[str]) -> tuple[str, ...]:
    """The link targets that name the note at ``rel_path`` with ``title`` and ``aliases``:
    its file name and each path ending with it, its title and its aliases (lower case)."""
    names = [*names_of(rel_path), link_target(title), *(link_target(a) for a in aliases)]
    return tuple(dict.fromkeys(n for n in names if n))


@dataclass(frozen=True)
class LinkedTo:
    """What a backlinks answer lists, beside the chunks of the linking notes.

    Attributes:
        name: the note linked to, as the answer names it (its title, else its file name).
        lines: for each linking note listed, in order, the line of its first link.
        quotes: those lines, as the index reads them.
        links: how many links each of them makes to the note.
        unread: notes of the scope indexed before links were recorded (none of their links
            is known until the next index run reads them again).
    """

    name: str
    lines: tuple[int, ...] = ()
    quotes: tuple[str, ...] = ()
    links: tuple[int, ...] = ()
    unread: int = 0
