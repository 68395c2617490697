"""Units a question spells out and notes abbreviate: "How many kilometres do I cover?"
over "transect:: 6.2 km".

Notes write a measure as a number and a unit's symbol ("6.2 km", "68 cm", "4 kg", "20
min"); a question spells the unit out. The word is then in no note, so the full-text search
cannot match the line, and the answerability gate counts a word of the question that no
note holds as a sign of a near miss. :func:`abbreviation` gives the symbol a spelled-out
unit is written as; the question is searched with it (:mod:`notecite.retrieve.implied`) and
the gate counts the word as held when a note holds its symbol.
"""

from __future__ import annotations

import re

_SYMBOLS = {
    "kilometre": "km",
    "kilometer": "km",
    "centimetre": "cm",
    "centimeter": "cm",
    "millimetre": "mm",
    "millimeter": "mm",
    "kilogram": "kg",
    "kilogramme": "kg",
    "kilo": "kg",
    "minute": "min",
}
_UNIT = re.compile(rf"\b({'|'.join(_SYMBOLS)})s?\b", re.IGNORECASE)


def abbreviation(word: str) -> str | None:
    """The symbol notes write a spelled-out unit as ("kilometres": "km"), or None."""
    found = _UNIT.fullmatch(word.strip())
    return _SYMBOLS[found.group(1).lower()] if found else None


_QUANTITY = re.compile(r"\d[\d.,]*\s*(?:-\s*)?$")


def abbreviations(text: str) -> tuple[str, ...]:
    """The symbols of the units ``text`` spells out, once each, in order ("6.2 kilometres":
    "km", as the line that says it writes it)."""
    return tuple(dict.fromkeys(_SYMBOLS[m.group(1).lower()] for m in _UNIT.finditer(text)))


def asked_abbreviations(question: str) -> tuple[str, ...]:
    """The symbols of the units ``question`` asks a measure in ("How many kilometres
    ...?"), once each, in order; not those of a quantity it states ("a chicken of 1.6
    kilos": the notes' other weights are no answer to it)."""
    return tuple(
        dict.fromkeys(
            _SYMBOLS[m.group(1).lower()]
            for m in _UNIT.finditer(question)
            if not _QUANTITY.search(question[: m.start()])
        )
    )
