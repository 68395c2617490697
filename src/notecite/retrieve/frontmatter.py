"""The frontmatter filters of one request: the expressions it carries plus the ones written
inside its question (``#atlas``, ``type:meeting``), and whether they leave any note."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.filters import Condition, extract_inline, parse_filters
from notecite.store.base import FrontmatterFacets, Store
from notecite.types import SearchFilter, Vault


@dataclass(frozen=True)
class RequestFilters:
    """A question without its inline filters, and every condition that applies.

    Attributes:
        question: the question as it is embedded and searched.
        conditions: the request's expressions, then the inline ones (all must hold).
        shown: each condition as written, for the debug view.
    """

    question: str
    conditions: tuple[Condition, ...] = ()

    @property
    def shown(self) -> list[str]:
        """Each condition as written."""
        return [str(c) for c in self.conditions]


def request_filters(
    store: Store, vaults: Sequence[Vault], question: str, expressions: Sequence[str]
) -> RequestFilters:
    """Parse ``expressions`` and the inline filters of ``question``.

    An inline ``key:value`` applies only where some note of ``vaults`` has the key, and an
    inline ``#tag`` only where some note carries the tag or a tag under it.

    Raises:
        FilterError: an expression is malformed.
    """
    given = parse_filters(expressions)
    ids = [v.id for v in vaults]

    facets = store if isinstance(store, FrontmatterFacets) else None

    def known_key(key: str) -> bool:
        if facets is None:
            return True
        return bool(facets.frontmatter_facets(ids, [key])[key])

    @functools.cache  # read once, at the first inline tag
    def vault_tags() -> tuple[str, ...]:
        return tuple(facets.frontmatter_facets(ids, ["tags"])["tags"]) if facets else ()

    def known_tag(value: str) -> bool:
        if facets is None:
            return True
        return any(t == value or t.startswith(f"{value}/") for t in vault_tags())

    inline = extract_inline(question, known_key, known_tag)
    return RequestFilters(inline.question, tuple(dict.fromkeys((*given, *inline.conditions))))


def no_note_left(store: Store, vaults: Sequence[Vault], conditions: Sequence[Condition]) -> bool:
    """Whether no note of ``vaults`` meets every condition (there are some)."""
    if not conditions:
        return False
    flt = SearchFilter(vault_ids=tuple(v.id for v in vaults), frontmatter=tuple(conditions))
    return not store.recent_chunks(flt, 1)


def no_matching_notes_answer(shown: Sequence[str]) -> str:
    """The answer when the filters leave no note: which filters, and what to do."""
    return (
        f"No note matches the filters {', '.join(shown)}, so there is nothing to answer "
        "from. Loosen or drop a filter (an unknown key or value matches nothing)."
    )
