"""Where the gold note ranks, and whether the key fact reaches the local model's prompt.

Each answerable question of the vault QA sets (dev split by default) is asked through
``Engine.ask`` as ``notecite eval qa --llm local`` asks it, except that the model is a
scripted one named ``local`` (so the local model's context budget applies) that records its
prompt and answers nothing. Per setting it reports, over the retrieval's ranking of notes
(a note ranks where its best chunk does):

- gold first / in the top 3 / in the top 10, and the mean reciprocal rank of the best
  ranked gold note (0 for one not retrieved);
- key fact in the prompt: every must-contain phrase of the question is in the prompt the
  model would read.

``--set SECTION.KEY=VALUE`` (repeatable) adds a column with that setting changed, measured
in the same run beside the configured settings (``--set retrieval.superseded_weight=1``).
The indexes are those of ``notecite eval qa`` under ``--home`` (run it first). The test split
is read only when ``--split test`` is given.

    python bench/qa_ranking.py --home H --set retrieval.superseded_weight=1 [--changed]
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _measure import QA_DEV_SETS, machine
from _recorded import recorded_asks
from notecite.config import Settings, load_settings
from notecite.evaluate.qa_data import QaItem, load_qa
from notecite.evaluate.qa_metrics import holds


@dataclass
class Ranked:
    """One setting's outcome per question id: the gold note's rank (None: not retrieved)
    and whether the key fact reached the prompt."""

    name: str
    rank: dict[str, int | None] = field(default_factory=dict)
    key: dict[str, bool] = field(default_factory=dict)

    def row(self) -> str:
        ranks = list(self.rank.values())
        first = sum(r == 1 for r in ranks)
        top3 = sum(r is not None and r <= 3 for r in ranks)
        top10 = sum(r is not None and r <= 10 for r in ranks)
        mrr = sum(1 / r for r in ranks if r) / max(len(ranks), 1)
        keys = f"{sum(self.key.values())} of {len(self.key)}"
        return f"{self.name:38} {first:5} {top3:5} {top10:6} {mrr:6.3f}   {keys}"


def with_setting(settings: Settings, assignment: str) -> Settings:
    """``settings`` with ``SECTION.KEY=VALUE`` set (the value read as JSON, else a string)."""
    path, _, raw = assignment.partition("=")
    section, _, key = path.partition(".")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    part = getattr(settings, section)
    return settings.model_copy(update={section: part.model_copy(update={key: value})})


def measure(name: str, settings: Settings, items: list[QaItem]) -> Ranked:
    out = Ranked(name)
    for asked in recorded_asks(settings, items):
        item, debug = asked.item, asked.response.debug
        notes: list[str] = []
        for chunk in debug.retrieved_chunks if debug else []:
            if chunk.rel_path not in notes:
                notes.append(chunk.rel_path)
        out.rank[item.id] = next(
            (n for n, path in enumerate(notes, start=1) if path in item.gold_files), None
        )
        if item.must_contain:
            out.key[item.id] = bool(asked.prompt) and holds(asked.prompt, item.must_contain)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--data", type=Path, action="append", help="default: the dev sets")
    parser.add_argument("--set", dest="changes", action="append", default=[])
    parser.add_argument("--changed", action="store_true", help="list the questions that moved")
    args = parser.parse_args()
    sets = args.data or list(QA_DEV_SETS)
    items = [i for path in sets for i in load_qa(path) if i.split == args.split and i.answerable]
    settings = load_settings(home=args.home)
    results = [measure("configured", settings, items)]
    results.extend(measure(c, with_setting(settings, c), items) for c in args.changes)
    print(f"{len(items)} answerable {args.split} questions; {machine()}")
    print(f"{'setting':38} {'first':>5} {'top3':>5} {'top10':>6} {'MRR':>6}   key fact in prompt")
    for result in results:
        print(result.row())
    if args.changed:
        base = results[0]
        for other in results[1:]:
            for qid, rank in base.rank.items():
                if other.rank[qid] != rank or other.key.get(qid) != base.key.get(qid):
                    print(
                        f"  {qid}: rank {rank} -> {other.rank[qid]} with {other.name}, "
                        f"key {base.key.get(qid)} -> {other.key.get(qid)}"
                    )


if __name__ == "__main__":
    main()
