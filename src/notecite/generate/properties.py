"""A note's properties (its YAML frontmatter) as lines the model may read.

People keep facts in a note's properties: a colleague's ``timezone:``, a book's
``rating:``, the ``people:`` at a meeting. The index reads a note's title, description and
tags from them, and the context showed the model none of them, so a question about one was
refused or answered from a look-alike line. Now the first of a note's chunks in the
context is given its properties as lines above its text, as the file writes them. The
evidence selection keeps a property only when the question names its key ("what timezone
is Tomasz in?") or a name, number or code its value holds (:mod:`notecite.generate.evidence`):
"the book I couldn't finish" does not show every book's ``status: finished``.

Left out: keys the prompt already shows or that say nothing about the note's subject
(:data:`HIDDEN_KEYS`: its id, title, tags, aliases, dates, publishing settings), properties with
no value or a yes/no one, times written as epoch numbers (Dendron's ``created:
1608221406236``), opaque ids (a document's id, a hash), and mappings (a tool's
settings). A property written over several lines (a list) is kept or left out whole; one
with a line over :data:`MAX_CHARS` is left out, and a note shows at most :data:`MAX_LINES`.
With ``ask.context = "chunks"`` the model reads whole chunks, and its first chunk with every
property shown.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

HIDDEN_KEYS = frozenset(
    {"id", "uid", "title", "tags", "tag", "keywords", "aliases", "alias", "desc", "description"}
    | {"date", "created", "updated", "modified"}
    | {"cssclass", "cssclasses", "publish", "permalink", "layout", "redirect_from"}
)
"""Keys whose values the prompt already shows (the title), that the index reads already
(tags, keywords, aliases, the description: a summary of what the note's text says; the
note's date, which dates it for recency and time filters: a question's "date" said in
passing showed every note's), or that only tell a tool where or how to show the note."""

# A top-level property: "key: value" at the line's start ("key:" alone opens a list or a
# mapping on the lines after it).
_PROPERTY = re.compile(r"^([A-Za-z_][\w .-]*?)\s*:(?:\s+(.*))?$")
_EPOCH = re.compile(r"^['\"]?\d{10,13}['\"]?$")
# an opaque id: one long run of letters, digits, "-" and "_" with a digit in it (a Google
# Docs id, a hash), which says nothing a question could ask about
_OPAQUE = re.compile(r"^['\"]?(?=[\w-]*\d)[\w-]{20,}['\"]?$")
MAX_LINES = 24
"""At most this many property lines are shown with a note (the first ones worth showing)."""
MAX_CHARS = 300
"""A property with a longer line (a pasted blob, an embedded document) is not shown."""
_NO_VALUE = frozenset({"", "''", '""', "[]", "{}", "null", "~", "true", "false", "yes", "no"})
_NESTED_KEY = re.compile(r"^\s+[\w.-]+\s*:")  # a mapping's key, under the one it belongs to


def _worth_showing(key: str, value: str, lines: Sequence[str]) -> bool:
    value = value.strip()
    if key.lower() in HIDDEN_KEYS or _EPOCH.match(value) or _OPAQUE.match(value):
        return False
    if any(_NESTED_KEY.match(line) for line in lines):  # settings for a tool, not a fact
        return False
    if len(value) > MAX_CHARS or any(len(line) > MAX_CHARS for line in lines):
        return False
    return bool(lines) or value.lower() not in _NO_VALUE


def split_property(line: str) -> tuple[str, str]:
    """A property's first line as (key, value); ("", line) for a line that goes on from
    one above (a list item)."""
    found = _PROPERTY.match(line)
    return (found.group(1), found.group(2) or "") if found is not None else ("", line)


def goes_on(line: str) -> bool:
    """Does ``line`` go on from the property above it (a list item, a nested line)?"""
    return line[:1] in (" ", "\t", "-")


def shown_properties(lines: Sequence[str]) -> list[int]:
    """The positions in ``lines`` (a frontmatter's lines, between its fences) of the
    properties worth showing, each with the lines it goes on over."""
    groups: list[tuple[str, str, list[int]]] = []  # key, value, positions
    for position, line in enumerate(lines):
        key, value = split_property(line)
        if key:
            groups.append((key, value, [position]))
        elif groups and line.strip() and goes_on(line):
            groups[-1][2].append(position)  # a list item or nested key of the one above
    shown = [
        position
        for key, value, positions in groups
        if _worth_showing(key, value, [lines[p] for p in positions[1:]])
        for position in positions
    ]
    return shown[:MAX_LINES]
