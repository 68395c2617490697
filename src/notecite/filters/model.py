"""Frontmatter conditions: what a parsed filter is, and how a value compares.

A :class:`Condition` tests one frontmatter key of a note. Keys are matched case-insensitively;
text values too (``tags=Atlas`` matches ``atlas``). A key that holds a list matches when any of
its items does; ``!=`` and ``not in`` hold when none does (so a note without the key passes
``status!=draft``). Comparisons (``>=`` ...) read dates (``2024-01-01``) or numbers. A key no
note has matches nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum


class Op(StrEnum):
    """The operators of the filter language."""

    EQ = "="
    NE = "!="
    IN = "in"
    NOT_IN = "not in"
    PREFIX = "^="
    HAS = "has"
    NOT_HAS = "!has"
    GE = ">="
    LE = "<="
    GT = ">"
    LT = "<"


COMPARISONS = frozenset({Op.GE, Op.LE, Op.GT, Op.LT})
NEGATED = frozenset({Op.NE, Op.NOT_IN, Op.NOT_HAS})


@dataclass(frozen=True)
class Bound:
    """The value of a comparison: a date (epoch seconds, UTC) or a number."""

    value: float
    is_date: bool


@dataclass(frozen=True)
class Condition:
    """One test on a note's frontmatter.

    Attributes:
        key: the frontmatter key, lower case.
        op: the operator.
        values: the text values (lower case) of ``=``, ``!=``, ``in``, ``not in`` and
            ``^=`` (for ``^=``, the hierarchical prefix without its trailing ``/``).
        bound: the date or number of a comparison.
        source: the condition as written, for messages and the debug view.
    """

    key: str
    op: Op
    values: tuple[str, ...] = ()
    bound: Bound | None = None
    source: str = ""

    def __str__(self) -> str:
        return self.source or f"{self.key} {self.op.value} {list(self.values)}"


def prefix_matches(value: str, prefix: str) -> bool:
    """Hierarchical prefix: ``projects`` matches ``projects`` and ``projects/atlas``, not
    ``projects-old``."""
    return value == prefix or value.startswith(prefix + "/")


_POSITIVE = {Op.NE: Op.EQ, Op.NOT_IN: Op.IN, Op.NOT_HAS: Op.HAS}


def positive(cond: Condition) -> Condition:
    """``cond`` without its negation (``status=draft`` for ``status!=draft``)."""
    op = _POSITIVE.get(cond.op)
    return cond if op is None else replace(cond, op=op)


ConditionSql = Callable[[Condition], tuple[str, list[object]]]
"""A store's rendering of one condition: its SQL clause and parameters."""


def conditions_sql(
    conditions: Iterable[Condition], render: ConditionSql
) -> tuple[list[str], list[object]]:
    """The clauses of every condition (all must hold), rendered by ``render``, and their
    parameters in order."""
    sql: list[str] = []
    params: list[object] = []
    for cond in conditions:
        clause, values = render(cond)
        sql.append(clause)
        params.extend(values)
    return sql, params
