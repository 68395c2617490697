"""`notecite eval qa`: ask questions with known answers of a vault and score the answers.

Each line of the data file is ``{"question", "answerable", "gold_files", "must_contain"}``:
``gold_files`` are paths relative to the vault (a retrieved path matches when it equals one
or ends with ``/`` + one), ``must_contain`` are strings a correct answer contains
(case-insensitive). Metrics:

- **hit@k**: answerable questions with gold files whose top ``k`` retrieved files (distinct,
  in rank order) include a gold file, over those questions.
- **answer rate**: questions answered (not abstained), over all questions.
- **abstention precision**: unanswerable questions among the abstained ones;
  **recall**: abstained ones among the unanswerable questions.
- **citation hit rate**: answered answerable questions with gold files that cite a gold
  file, over those questions.
- **must-contain rate**: answered answerable questions with ``must_contain`` whose answer
  holds every string, over those questions.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from notecite.config import Settings
from notecite.engine import Engine
from notecite.errors import ConfigError
from notecite.schemas.ask import AskRequest, AskResponse


@dataclass(frozen=True)
class QaItem:
    """One question with what a right answer looks like."""

    question: str
    answerable: bool
    gold_files: tuple[str, ...] = ()
    must_contain: tuple[str, ...] = ()


@dataclass(frozen=True)
class QaOutcome:
    """What the engine did with one question."""

    retrieved_files: tuple[str, ...]
    cited_files: tuple[str, ...]
    answer: str
    abstained: bool


@dataclass(frozen=True)
class QaReport:
    """The metrics (None where no question qualifies) and the counts behind them."""

    questions: int
    k: int
    hit_at_k: float | None
    answer_rate: float | None
    abstention_precision: float | None
    abstention_recall: float | None
    citation_hit_rate: float | None
    must_contain_rate: float | None
    counts: dict[str, int] = field(default_factory=dict)


def load_qa(path: Path) -> list[QaItem]:
    """Read the JSONL file; a malformed line is a ConfigError naming its number."""
    if not path.is_file():
        raise ConfigError(f"QA data file not found: {path}")
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            items.append(
                QaItem(
                    question=str(raw["question"]),
                    answerable=bool(raw["answerable"]),
                    gold_files=tuple(str(g) for g in raw.get("gold_files") or ()),
                    must_contain=tuple(str(m) for m in raw.get("must_contain") or ()),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{path}:{number}: not a QA line ({exc})") from exc
    return items


def _matches(path: str, gold: Sequence[str]) -> bool:
    clean = path.strip("/")
    return any(clean == g.strip("/") or clean.endswith("/" + g.strip("/")) for g in gold)


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def score_qa(items: Sequence[QaItem], outcomes: Sequence[QaOutcome], k: int) -> QaReport:
    """The metrics of ``outcomes`` (one per item, in order)."""
    if len(items) != len(outcomes):
        raise ValueError("one outcome per item is needed")
    pairs = list(zip(items, outcomes, strict=True))
    with_gold = [(i, o) for i, o in pairs if i.answerable and i.gold_files]
    hits = sum(_matches_any(o.retrieved_files[:k], i.gold_files) for i, o in with_gold)
    answered = [(i, o) for i, o in pairs if not o.abstained]
    abstained = [(i, o) for i, o in pairs if o.abstained]
    unanswerable = [(i, o) for i, o in pairs if not i.answerable]
    right_abstentions = sum(not i.answerable for i, _ in abstained)
    cited_pool = [(i, o) for i, o in answered if i.answerable and i.gold_files]
    cited_hits = sum(_matches_any(o.cited_files, i.gold_files) for i, o in cited_pool)
    contain_pool = [(i, o) for i, o in answered if i.answerable and i.must_contain]
    contain_hits = sum(
        all(m.lower() in o.answer.lower() for m in i.must_contain) for i, o in contain_pool
    )
    return QaReport(
        questions=len(pairs),
        k=k,
        hit_at_k=_ratio(hits, len(with_gold)),
        answer_rate=_ratio(len(answered), len(pairs)),
        abstention_precision=_ratio(right_abstentions, len(abstained)),
        abstention_recall=_ratio(right_abstentions, len(unanswerable)),
        citation_hit_rate=_ratio(cited_hits, len(cited_pool)),
        must_contain_rate=_ratio(contain_hits, len(contain_pool)),
        counts={
            "answerable_with_gold": len(with_gold),
            "answered": len(answered),
            "abstained": len(abstained),
            "unanswerable": len(unanswerable),
        },
    )


def _matches_any(paths: Sequence[str], gold: Sequence[str]) -> bool:
    return any(_matches(p, gold) for p in paths)


def outcome_of(response: AskResponse) -> QaOutcome:
    """Files in retrieval rank order (distinct) and cited files, from a debug response."""
    chunks = response.debug.retrieved_chunks if response.debug else []
    retrieved = tuple(dict.fromkeys(c.rel_path for c in chunks))
    cited = tuple(dict.fromkeys(r.rel_path for r in response.references if not response.abstained))
    return QaOutcome(retrieved, cited, response.answer, response.abstained)


def run_qa(
    settings: Settings,
    data: Path,
    vault: str,
    k: int = 5,
    llm: str | None = None,
    progress: Callable[[str], None] = lambda message: None,
) -> QaReport:
    """Ask every question of ``data`` against ``vault`` and score the answers.

    ``vault`` is a folder (indexed into its own store under ``<home>/eval/``) or the name
    of a vault already registered in the index.
    """
    items = load_qa(data)
    folder = Path(vault).expanduser()
    if folder.is_dir():
        name = folder.resolve().name or "vault"
        path = settings.home / "eval" / f"qa-{name}.db"
        settings = settings.model_copy(
            update={"store": settings.store.model_copy(update={"path": path})}
        )
    with Engine(settings) as engine:
        if folder.is_dir():
            if engine.store.get_vault(name) is None:
                engine.add_vault(name, folder)
            for report in engine.index(name):
                progress(report.summary())
        else:
            name = engine.vault(vault).name
        outcomes = []
        for number, item in enumerate(items, start=1):
            response = engine.ask(
                AskRequest(question=item.question, vaults=[name], debug=True, llm=llm)
            )
            outcomes.append(outcome_of(response))
            progress(f"{number}/{len(items)} {'abstained' if response.abstained else 'answered'}")
    return score_qa(items, outcomes, k)
