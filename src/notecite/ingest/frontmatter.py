"""YAML frontmatter: split it off a markdown note and read the keys notecite uses."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any

import yaml

from notecite.errors import ParseError

_DELIM = re.compile(r"^(---|\.\.\.)[ \t]*$")


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, int]:
    """Return (frontmatter, body, number of lines before the body).

    Raises:
        ParseError: the YAML is invalid or is not a mapping.
    """
    if not text.startswith("---"):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, 0
    for i in range(1, len(lines)):
        if _DELIM.match(lines[i]):
            raw = "\n".join(lines[1:i])
            try:
                data = yaml.safe_load(raw) if raw.strip() else {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" at line {mark.line + 2}" if mark is not None else ""
                problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
                raise ParseError(f"invalid YAML frontmatter{where}: {problem}") from exc
            if data is None:
                data = {}
            _check_expanded_size(data)
            if not isinstance(data, dict):
                raise ParseError(
                    f"frontmatter is a {type(data).__name__}, expected key: value pairs"
                )
            return {str(k): v for k, v in data.items()}, "\n".join(lines[i + 1 :]), i + 1
    raise ParseError("frontmatter opened with '---' but never closed")


def frontmatter_end(lines: Sequence[str]) -> int:
    """The number of a note's lines up to and including its frontmatter's closing fence
    (0 when the note has no frontmatter, or one never closed): the frontmatter's own lines
    are ``lines[1 : end - 1]``."""
    if not lines or lines[0].strip() != "---":
        return 0
    return next((i + 1 for i in range(1, len(lines)) if _DELIM.match(lines[i])), 0)


# YAML aliases share one object between many places; expanded (as JSON, as text) a few lines
# of "billion laughs" become billions of values. Frontmatter past this many values, or one
# that contains itself, is refused as a ParseError instead of hanging or crashing a run.
MAX_FRONTMATTER_VALUES = 20_000


def _check_expanded_size(data: object) -> None:
    """Raise ParseError when ``data`` is recursive or too large once aliases are expanded."""
    sizes: dict[int, int] = {}
    open_: set[int] = set()

    def size(value: object) -> int:
        if not isinstance(value, dict | list):
            return 1
        key = id(value)
        if key in sizes:
            return sizes[key]
        if key in open_:
            raise ParseError("frontmatter contains itself (a recursive YAML alias)")
        open_.add(key)
        children = list(value.keys()) + list(value.values()) if isinstance(value, dict) else value
        total = 1
        for child in children:
            total += size(child)
            if total > MAX_FRONTMATTER_VALUES:
                raise ParseError(
                    f"frontmatter holds more than {MAX_FRONTMATTER_VALUES} values once its "
                    "YAML aliases are expanded"
                )
        open_.discard(key)
        sizes[key] = total
        return total

    size(data)


def to_json_safe(data: dict[str, Any]) -> dict[str, Any]:
    """Frontmatter as JSON-compatible data (dates become ISO strings)."""
    result: dict[str, Any] = json.loads(json.dumps(data, default=_json_default))
    return result


def _json_default(value: object) -> str:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def parse_date(value: object) -> datetime | None:
    """A frontmatter date: ISO string, YAML date/datetime, or epoch seconds/milliseconds."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, int | float):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return parse_date(int(text))
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def as_keywords(value: object) -> tuple[str, ...]:
    """``tags``/``keywords`` as a tuple of strings (list, or comma/space separated string)."""
    if value is None:
        return ()
    if isinstance(value, str):
        parts = re.split(r"[,\s]+", value)
        return tuple(p.lstrip("#") for p in parts if p.strip("#"))
    if isinstance(value, list | tuple):
        return tuple(str(v).lstrip("#") for v in value if v is not None and str(v).strip())
    return (str(value),)


def first_str(data: dict[str, Any], *keys: str) -> str:
    """The first of ``keys`` whose value is a non-empty scalar, as a string."""
    for key in keys:
        value = data.get(key)
        if value is not None and not isinstance(value, dict | list) and str(value).strip():
            return str(value).strip()
    return ""
