"""Evidence-sized context: from each context block, the lines that carry the answer.

A small local model reads its prompt at a few dozen tokens a second, so every line it does
not need is waiting time. Given the merged blocks (best first) and the question, each line
of a block is scored by the question's content terms it holds, each weighted by the term's
own weight (names, numbers and code count more) and by how rare it is among the lines of
the context (a term every line holds tells nothing). The best lines of a block are kept
with the two after them (steps and details follow the line that names them) and with the
line before when they are read with it: they go on from it (a list item, a line that starts
in lower case or with a word pointing back, "It", "This", "Then"), or it is a heading or a
lead-in ending in a colon. (Always taking the line before spent the budget on lines that
only precede the answer: on the dev questions, fewer answers' key facts reached the
context.) A kept line that leads in (it ends in a colon, or speaks of "the following")
brings the list (up to eight items) or the code block (up to twelve lines) it introduces,
the block even a line or two after it; a kept line inside a code block brings the line
before the block, which says what the code is ("Create a file named `custom.css` ... add
the following contents."), and a kept list item the line that leads in to its list ("There
are some features we can't convert:"). Kept lines are shown in note order; a gap
between kept windows is shown as ``…``. A block whose lines hold no question term keeps the
lines holding the kind of value the question asks for (a temperature, a length of time, a
day ...: :mod:`notecite.generate.answer_kinds`), or else its opening lines. Blocks are then
filled into the token budget best first, each block's lines in score order; a window that
does not fit is tried as its best line alone, and the first
block always keeps at least its best line.

Lines of markup (images, link definitions, table rules, code fences) and a heading the
source header already names are never shown, and table padding is made one space
(:mod:`notecite.generate.markup`): the budget goes to words.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from notecite.generate.answer_kinds import MARK, asked_kinds, held_kinds
from notecite.generate.context import ContextBlock, TokenCounter
from notecite.generate.grounding import content_terms, line_terms
from notecite.generate.markup import code_roles, compact, is_fence, is_markup, names_section
from notecite.generate.properties import goes_on, split_property

GAP = "…"
BEFORE = 1  # lines kept before a line that scores, when it is read with them
AFTER = 2  # and after it (steps and details follow the line that names them)
OPENING_LINES = 3  # lines kept from a block where no line holds a question term
WINDOWS_PER_BLOCK = 3  # best lines of a block whose windows are kept
LIST_ITEMS = 8  # items of a list kept after a kept line that introduces it ("four levels:")
CODE_LINES = 12  # lines of a code block kept after a kept line that introduces it
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s")
KIND_WEIGHT = 1.0  # a kind of value the question asks for, held by a line (answer_kinds)
BETWEEN = 2  # lines that may stand between a lead-in and the code block it introduces
# A line that introduces what follows it: it ends in a colon, or it speaks of "the following".
_LEADS_IN = re.compile(r":\s*$|\b(?i:the following)\b")
# A line that goes on from the one before: a list item, a table row, a line that starts in
# lower case, or one that opens with a word pointing back ("This lets you ...").
_LEANS_BACK = re.compile(
    r"^\s*(?:[-*+|>]|\d{1,3}[.)]\s|[a-z]|(?i:this|that|these|those|it|its|they|them|their|"
    r"then|also|so|but|however|otherwise|instead|alternatively|for example|"
    r"in that case|if so)\b)"
)


@dataclass(frozen=True)
class ScoredLine:
    """One line of a block with its score against the question."""

    position: int
    text: str
    score: float
    shown: bool = True
    """False for a blank line, a line of markup, or a heading the source header names."""
    property: bool = False
    """A line of the note's properties (:mod:`notecite.generate.properties`)."""


def score_lines(blocks: Sequence[ContextBlock], question: str) -> list[list[ScoredLine]]:
    """Each block's lines scored by the question terms they hold (rarer terms weigh more;
    how rare is counted over the lines of the notes' text, not their properties)."""
    wanted = content_terms(question)
    kinds = asked_kinds(question)
    wanted.update(dict.fromkeys((MARK + kind for kind in kinds), KIND_WEIGHT))
    shown = [
        [
            bool(line.strip())
            and not is_markup(line)
            and not names_section(line, block.heading_path)
            for line in block.lines
        ]
        for block in blocks
    ]
    held = [
        [
            (line_terms(line) if n >= block.properties else _property_terms(line, wanted))
            if visible
            else set()
            for n, (line, visible) in enumerate(zip(block.lines, flags, strict=True))
        ]
        for block, flags in zip(blocks, shown, strict=True)
    ]
    if kinds:
        held = [
            _with_kinds(block, terms, flags, wanted, kinds)
            for block, terms, flags in zip(blocks, held, shown, strict=True)
        ]
    everyline = [
        terms
        for block, block_terms in zip(blocks, held, strict=True)
        for terms in block_terms[block.properties :]
    ]
    total = max(len(everyline), 1)
    weight = {}
    for term, base in wanted.items():
        frequency = sum(1 for terms in everyline if term in terms)
        weight[term] = base * math.log(1 + total / (1 + frequency))
    return [
        [
            ScoredLine(
                n,
                compact(line),
                sum(w for term, w in weight.items() if term in terms) if visible else 0.0,
                visible,
                n < block.properties,
            )
            for n, (line, terms, visible) in enumerate(
                zip(block.lines, block_terms, flags, strict=True)
            )
        ]
        for block, block_terms, flags in zip(blocks, held, shown, strict=True)
    ]


def _with_kinds(
    block: ContextBlock,
    held: list[set[str]],
    shown: list[bool],
    wanted: dict[str, float],
    kinds: frozenset[str],
) -> list[set[str]]:
    """``held`` with the kinds of value asked for that each line of the note's text holds,
    where no line of the block holds a question word (the kind then picks the lines the
    block would otherwise open with). Counted also beside question words, the kinds pushed
    the lines that answer out of the budget: on the dev questions 23 prompts changed, the
    key fact reached 3 more, and the model's answers held it in one fewer."""
    text = range(block.properties, len(block.lines))
    if any(held[n] & wanted.keys() for n in text if not _table_header(block.lines, n)):
        return held
    for n in text:
        if shown[n]:
            held[n] = held[n] | {MARK + kind for kind in held_kinds(block.lines[n], kinds)}
    return held


def _table_header(lines: Sequence[str], n: int) -> bool:
    """Is ``lines[n]`` a table's header row (a row with a rule under it)? Its words name the
    columns ("| | Fenwick Joinery | Brightwork Kitchens |"), not what a row holds."""
    return (
        lines[n].lstrip().startswith("|")
        and n + 1 < len(lines)
        and lines[n + 1].lstrip().startswith("|")
        and is_markup(lines[n + 1])
    )


def _property_terms(line: str, wanted: dict[str, float]) -> set[str]:
    """The terms of a property line that count: its key's words (a question's "owns" is
    the key ``owner``, its "reviewed" ``reviewers``), and of its value the question's
    names, numbers and code (a question term weighing more than a plain word)."""
    key, value = split_property(line)
    named = {term for term in line_terms(value) if wanted.get(term, 0.0) > 1.0}
    if not key:
        return named
    words = line_terms(key)
    said = {t for t in wanted if len(t) >= 3 and any(w.startswith(t) for w in words)}
    return words | said | named


def _windows(lines: Sequence[ScoredLine]) -> list[list[int]]:
    """Positions to keep, as windows in the order of their best line's score; each window
    starts at its best line or the one before it (see :data:`_LEANS_BACK`). The note's
    properties come after its text's windows: one is kept only when it holds a question
    term, and then whole (its key with its list)."""
    hits = sorted(
        (line for line in lines if line.score > 0 and line.shown),
        key=lambda line: (-line.score, line.position),
    )
    text_hits = [hit for hit in hits if not hit.property]
    text_start = next((line.position for line in lines if not line.property), len(lines))
    best = text_hits[0].score if text_hits else 0.0
    # a property's terms are few and chosen (its key, the names in its value): each that
    # holds one is kept, however its score compares with the text's best line
    property_hits = [hit for hit in hits if hit.property][:WINDOWS_PER_BLOCK]
    properties = [_property_window(lines, hit.position, text_start) for hit in property_hits]
    if not text_hits:
        opening = [line.position for line in lines if line.shown and not line.property]
        return properties + ([opening[:OPENING_LINES]] if opening else [])
    intro = _intros(lines)
    windows = []
    for hit in text_hits[:WINDOWS_PER_BLOCK]:
        if hit.score < best / 2:
            break
        low = max(0, hit.position - BEFORE) if _needs_line_before(lines, hit) else hit.position
        low = max(low, text_start)
        high = _list_end(lines, hit.position, min(len(lines) - 1, hit.position + AFTER))
        window = [hit.position] + [
            p for p in range(low, high + 1) if lines[p].shown and p != hit.position
        ]
        lead = intro.get(hit.position)
        if lead is not None and lead >= text_start and lead not in window:
            window.insert(1, lead)
        windows.append(window)
    return windows + properties


def _property_window(lines: Sequence[ScoredLine], hit: int, text_start: int) -> list[int]:
    """The property that line ``hit`` belongs to: its key's line and the lines it goes on
    over (up to :data:`LIST_ITEMS`), ``hit`` first."""
    key = hit
    while key > 0 and goes_on(lines[key].text):
        key -= 1
    end = key
    while end + 1 < text_start and goes_on(lines[end + 1].text) and end - key < LIST_ITEMS:
        end += 1
    return [hit] + [p for p in range(key, end + 1) if p != hit and lines[p].shown]


def _intros(lines: Sequence[ScoredLine]) -> dict[int, int]:
    """For each line inside a fenced code block, the shown line before the block's opening
    fence (what the block is: "Create a file named `custom.css` ... add the following.");
    for each item of a list, the line that introduces the list ("There are some features we
    can't convert:"), where one does."""
    intros: dict[int, int] = {}
    intro: int | None = None  # the shown line before the open block's fence
    for line, role in zip(lines, code_roles(line.text for line in lines), strict=True):
        if role == "open":
            shown = (p for p in range(line.position - 1, -1, -1) if lines[p].shown)
            intro = next(shown, None)
        elif role == "code" and intro is not None:
            intros[line.position] = intro
    lead: int | None = None  # the lead-in of the list being read
    for line in lines:
        if not line.shown or line.position in intros:
            continue
        if _LIST_ITEM.match(line.text):
            if lead is not None:
                intros[line.position] = lead
        else:
            lead = line.position if _LEADS_IN.search(line.text) else None
    return intros


def _needs_line_before(lines: Sequence[ScoredLine], hit: ScoredLine) -> bool:
    """Whether ``hit`` is read with the line before it: it goes on from that line, or that
    line is a heading or a lead-in ("To publish:") that says what ``hit`` is about."""
    if hit.position == 0:
        return False
    before = lines[hit.position - 1].text.strip()
    return bool(_LEANS_BACK.match(hit.text)) or before.startswith("#") or before.endswith(":")


def _list_end(lines: Sequence[ScoredLine], start: int, high: int) -> int:
    """``high``, or further when a line from ``start`` to ``high`` leads in (it ends in a
    colon, or speaks of "the following") and a list or a code block follows it: the list's
    items (up to :data:`LIST_ITEMS`) or the block's lines (up to :data:`CODE_LINES`) are
    what the line introduces."""
    for position in range(start, high + 1):
        if _LEADS_IN.search(lines[position].text):
            high = max(high, _introduced_end(lines, position))
    return high


def _introduced_end(lines: Sequence[ScoredLine], lead_in: int) -> int:
    """The last line of the list or code block after the ``lead_in`` line (itself if none)."""
    # a code block may come a line or two after what introduces it ("add the following
    # shortcut:", then a line about its "args", then the block), with no list item between
    following = (p for p in range(lead_in + 1, len(lines)) if lines[p].text.strip())
    nearest = itertools.islice(following, 1 + BETWEEN)
    fence = next((p for p in nearest if is_fence(lines[p].text)), None)
    if fence is not None and not any(
        _LIST_ITEM.match(lines[p].text) for p in range(lead_in + 1, fence)
    ):
        end = fence
        while end + 1 < len(lines) and end - fence < CODE_LINES:
            end += 1
            if is_fence(lines[end].text):
                break
        return end
    end = lead_in
    while (
        end + 1 < len(lines)
        and end - lead_in < LIST_ITEMS
        and _LIST_ITEM.match(lines[end + 1].text)
    ):
        end += 1
    return end


def _render(lines: Sequence[ScoredLine], keep: set[int]) -> list[str]:
    """The kept lines in note order, a gap mark where shown lines were left out between them."""
    out: list[str] = []
    last = -1
    for position in sorted(keep):
        if out and any(line.shown for line in lines[last + 1 : position]):
            out.append(GAP)
        out.append(lines[position].text)
        last = position
    return out


def _priced(
    lines: Sequence[ScoredLine], keep: set[int], count_tokens: TokenCounter
) -> tuple[set[int], int]:
    """``keep`` with the tokens its rendering costs."""
    return keep, count_tokens(["\n".join(_render(lines, keep))])[0]


def _fit(
    lines: Sequence[ScoredLine],
    keep: set[int],
    window: Sequence[int],
    room: int,
    count_tokens: TokenCounter,
    force: bool = False,
) -> tuple[set[int], int] | None:
    """``keep`` with ``window``, or else with its best line alone, whichever first renders
    in ``room`` tokens; with ``force``, the best line alone even when it does not fit."""
    choices = (window, window[:1]) if len(window) > 1 else (window,)
    for choice in choices:
        trial, cost = _priced(lines, keep | set(choice), count_tokens)
        if cost <= room:
            return trial, cost
    return (trial, cost) if force else None


def select_evidence(
    blocks: Sequence[ContextBlock],
    question: str,
    max_tokens: int,
    count_tokens: TokenCounter,
    whole_first: bool = False,
) -> list[ContextBlock]:
    """``blocks`` cut down to their evidence lines within ``max_tokens`` (blocks with no
    line left are dropped, except the first); each block's ``lines`` are replaced. With
    ``whole_first``, the first block keeps every line it shows when they fit."""
    scored = score_lines(blocks, question)
    chosen: list[ContextBlock] = []
    used = 0
    for number, (block, lines) in enumerate(zip(blocks, scored, strict=True)):
        keep: set[int] = set()
        cost = 0
        if number == 0 and whole_first:
            whole = {line.position for line in lines if line.shown}
            keep, cost = _priced(lines, whole, count_tokens)
            if cost > max_tokens:
                keep, cost = set(), 0
        for window in [] if keep else _windows(lines):
            # the first block keeps at least its best line
            first = number == 0 and not keep
            fitted = _fit(lines, keep, window, max_tokens - used, count_tokens, force=first)
            if fitted is None:
                break
            keep, cost = fitted
        if not keep:
            continue
        block.lines = _render(lines, keep)
        block.properties = len(_render(lines, {p for p in keep if lines[p].property}))
        block.line_start += min(keep)  # an estimate: a chunk's text drops blank lines
        chosen.append(block)
        used += cost
        if used >= max_tokens:
            break
    return chosen
