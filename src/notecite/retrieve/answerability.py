"""A calibrated answerability gate: can the kept chunks answer the question at all?

One fixed threshold on a score lets off-topic questions through whenever they share a word
with the notes. The gate instead reads several signals of the retrieval that was already
done and turns them into a probability with a logistic model:

- ``top_gate``: the best gate score (0.7 x cosine + 0.3 x lexical) of the kept chunks;
- ``margin``: how far the best candidate stands above the fifth;
- ``top_dense``: the best dense (chunk + sentence) score;
- ``keyword_agree``: the share of the kept chunks that BM25 found too;
- ``coverage``: the share of the question's content terms that the kept text holds;
- ``vault_absent``: the share of the question's content terms that no note of the searched
  vaults holds (the full-text index answers that);
- ``salient_absent``: 1 when a salient term (a name, command, version) is in no note.

The weights come from ``bench/fit_answerability.py`` (the dev split of ``bench/qa`` only);
``docs/answerability.md`` records the fit and how the threshold was chosen.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass

from notecite.embed.base import MINILM_MODEL_IDS
from notecite.retrieve.retriever import Candidate
from notecite.retrieve.terms import query_terms, stem
from notecite.retrieve.units import abbreviation

Mentions = Callable[[Sequence[str]], set[str]]


@dataclass(frozen=True)
class Features:
    """The retrieval signals the gate reads (see the module docstring)."""

    top_gate: float
    margin: float
    top_dense: float
    keyword_agree: float
    coverage: float
    vault_absent: float
    salient_absent: float

    def vector(self) -> tuple[float, ...]:
        """The features in the order of :data:`FEATURE_NAMES`."""
        return astuple(self)


FEATURE_NAMES = (
    "top_gate",
    "margin",
    "top_dense",
    "keyword_agree",
    "coverage",
    "vault_absent",
    "salient_absent",
)


def features(
    question: str,
    candidates: Sequence[Candidate],
    kept: Sequence[Candidate],
    mentions: Mentions,
    salient_missing: int,
) -> Features:
    """The gate's features for ``question`` and what its retrieval found."""
    gates = sorted((c.gate for c in candidates), reverse=True)
    top = gates[0] if gates else 0.0
    # fewer than five candidates (a small vault or folder): the best stands above nothing
    fifth = gates[4] if len(gates) >= 5 else 0.0
    terms = query_terms(question)
    text = " ".join(c.chunk.text.lower() for c in kept)
    held = {stem(w) for w in query_terms(text)}
    coverage = sum(1 for t in terms if stem(t) in held) / len(terms) if terms else 0.0
    found = mentions(terms) if terms else set()
    # a unit spelled out is held where a note holds its symbol ("kilometres": "6.2 km")
    symbols = {t: s for t in terms if t not in found and (s := abbreviation(t)) is not None}
    if symbols:
        held = mentions(sorted(set(symbols.values())))
        found |= {t for t, s in symbols.items() if s in held}
    absent = sum(1 for t in terms if t not in found) / len(terms) if terms else 0.0
    return Features(
        top_gate=top,
        margin=top - fifth,
        top_dense=max((c.score_dense for c in kept), default=0.0),
        keyword_agree=sum(1 for c in kept if c.score_bm25 > 0) / len(kept) if kept else 0.0,
        coverage=coverage,
        vault_absent=absent,
        salient_absent=1.0 if salient_missing else 0.0,
    )


@dataclass(frozen=True)
class AnswerabilityModel:
    """Logistic weights over the features (standardised by ``mean``/``scale``) and the
    probability under which the question is treated as unanswerable."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    read_threshold: float
    """The probability at or over which a question under ``threshold`` is not refused when
    a model that reads the context can be asked whether it holds the answer (the local
    model's reading check, asked before the answer is written): that model decides."""
    embedders: frozenset[str] = MINILM_MODEL_IDS  # the embedders whose scores it holds for

    def probability(self, found: Features) -> float:
        """P(the notes answer the question) by the fitted model."""
        z = self.bias + sum(
            w * (x - m) / s
            for w, x, m, s in zip(self.weights, found.vector(), self.mean, self.scale, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


# Fitted by bench/fit_answerability.py on the dev items of bench/qa (311 questions: 71 of
# vaults.jsonl, 60 each of vaults-dev2.jsonl to vaults-dev5.jsonl; MiniLM, default
# settings, BM25 searched 4 x hits_per_scope deep); threshold chosen on leave-one-out
# probabilities. See docs/answerability.md.
DEFAULT_MODEL = AnswerabilityModel(
    weights=(0.1621, 0.7045, 2.0164, 0.6806, -0.1015, -1.7223, -1.7645),
    bias=1.5283,
    mean=(0.5386, 0.0714, 0.5741, 0.888, 0.6218, 0.0907, 0.1222),
    scale=(0.1169, 0.0527, 0.1884, 0.2767, 0.2505, 0.1838, 0.3275),
    threshold=0.7855,
    # chosen on the dev questions the gate refuses, asked with the local model (bench/
    # gate_band.py; docs/answerability.md, section 2)
    read_threshold=0.5,
)
