"""A note's frontmatter as flat rows the stores index: one per key and value.

Both stores keep these rows next to the note (SQLite: the ``note_fields`` table; PostgreSQL:
the ``fm_text`` / ``fm_num`` / ``fm_ts`` JSONB columns), so that a filter is an index lookup,
not a parse of every note's JSON at query time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

TAG_KEYS = frozenset({"tags", "tag", "keywords"})
"""Keys whose values are tags: a leading ``#`` is dropped, a string is split at commas and
spaces (``tags: atlas, launch``), as Obsidian reads them."""

# Text longer than this is not kept for equality (a summary, not a label); the key still
# counts for ``has:``.
MAX_TEXT = 256

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_DATE_START = re.compile(r"^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True)
class Field:
    """One value of one frontmatter key.

    Attributes:
        key: the key, lower case.
        text: the value as lower-case text; None for a key with no scalar value (null, an
            empty list, a mapping), kept so that ``has:key`` still sees it.
        number: the value as a number, when it is one.
        ts: the value as a date (epoch seconds, UTC), when it reads as one.
    """

    key: str
    text: str | None
    number: float | None = None
    ts: float | None = None


def parse_when(text: str) -> float | None:
    """Epoch seconds (UTC) of an ISO date or date-time (``2024-01-31``,
    ``2024-01-31T09:00``), else None."""
    text = text.strip()
    if not _DATE_START.match(text):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def normalise_key(key: str) -> str:
    """A key as it is indexed and matched: stripped, lower case."""
    return key.strip().lower()


def normalise_text(key: str, value: str) -> str:
    """A text value as it is indexed and matched: stripped, lower case, a tag's ``#`` off."""
    text = value.strip().lower()
    return text.lstrip("#") if key in TAG_KEYS else text


def _epoch(number: float) -> float | None:
    """A number read as a date: epoch seconds or milliseconds (Dendron's ``created``)."""
    if number >= 1e11:
        return number / 1000
    return number if number >= 1e9 else None


def _scalar(key: str, value: object) -> Field | None:
    if value is None or isinstance(value, dict | list | tuple):
        return None
    if isinstance(value, bool):
        return Field(key, "true" if value else "false")
    if isinstance(value, int | float):
        return Field(key, normalise_text(key, str(value)), float(value), _epoch(float(value)))
    if isinstance(value, datetime | date):
        iso = value.isoformat()
        return Field(key, iso.lower(), None, parse_when(iso))
    text = normalise_text(key, str(value))
    if not text or len(text) > MAX_TEXT:
        return None
    number = float(text) if _NUMBER.match(text) else None
    return Field(key, text, number, parse_when(text))


def note_fields(frontmatter: Mapping[str, Any]) -> list[Field]:
    """The rows of one note's frontmatter: one per scalar value or list item of each key, or
    one valueless row for a key that holds none. Duplicates are dropped."""
    rows: list[Field] = []
    for raw_key, value in frontmatter.items():
        key = normalise_key(str(raw_key))
        if not key:
            continue
        items: list[object]
        if isinstance(value, list | tuple):
            items = list(value)
        elif isinstance(value, str) and key in TAG_KEYS:
            items = [p for p in re.split(r"[,\s]+", value) if p.strip("#")]
        else:
            items = [value]
        found = [f for f in (_scalar(key, item) for item in items) if f is not None]
        rows.extend(found or [Field(key, None)])
    return list(dict.fromkeys(rows))
