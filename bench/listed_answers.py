"""How long a listed answer takes: backlinks, mentions, open tasks, every note.

Those questions are answered from the store with no search and no model call. Each is
asked ``--runs`` times in one process on the Dendron vault's QA index (1,012 notes), with the
extractive provider. The baseline is searched questions (embedding, hybrid ranking,
evidence), each asked once so that no cache answers it; the median wall time of each row is
reported with its ratio to the baseline's, the strategy the answer took, and the load
average.

    python bench/listed_answers.py --home H --runs 7

H holds the ``qa-dendron`` index that ``notecite --home H eval qa --data
bench/qa/vaults.jsonl`` builds.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

from _measure import machine, median

BASELINE = (
    "How do I create a daily journal note?",
    "How do I rename a note and update its links?",
    "What does the lookup bar do?",
    "How do I publish my notes to GitHub Pages?",
    "How do I add a vault to my workspace?",
    "What is a schema in Dendron?",
    "How do I insert a note reference?",
    "How do I refactor a hierarchy?",
    "What does the tree view show?",
    "How do I use templates for new notes?",
    "How do I configure the daily journal?",
)
QUESTIONS = (
    "Which notes link to community.discord.roles?",
    "Which notes mention Greenhouse?",
    "What are my open todos?",
    "How many notes do I have?",
)


def _timed(engine: Any, question: str) -> tuple[str, float]:
    """The strategy of ``question``'s answer and its wall time."""
    from notecite.schemas.ask import AskRequest

    started = time.perf_counter()
    response = engine.ask(AskRequest(question=question, debug=True))
    seconds = time.perf_counter() - started
    return (response.debug.strategy if response.debug else ""), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="a home with the qa-dendron index")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    os.environ["NOTECITE_HOME"] = str(args.home)
    from notecite.config import load_settings
    from notecite.engine import Engine
    from notecite.evaluate.beir import eval_settings
    from notecite.schemas.ask import AskRequest

    print(machine())
    load_before = os.getloadavg()
    settings = eval_settings(load_settings(llm="extractive"), "qa-dendron")
    rows: list[tuple[str, str, float]] = []
    with Engine(settings) as engine:
        engine.ask(AskRequest(question="warm up: load the embedder"))  # outside the runs
        searched = [_timed(engine, question) for question in BASELINE]
        rows.append(
            ("searched (baseline, each once)", searched[0][0], median([s for _, s in searched]))
        )
        for question in QUESTIONS:
            runs = [_timed(engine, question) for _ in range(args.runs)]
            rows.append((question, runs[0][0], median([s for _, s in runs])))
    base = rows[0][2]
    print(f"{'question':48s} {'strategy':14s} {'p50 ms':>8s} {'x baseline':>10s}")
    for question, strategy, p50 in rows:
        print(f"{question[:48]:48s} {strategy[:14]:14s} {p50 * 1000:8.1f} {p50 / base:10.2f}")
    load_after = os.getloadavg()
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")


if __name__ == "__main__":
    main()
