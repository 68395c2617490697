"""Does the key fact reach the model? The context a question's answer is written from, with
no model run.

For each answerable question of the vault QA sets (dev split by default), the question is
asked through ``Engine.ask`` exactly as ``notecite eval qa --llm local`` asks it, except that
the model is a scripted one named ``local`` (so the local model's context budget applies)
that records its prompt and answers nothing. Reported per context setting:

- ``key in context``: a must-contain phrase of the question is in the prompt (the answer
  cannot hold the key fact if the model never saw it);
- ``gold in context``: a gold note is one of the prompt's sources (all of them for a
  multi-note question);
- the prompt's context tokens (the embedder's count, as the budget counts them), p50 / p95.

Settings are compared side by side in one run: ``--setting evidence:280`` (the evidence
context at that budget), ``--setting chunks`` (whole chunks). The indexes are those of
``notecite eval qa`` under ``--home`` (run it first). The test split is read only when
``--split test`` is given.

    python bench/evidence_coverage.py --home H --setting evidence:300 --setting evidence:280 \
        --setting chunks
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _measure import QA_DEV_SETS, median, percentile
from _recorded import recorded_asks
from notecite.config import load_settings
from notecite.evaluate.qa_data import QaItem, load_qa
from notecite.evaluate.qa_metrics import holds

_SOURCE = re.compile(r"^\[N\d+\] (\S+)", re.MULTILINE)


@dataclass
class Coverage:
    """What reached the model under one setting."""

    asked: int = 0
    key: int = 0
    gold: int = 0
    tokens: list[int] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def _ask_overrides(setting: str) -> dict[str, object]:
    """``evidence:N`` or ``chunks`` as ``ask`` settings."""
    kind, _, budget = setting.partition(":")
    if kind == "chunks" and not budget:
        return {"context": "chunks"}
    if kind == "evidence" and budget.isdigit():
        return {"context": "evidence", "evidence_tokens_local": int(budget)}
    raise SystemExit(f"--setting {setting!r}: use evidence:N or chunks")


def _gold_shown(item: QaItem, prompt: str) -> bool:
    """A gold note among the prompt's sources (every one, for a multi-note question)."""
    shown = set(_SOURCE.findall(prompt))
    names = [Path(g).name.removesuffix(".md") for g in item.gold_files]
    found = [any(s == n or s.endswith("/" + n) for s in shown) for n in names]
    return all(found) if item.kind == "multi-note" else any(found)


def _cover(home: Path, items: Sequence[QaItem], setting: str) -> Coverage:
    found = Coverage()
    settings = load_settings(home=home, ask=_ask_overrides(setting))
    for asked in recorded_asks(settings, items):
        if not asked.prompt:
            continue  # abstained before any model call (the gate, an absent term)
        found.asked += 1
        if holds(asked.prompt, asked.item.must_contain):
            found.key += 1
        else:
            found.missed.append(asked.item.id)
        found.gold += _gold_shown(asked.item, asked.prompt)
        debug = asked.response.debug
        if debug is not None and debug.generation is not None:
            found.tokens.append(debug.generation.context_tokens)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, nargs="+", default=list(QA_DEV_SETS))
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--setting", action="append", default=[], help="evidence:N or chunks")
    parser.add_argument("--missed", action="store_true", help="list the questions missed")
    args = parser.parse_args()
    items = [
        item
        for path in args.data
        for item in load_qa(path)
        if item.split == args.split and item.answerable and item.must_contain
    ]
    print(f"{len(items)} answerable {args.split} questions with must-contain phrases")
    print(f"{'setting':<14} {'asked':>5} {'key in context':>15} {'gold in context':>16}  tokens")
    for setting in args.setting or ["evidence:280", "chunks"]:
        found = _cover(args.home, items, setting)
        if not found.asked:
            print(f"{setting:<14} no question reached the model")
            continue
        tokens = f"{median(found.tokens):.0f} / {percentile(found.tokens, 95):.0f}"
        print(
            f"{setting:<14} {found.asked:>5} {found.key:>9} ({found.key / found.asked:.2f})"
            f" {found.gold:>10} ({found.gold / found.asked:.2f})  {tokens}"
        )
        if args.missed:
            print("  key missed:", " ".join(found.missed))


if __name__ == "__main__":
    main()
