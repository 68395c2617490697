"""Frontmatter filters: the language (:func:`parse_filter`), inline forms in a question
(:func:`extract_inline`), and the flat rows the stores index (:func:`note_fields`)."""

from notecite.filters.fields import Field, note_fields
from notecite.filters.inline import InlineFilters, extract_inline
from notecite.filters.model import Bound, Condition, Op
from notecite.filters.parse import parse_filter, parse_filters

__all__ = [
    "Bound",
    "Condition",
    "Field",
    "InlineFilters",
    "Op",
    "extract_inline",
    "note_fields",
    "parse_filter",
    "parse_filters",
]
