"""Calendar dates in the ways notes and answers write them, as one term: ``2022-06-14``.

A daily note is named ``2024-01-15.md`` and a release note ``changelog.release.2022-06-14``,
while the model writes "January 15, 2024" or "14 June 2022". Grounding compares a claim's
terms with a line's; the date has to be one term on both sides for that to work.
"""

from __future__ import annotations

import re
from datetime import date

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
_MONTH = rf"({'|'.join(_MONTH_NAMES)})[a-z]*\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_ISO = re.compile(r"(?<!\d)(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?!\d)")
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+(\d{{4}})\b", re.IGNORECASE)
_DAY_FIRST = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", re.IGNORECASE)


def _canonical(year: str, month: int, day: str) -> str | None:
    try:
        return date(int(year), month, int(day)).isoformat()
    except ValueError:
        return None


def find_dates(text: str) -> tuple[list[str], str]:
    """The dates of ``text`` as ``YYYY-MM-DD``, and ``text`` with each date's span blanked (so
    its day and year are not read again as numbers of their own)."""
    found: list[str] = []

    def keep(value: str | None, span: str) -> str:
        if value is None:
            return span
        found.append(value)
        return " "

    text = _ISO.sub(lambda m: keep(_canonical(m[1], int(m[3]), m[4]), m[0]), text)
    text = _MONTH_FIRST.sub(
        lambda m: keep(_canonical(m[3], _MONTHS[m[1].lower()], m[2]), m[0]), text
    )
    text = _DAY_FIRST.sub(lambda m: keep(_canonical(m[3], _MONTHS[m[2].lower()], m[1]), m[0]), text)
    return found, text


_MONTH_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{4}})\b", re.IGNORECASE)


def days_named(text: str) -> list[date]:
    """The days ``text`` names: each date, and each month named with its year as its first
    day ("January 2027": 2027-01-01)."""
    found, rest = find_dates(text)
    days = [date.fromisoformat(value) for value in found]
    days.extend(
        date(int(m[2]), _MONTHS[m[1].lower()], 1)
        for m in _MONTH_YEAR.finditer(rest)
        if 1 <= int(m[2]) <= 9999
    )
    return days
