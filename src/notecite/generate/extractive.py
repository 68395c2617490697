"""A model-free provider: the question's best-matching sentences of the sources, each cited.

Deterministic and instant, for tests and machines without a model. Its answers are labelled
as extractive so nobody mistakes them for a written answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from notecite.config import GenerationSettings
from notecite.generate.base import ContextSource, GenerationRequest
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.evidence import GAP
from notecite.generate.markup import (
    code_roles,
    is_field,
    is_markup_or_link,
    split_outside_code,
    unwrap,
)
from notecite.generate.outline import asks_for_summary
from notecite.generate.prompts import TOP_OF_NOTE, as_data
from notecite.retrieve.releases import asks_when_released, is_release_note
from notecite.retrieve.terms import name_stems, query_terms, stem
from notecite.retrieve.units import asked_abbreviations
from notecite.retrieve.whole_note import asks_of_a_time

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
# a block id ("... in calendar form. ^calendar-view") is a link target, not words
_BLOCK_ID = re.compile(r"\s\^[\w-]+$")
# a task list's box ("- [ ] check out the repo", "- [x] done"): a mark, not words
_TASK_BOX = re.compile(r"^\[[ xX]\]\s+")
# fewer words than this is a label or an identifier ("duplicateNoteBehavior"), not a statement
MIN_WORDS = 3
# a sentence sharing this share of its terms with one already quoted says nothing new
SAME_TERMS = 0.8
# Added to a sentence's score by its source's rank (0.5 for the first, 0.25 for the second...):
# chosen on the vault QA dev split (gold note cited 0.70 -> 0.83 with the one-term rule).
RANK_PRIOR = 0.5
# What a question term in the title or section of a sentence's note is worth of one in the
# sentence: chosen on the vault QA dev split (must-contain 0.38 -> 0.47, gold cited 0.85 kept)
FRAME_SHARE = 0.5
LABEL = "Extractive answer (sentences quoted from your notes):"


def _citation(source: ContextSource, style: str) -> str:
    if style == "file_section":
        section = source.heading_path or TOP_OF_NOTE
        return f"[File: {source.rel_path}, Section: {section}]"
    return f"[{source.cid}]"


def statements(text: str) -> list[str]:
    """The sentences of a source's ``text`` that may be quoted, in order (a hard-wrapped one
    whole): no heading line, a line of a code block as a code span, and a lead-in that ends
    in a colon ("Create today's note:") joined to what it introduces, which is usually the
    answer to a how-to; the ``…`` that marks lines left out of the evidence is skipped."""
    parts: list[str] = []
    # a hard-wrapped sentence is one sentence; the mark of left-out lines is no part of one
    lines = unwrap([line for line in text.split("\n") if line.strip() != GAP])
    for line, role in zip(lines, code_roles(line.text for line in lines), strict=True):
        stripped = line.text.strip()
        if role == "code":
            if stripped and "`" not in stripped:
                parts.append(f"`{stripped}`")
        elif role == "text" and not stripped.startswith("#"):
            parts.extend(p for p in split_outside_code(_SENTENCE, stripped) if p.strip())
    joined: list[str] = []
    for part in parts:
        if joined and joined[-1].endswith(":"):
            joined[-1] = f"{joined[-1]} {part.strip().lstrip('-*').strip()}"
        else:
            joined.append(part.strip())
    return joined


def _quotable(sentence: str) -> str:
    """``sentence`` as it can be quoted: no image, bullet, task box or block id; "" when what
    is left is markup, a bare link or too few words to say anything (a field such as
    "Budget:: £1,800" says its value)."""
    clean = _TASK_BOX.sub("", _IMAGE.sub("", sentence).strip().lstrip("-*>").strip())
    clean = _BLOCK_ID.sub("", clean).rstrip()
    if is_markup_or_link(clean):
        return ""
    if not is_field(clean) and (len(clean) <= 12 or len(clean.split()) < MIN_WORDS):
        return ""
    return clean


def _framing(source: ContextSource) -> set[str]:
    """The terms of a source's path, title and section."""
    return name_stems(f"{source.rel_path.removesuffix('.md')} {source.title} {source.heading_path}")


def _says_again(words: set[str], quoted: list[set[str]]) -> bool:
    return any(len(words & other) >= SAME_TERMS * min(len(words), len(other)) for other in quoted)


def _cited(sentence: str, citation: str) -> str:
    """The sentence with its citation before its closing punctuation: "x [N1]."."""
    if sentence and sentence[-1] in ".!?":
        return f"{sentence[:-1].rstrip()} {citation}{sentence[-1]}"
    return f"{sentence} {citation}."


def quote_sentences(
    question: str,
    sources: Sequence[ContextSource],
    citation_style: str = "numbered",
    max_sentences: int = 3,
) -> str:
    """Up to ``max_sentences`` sentences of ``sources`` sharing the most terms of
    ``question`` (two, or one in the best-ranked source), sources ranked higher preferred,
    each quoted with its source's citation; "" when no sentence shares enough."""
    # a unit spelled out counts where a sentence writes its symbol ("kilometres": "6.2 km")
    terms = {stem(t) for t in query_terms(question)} | set(asked_abbreviations(question))
    # a sentence must share this many of the question's terms to count as answering it
    needed = 1 if len(terms) <= 3 else 2
    scored: list[tuple[float, int, str, set[str], ContextSource]] = []
    # asked when something arrived, a note is framed as the answer only by being a release
    when = asks_when_released(question)
    for rank, source in enumerate(sources):
        framing = (
            _framing(source)
            if not when or is_release_note(source.rel_path, source.title)
            else set()
        )
        for sentence in statements(source.text):
            clean = _quotable(sentence)
            if not clean:
                continue
            words = {stem(w) for w in query_terms(clean)}
            overlap = len(terms & words)
            # the note's title and section frame the sentence ("default: `yy.MM.dd`"
            # under "tasks > date format"), worth less than its own words
            framed = FRAME_SHARE * len((terms & framing) - words)
            # retrieval ranked the first source best: one shared term is enough there
            if overlap >= (1 if rank == 0 else needed) or (overlap and overlap + framed >= needed):
                score = (overlap + framed) / (1 + 0.02 * len(words)) + RANK_PRIOR / (1 + rank)
                scored.append((score, -rank, clean, words, source))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    picked: list[tuple[float, int, str, ContextSource]] = []
    quoted: list[set[str]] = []
    for score, neg_rank, clean, words, source in scored:
        if len(picked) == max_sentences:
            break
        if not _says_again(words, quoted):  # a changelog line copied into two notes
            picked.append((score, neg_rank, clean, source))
            quoted.append(words)
    if asks_for_summary(question) or asks_of_a_time(question) is not None:
        picked = _opening(sources, max_sentences)
    if not picked:
        return ""
    # one citation per section: sentences of one section cite its first block
    first: dict[tuple[str, str, str], ContextSource] = {}
    for _, _, _, source in sorted(picked, key=lambda p: -p[1]):
        first.setdefault((source.vault, source.rel_path, source.heading_path), source)
    return " ".join(
        _cited(
            as_data(text).rstrip(),
            _citation(
                first[(source.vault, source.rel_path, source.heading_path)],
                citation_style,
            ),
        )
        for _, _, text, source in picked
    )


def _opening(
    sources: Sequence[ContextSource], max_sentences: int
) -> list[tuple[float, int, str, ContextSource]]:
    """The first quotable sentences of the best-ranked source (then the next): what a
    request to summarize a note, or to say what the notes of a day hold, is answered with.
    The question's words are the note's name or a date, which its sentences seldom hold
    ("What did I do on 22 January?" holds no word of the day's note)."""
    opening: list[tuple[float, int, str, ContextSource]] = []
    for rank, source in enumerate(sources):
        for sentence in statements(source.text):
            clean = _quotable(sentence)
            if clean and len(opening) < max_sentences:
                opening.append((0.0, -rank, clean, source))
    return opening


class ExtractiveLLM:
    """Answers with :func:`quote_sentences`, labelled as quoted."""

    def __init__(self, max_sentences: int = 3) -> None:
        self._max_sentences = max_sentences

    @property
    def name(self) -> str:
        return "extractive"

    @property
    def model_id(self) -> str:
        return "extractive"

    def generate(self, request: GenerationRequest) -> str:
        body = quote_sentences(
            request.question, request.sources, request.citation_style, self._max_sentences
        )
        return f"{LABEL}\n{body}" if body else FALLBACK_ANSWER

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        text = self.generate(request)
        for piece in re.split(r"(\s+)", text):
            if piece:
                yield piece


def create(settings: GenerationSettings) -> ExtractiveLLM:
    """Entry point: ``llm = "extractive"``."""
    return ExtractiveLLM()
