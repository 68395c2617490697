"""A model-free provider: the question's best-matching sentences of the sources, each cited.

Deterministic and instant, for tests and machines without a model. Its answers are labelled
as extractive so nobody mistakes them for a written answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from notecite.config import GenerationSettings
from notecite.generate.base import ContextSource, GenerationRequest
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.markup import is_markup_or_link
from notecite.generate.prompts import TOP_OF_NOTE, as_data
from notecite.retrieve.terms import query_terms, stem

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
# Added to a sentence's score by its source's rank (0.5 for the first, 0.25 for the second...):
# chosen on the vault QA dev split (gold note cited 0.70 -> 0.83 with the one-term rule).
RANK_PRIOR = 0.5
LABEL = "Extractive answer (sentences quoted from your notes):"


def _citation(source: ContextSource, style: str) -> str:
    if style == "file_section":
        section = source.heading_path or TOP_OF_NOTE
        return f"[File: {source.rel_path}, Section: {section}]"
    return f"[{source.cid}]"


def _cited(sentence: str, citation: str) -> str:
    """The sentence with its citation before its closing punctuation: "x [N1]."."""
    if sentence and sentence[-1] in ".!?":
        return f"{sentence[:-1].rstrip()} {citation}{sentence[-1]}"
    return f"{sentence} {citation}."


class ExtractiveLLM:
    """Picks up to ``max_sentences`` sentences sharing the most question terms (two, or one
    in the best-ranked source), sources ranked higher preferred."""

    def __init__(self, max_sentences: int = 3) -> None:
        self._max_sentences = max_sentences

    @property
    def name(self) -> str:
        return "extractive"

    @property
    def model_id(self) -> str:
        return "extractive"

    def generate(self, request: GenerationRequest) -> str:
        terms = {stem(t) for t in query_terms(request.question)}
        # a sentence must share this many of the question's terms to count as answering it
        needed = 1 if len(terms) <= 3 else 2
        scored: list[tuple[float, int, str, ContextSource]] = []
        for rank, source in enumerate(request.sources):
            body = "\n".join(ln for ln in source.text.split("\n") if not ln.startswith("#"))
            for sentence in _SENTENCE.split(body):
                clean = _IMAGE.sub("", sentence).strip().lstrip("-*>").strip()
                if len(clean) <= 12 or is_markup_or_link(clean):
                    continue
                words = {stem(w) for w in query_terms(clean)}
                overlap = len(terms & words)
                # retrieval ranked the first source best: one shared term is enough there
                if overlap >= (1 if rank == 0 else needed):
                    score = overlap / (1 + 0.02 * len(words)) + RANK_PRIOR / (1 + rank)
                    scored.append((score, -rank, clean, source))
        if not scored:
            return FALLBACK_ANSWER
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        picked = scored[: self._max_sentences]
        # one citation per section: sentences of one section cite its first block
        first: dict[tuple[str, str, str], ContextSource] = {}
        for _, _, _, source in sorted(picked, key=lambda p: -p[1]):
            first.setdefault((source.vault, source.rel_path, source.heading_path), source)
        body = " ".join(
            _cited(
                as_data(text).rstrip(),
                _citation(
                    first[(source.vault, source.rel_path, source.heading_path)],
                    request.citation_style,
                ),
            )
            for _, _, text, source in picked
        )
        return f"{LABEL}\n{body}"

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        text = self.generate(request)
        for piece in re.split(r"(\s+)", text):
            if piece:
                yield piece


def create(settings: GenerationSettings) -> ExtractiveLLM:
    """Entry point: ``llm = "extractive"``."""
    return ExtractiveLLM()
