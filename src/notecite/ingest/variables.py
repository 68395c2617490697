"""Frontmatter variables written in a note's text, read as their values.

Dendron substitutes ``{{ fm.NAME }}`` with the note's frontmatter field ``NAME`` when it
previews or publishes a note, and its reference notes are written that way: a note on the
``enableSiteLastModified`` option says what it does in its frontmatter ``desc`` and shows it
under "## Description" as ``{{fm.desc}}``. A person reads the description there; so must the
search, the context and the citation, or the note's one sentence of meaning is lost.

A variable is replaced only where its field holds a scalar (text, number, true/false, date;
a nested one as ``fm.custom.shortcuts``); ``fm.created`` and ``fm.updated``, which Dendron
keeps as epoch milliseconds and shows as dates, are written as a date. Any other variable,
and every variable inside code (a note showing the syntax), stays as written. A value is
written on one line, so that every line keeps its number in the file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from notecite.ingest.code_regions import rewrite_prose
from notecite.ingest.frontmatter import parse_date

_VARIABLE = re.compile(r"\{\{\s*fm\.([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*\}\}")
_DATE_FIELDS = frozenset({"created", "updated"})


def _field(meta: Mapping[str, Any], name: str) -> object:
    """The value at the dotted ``name`` in ``meta`` (None when any step is missing)."""
    value: object = meta
    for key in name.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def _shown(name: str, value: object) -> str | None:
    """``value`` as the note shows it, or None when it is no scalar."""
    if name in _DATE_FIELDS:
        when = parse_date(value)
        return when.date().isoformat() if when is not None else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str | int | float):
        return " ".join(str(value).split())
    return None


def substitute_variables(text: str, meta: Mapping[str, Any]) -> str:
    """``text`` with each ``{{ fm.NAME }}`` outside code replaced by its frontmatter value."""
    if not meta:
        return text

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        shown = _shown(name, _field(meta, name))
        return match.group(0) if shown is None else shown

    return rewrite_prose(text, "{{", lambda prose: _VARIABLE.sub(value_of, prose))
