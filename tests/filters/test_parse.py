"""The filter language: what each form parses to, and what a bad one says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.errors import FilterError
from notecite.filters import Bound, Condition, Op, parse_filter, parse_filters


def one(text: str) -> Condition:
    (cond,) = parse_filter(text)
    return cond


@pytest.mark.parametrize(
    ("text", "key", "op", "values"),
    [
        ("tags=atlas", "tags", Op.EQ, ("atlas",)),
        ("Tags = #Atlas", "tags", Op.EQ, ("atlas",)),
        ("type:meeting", "type", Op.EQ, ("meeting",)),
        ("status!=draft", "status", Op.NE, ("draft",)),
        ('title="launch day"', "title", Op.EQ, ("launch day",)),
        ("tags in [atlas, launch]", "tags", Op.IN, ("atlas", "launch")),
        ("tags in ['a b',c]", "tags", Op.IN, ("a b", "c")),
        ("tags not in [draft]", "tags", Op.NOT_IN, ("draft",)),
        ("tags^=projects/", "tags", Op.PREFIX, ("projects",)),
        ("tags^=projects/atlas", "tags", Op.PREFIX, ("projects/atlas",)),
        ("has:due", "due", Op.HAS, ()),
        ("!has:due", "due", Op.NOT_HAS, ()),
        ("-has:due", "due", Op.NOT_HAS, ()),
        ("index=3", "index", Op.EQ, ("3",)),
    ],
)
def test_forms(text: str, key: str, op: Op, values: tuple[str, ...]) -> None:
    cond = one(text)
    assert (cond.key, cond.op, cond.values) == (key, op, values)
    assert cond.source == text.strip()


def test_dates_and_numbers() -> None:
    day = datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    assert one("created>=2024-01-01").bound == Bound(day, is_date=True)
    assert one("created < 2024-01-01T00:00:00Z").bound == Bound(day, is_date=True)
    assert one("priority<=2").bound == Bound(2.0, is_date=False)
    assert one("priority>-1.5").op is Op.GT


def test_conditions_join_with_and_spaces_or_several_expressions() -> None:
    expected = [("type", Op.EQ), ("tags", Op.IN), ("due", Op.HAS)]
    for text in (
        "type=meeting and tags in [a, b] and has:due",
        "type=meeting AND tags in [a,b] && has:due",
        "type=meeting tags in [a, b] has:due",
    ):
        assert [(c.key, c.op) for c in parse_filter(text)] == expected
    joined = parse_filters(["type=meeting", "tags in [a, b]", "has:due", "has:due"])
    assert [(c.key, c.op) for c in joined] == expected


@pytest.mark.parametrize(
    ("text", "where", "expected"),
    [
        ("", "character 1", "a condition"),
        ("tags=", "character 6", "a value"),
        ("tags ~ x", "character 6", "an operator after 'tags'"),
        ("tags in []", "character 10", "at least one value"),
        ("tags in [a", "character 11", "',' or ']'"),
        ("tags in atlas", "character 9", "a list in brackets"),
        ("created>=soon", "character 10", "a date like 2024-01-31 or a number after '>='"),
        ('x="abc', "character 3", 'a closing "'),
        ("tags=a and", "character 11", "a condition after 'and'"),
        ("tags not atlas", "character 10", "'in' after 'not'"),
        ("=atlas", "character 1", "a frontmatter key"),
        ("tags^=/", "character 7", "a non-empty value"),
    ],
)
def test_bad_filters_say_where_and_what(text: str, where: str, expected: str) -> None:
    with pytest.raises(FilterError) as caught:
        parse_filter(text)
    message = str(caught.value)
    assert where in message
    assert f"expected {expected}" in message
    assert repr(text) in message


def test_a_huge_filter_is_refused() -> None:
    with pytest.raises(FilterError, match="at most"):
        parse_filter("tags=a " * 400)
