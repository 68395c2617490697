"""Filters written inside a question, the way Khoj and Obsidian users write them.

``#atlas`` is ``tags^=atlas`` (the tag or any tag under it, ``atlas/launch``); ``type:meeting``
is ``type=meeting`` (``-type:meeting`` negates it); ``has:due`` and ``-has:due`` test a key;
``created>=2024-01-01`` compares a date. They are cut out of the question before it is
embedded and searched, and listed in the debug view.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from notecite.filters.fields import normalise_key, normalise_text
from notecite.filters.model import Condition, Op
from notecite.filters.parse import parse_filter

# A tag starts with a letter and follows a space (``C#`` and ``#1`` are not tags).
_TAG = re.compile(r"(?<!\S)#([^\W\d_][\w/\-]*)")
# A tag written as a word after the words that say it is one: "notes tagged recipe", "tagged
# with travel", "with the tag sre". Read as a tag only where some note carries it.
_TAG_WORD = re.compile(
    r"\b(?:tagged(?:\s+(?:with|as))?|with\s+(?:the\s+)?tags?|(?:carry|carries|carrying|has|"
    r"have|having)\s+the\s+tags?)\s+[\"'\u201c\u2018]?(?P<tag>[^\W\d_][\w/\-]*)[\"'\u201d\u2019]?",
    re.IGNORECASE,
)
_HAS = re.compile(r"(?<!\S)(-|!)?has:([^\W\d][\w.\-]*)")
# ``key:value``: the key starts with a letter, the value neither with '/' (a URL) nor with a
# space; trailing punctuation belongs to the sentence.
_PAIR = re.compile(r"(?<!\S)(-)?([^\W\d_][\w\-]*):(\"[^\"]+\"|[^\s\"/:][^\s]*?)(?=[?.,!;]*(\s|$))")
_DATE = re.compile(r"(?<!\S)([^\W\d_][\w\-]*)(>=|<=|>|<)(\d{4}-\d{2}-\d{2}(T[\d:]+)?)(?!\S)")


@dataclass(frozen=True)
class InlineFilters:
    """A question with its inline filters taken out.

    Attributes:
        question: the question without them (the original when nothing else is left).
        conditions: the filters found, in the order written.
    """

    question: str
    conditions: tuple[Condition, ...] = ()


def extract_inline(
    question: str,
    known_key: Callable[[str], bool] | None = None,
    known_tag: Callable[[str], bool] | None = None,
) -> InlineFilters:
    """Cut ``#tag``, ``key:value``, ``has:key`` and ``key>=date`` out of ``question``, and a
    tag written as a word after "tagged", "tagged with" or "with the tag" ("notes tagged
    recipe", or "recipes" where the tag is ``recipe``) where ``known_tag`` knows it.

    ``known_key`` (when given) says whether any note has a key: a ``key:value`` pair whose
    key none has stays in the text ("ratio 3:1", "re:budget" are words, not filters).
    ``known_tag`` likewise says whether any note carries a tag or a tag under it: a ``#tag``
    none carries stays in the text ("how do I rename #todo to #tasks?" asks about tags,
    it does not filter by them).
    """
    found: list[tuple[int, Condition]] = []

    def tag(match: re.Match[str]) -> str:
        value = normalise_text("tags", match.group(1)).rstrip("/")
        if known_tag is not None and not known_tag(value):
            return match[0]
        found.append((match.start(), Condition("tags", Op.PREFIX, (value,), source=match[0])))
        return " "

    def tag_word(match: re.Match[str]) -> str:
        if known_tag is None:
            return match[0]
        word = normalise_text("tags", match.group("tag")).rstrip("/")
        known = [v for v in (word, word.removesuffix("s")) if v and known_tag(v)]
        if not known:
            return match[0]
        found.append(
            (match.start(), Condition("tags", Op.PREFIX, (known[0],), source=f"#{known[0]}"))
        )
        return " "

    def has(match: re.Match[str]) -> str:
        op = Op.NOT_HAS if match.group(1) else Op.HAS
        found.append((match.start(), Condition(normalise_key(match.group(2)), op, source=match[0])))
        return " "

    def pair(match: re.Match[str]) -> str:
        key = normalise_key(match.group(2))
        if known_key is not None and not known_key(key):
            return match[0]
        value = normalise_text(key, match.group(3).strip('"'))
        op = Op.NE if match.group(1) else Op.EQ
        found.append((match.start(), Condition(key, op, (value,), source=match[0])))
        return " "

    def date(match: re.Match[str]) -> str:
        found.extend((match.start(), c) for c in parse_filter(match[0]))
        return " "

    text = _TAG.sub(tag, question)
    text = _TAG_WORD.sub(tag_word, text)
    text = _HAS.sub(has, text)
    text = _DATE.sub(date, text)
    text = _PAIR.sub(pair, text)
    if not found:
        return InlineFilters(question)
    cleaned = " ".join(text.split())
    if not any(c.isalnum() for c in cleaned):
        cleaned = question
    return InlineFilters(cleaned, tuple(dict.fromkeys(c for _, c in found)))
