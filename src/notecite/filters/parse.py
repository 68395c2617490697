"""The filter language: text such as ``tags in [atlas, launch] and status!=draft`` to
:class:`~notecite.filters.model.Condition` values.

Grammar (conditions are joined by ``and``, ``&&`` or plain spaces; several expressions are
joined by AND too)::

    condition := "has:" KEY | "!has:" KEY | "-has:" KEY
               | KEY ("=" | ":" | "!=" | "^=") VALUE
               | KEY (">=" | "<=" | ">" | "<") DATE-OR-NUMBER
               | KEY ("in" | "not in") "[" VALUE ("," VALUE)* "]"
    VALUE     := a word without spaces, or text in "double" or 'single' quotes

A bad expression raises :class:`~notecite.errors.FilterError` naming the part that is wrong
and what was expected there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from notecite.errors import FilterError
from notecite.filters.fields import normalise_key, normalise_text, parse_when
from notecite.filters.model import COMPARISONS, Bound, Condition, Op

_KEY = re.compile(r"[^\W\d][\w.\-]*|_[\w.\-]*")
_SPACE = re.compile(r"\s+")
_JOIN = re.compile(r"(?:and|AND|And|&&)(?=\s|$)")
_OPS = ("!=", "^=", ">=", "<=", "=", ":", ">", "<")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")

MAX_FILTER_CHARS = 2000


class _Scanner:
    """Reads one expression left to right, with the position for error messages."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, expected: str) -> FilterError:
        found = self.text[self.pos : self.pos + 20]
        where = f"{found!r}" if found else "the end"
        return FilterError(
            f"bad filter {self.text!r}: at character {self.pos + 1} expected {expected}, "
            f"found {where}. Example: tags=atlas, tags in [atlas, launch], tags^=projects/, "
            "status!=draft, has:due, created>=2024-01-01"
        )

    def skip_space(self) -> None:
        match = _SPACE.match(self.text, self.pos)
        if match:
            self.pos = match.end()

    def done(self) -> bool:
        self.skip_space()
        return self.pos >= len(self.text)

    def take(self, literal: str) -> bool:
        if self.text.startswith(literal, self.pos):
            self.pos += len(literal)
            return True
        return False

    def key(self) -> str:
        match = _KEY.match(self.text, self.pos)
        if not match:
            raise self.fail("a frontmatter key (letters, digits, _ . -)")
        self.pos = match.end()
        return match.group()

    def value(self, stop: str = "") -> str:
        """A quoted or bare value; a bare one ends at a space or a character of ``stop``."""
        self.skip_space()
        if self.pos < len(self.text) and self.text[self.pos] in "\"'":
            quote = self.text[self.pos]
            end = self.text.find(quote, self.pos + 1)
            if end < 0:
                raise self.fail(f"a closing {quote}")
            value = self.text[self.pos + 1 : end]
            self.pos = end + 1
            return value
        start = self.pos
        while self.pos < len(self.text) and not (
            self.text[self.pos].isspace() or self.text[self.pos] in stop
        ):
            self.pos += 1
        if self.pos == start or self.text[start] in "[]":
            self.pos = start
            raise self.fail("a value")
        return self.text[start : self.pos]

    def values(self) -> list[str]:
        """``[a, b, "c d"]``."""
        self.skip_space()
        if not self.take("["):
            raise self.fail("a list in brackets, like [atlas, launch]")
        found: list[str] = []
        while True:
            self.skip_space()
            if self.take("]"):
                if not found:
                    self.pos -= 1
                    raise self.fail("at least one value in the list")
                return found
            if found and not self.take(","):
                raise self.fail("',' or ']'")
            found.append(self.value(stop=",]"))


def _bound(scanner: _Scanner, text: str, op: str) -> Bound:
    if _NUMBER.match(text):
        return Bound(float(text), is_date=False)
    when = parse_when(text)
    if when is None:
        raise scanner.fail(f"a date like 2024-01-31 or a number after {op!r}")
    return Bound(when, is_date=True)


def _condition(scanner: _Scanner) -> Condition:
    start = scanner.pos
    for marker, op in (("has:", Op.HAS), ("!has:", Op.NOT_HAS), ("-has:", Op.NOT_HAS)):
        if scanner.take(marker):
            key = normalise_key(scanner.key())
            return Condition(key, op, source=scanner.text[start : scanner.pos])
    raw_key = scanner.key()
    key = normalise_key(raw_key)
    scanner.skip_space()
    if scanner.take("not"):
        scanner.skip_space()
        if not scanner.take("in"):
            raise scanner.fail("'in' after 'not'")
        items = scanner.values()
        values = tuple(dict.fromkeys(normalise_text(key, v) for v in items))
        return Condition(key, Op.NOT_IN, values, source=scanner.text[start : scanner.pos])
    if scanner.text.startswith("in", scanner.pos) and not _KEY.match(scanner.text, scanner.pos + 2):
        scanner.pos += 2
        items = scanner.values()
        values = tuple(dict.fromkeys(normalise_text(key, v) for v in items))
        return Condition(key, Op.IN, values, source=scanner.text[start : scanner.pos])
    op_text = next((o for o in _OPS if scanner.take(o)), None)
    if op_text is None:
        raise scanner.fail(f"an operator after {raw_key!r} (=, !=, ^=, >=, <=, >, <, in, not in)")
    op = Op.EQ if op_text == ":" else Op(op_text)
    value_start = scanner.pos
    value = scanner.value()
    source = scanner.text[start : scanner.pos]
    if op in COMPARISONS:
        end, scanner.pos = scanner.pos, value_start
        bound = _bound(scanner, value.strip(), op_text)
        scanner.pos = end
        return Condition(key, op, bound=bound, source=source)
    text = normalise_text(key, value)
    if op is Op.PREFIX:
        text = text.rstrip("/")
    if not text:
        scanner.pos = value_start
        raise scanner.fail("a non-empty value")
    return Condition(key, op, (text,), source=source)


def parse_filter(text: str) -> tuple[Condition, ...]:
    """The conditions of one filter expression (all must hold).

    Raises:
        FilterError: the expression is empty, too long or malformed; the message names the
            part that is wrong and what was expected.
    """
    if len(text) > MAX_FILTER_CHARS:
        raise FilterError(f"a filter is at most {MAX_FILTER_CHARS} characters")
    scanner = _Scanner(text)
    if scanner.done():
        raise scanner.fail("a condition")
    found: list[Condition] = []
    while not scanner.done():
        if found:
            match = _JOIN.match(scanner.text, scanner.pos)
            if match:
                scanner.pos = match.end()
                if scanner.done():
                    raise scanner.fail("a condition after 'and'")
        found.append(_condition(scanner))
        if scanner.pos < len(text) and not text[scanner.pos].isspace():
            raise scanner.fail("a space or 'and' between conditions")
    return tuple(dict.fromkeys(found))


def parse_filters(expressions: Iterable[str]) -> tuple[Condition, ...]:
    """The conditions of several expressions, ANDed (see :func:`parse_filter`)."""
    found: list[Condition] = []
    for expression in expressions:
        found.extend(parse_filter(expression))
    return tuple(dict.fromkeys(found))
