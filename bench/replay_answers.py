"""Recorded answers through this code's checks, with no model run.

``notecite eval qa --llm local --out RUN.jsonl`` records each question's raw answer (the
model's text as written, ``raw``). Each recorded question of the vault QA sets is asked again
through ``Engine.ask`` as ``eval qa`` asks it, with a scripted model named ``local`` that
writes the recorded raw answer: retrieval, the prompt's sources and every check after the
model (citations, grounding, quoting, the absent-terms hint) are this checkout's. Reported
like ``eval qa``, per kind: gold note cited, must-contain, wrongly abstained, abstained.

What a replay cannot do, it counts:
- a question that abstained before any model call when recorded and now reaches the model
  has no answer to replay (``needs a model run``; scored as abstained);
- an answer that echoed the absent-terms hint and was asked again is replayed as its two
  replies, and so is one written again from the quoted lines (``raw_rewritten``); a record
  with no such second reply where the code now asks for one ``needs a model run``;
- the reading check is given the verdict the recorded run had (refused when the recorded
  answer is the reading check's abstention, else passed); an answer that reaches the check
  now but did not then (it abstained otherwise, or was a yes/no question) is passed, and
  counted (``read now, not then``).

The indexes are those of ``notecite eval qa`` under ``--home``: run it first on
``bench/qa/vaults.jsonl`` (Foam and Dendron) and on ``bench/qa/personal-dev.jsonl`` (the
personal vault); a vault with no index stops the replay with a message. Compare two
versions of the code by running this script from each (``PYTHONPATH=OTHER/src``).
``bench/records/local-dev.jsonl`` holds the bundled model's latest recorded answer to every
dev question (see ``bench/records/README.md``).

    python bench/replay_answers.py --home H --records bench/records/local-dev.jsonl [--out F]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _measure import QA_DEV_SETS
from _recorded import recorded_asks
from notecite.config import load_settings
from notecite.evaluate.qa import outcome_of
from notecite.evaluate.qa_data import QaItem, load_qa
from notecite.evaluate.qa_metrics import QaOutcome, QaReport, score_qa
from notecite.generate.prompts import echoes_hint
from notecite.generate.reading import NOT_ANSWERED
from notecite.testing import ScriptedLLM

QA_DIR = Path(__file__).resolve().parent / "qa"


@dataclass(frozen=True)
class Replayed:
    """One recorded question asked again: its outcome and what the replay could not do."""

    item: QaItem
    outcome: QaOutcome
    needs_model: bool  # it reaches the model now, and the record has no answer to give it
    read_now_only: bool  # the reading check ran now, and not in the recorded run
    kept_files: tuple[str, ...] = ()  # the files of the chunks the prompt was given


def _records(paths: Sequence[Path]) -> dict[str, dict[str, Any]]:
    """The recorded asks by question id (a later file's record of a question wins)."""
    records: dict[str, dict[str, Any]] = {}
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                records[record["id"]] = record
    return records


def _read_in(record: dict[str, Any]) -> bool:
    """Did the recorded run put the answer to the reading check (``eval qa --out`` records
    its time)?"""
    return (record.get("timings_ms") or {}).get("reading_check") is not None


def _attempts(raw: str) -> list[str]:
    """The model's replies in a recorded raw answer: an answer that only echoed the
    absent-terms hint was asked once more without it, and ``raw`` holds both, joined by a
    blank line (``generate/answer.py``)."""
    first, _, again = raw.partition("\n\n")
    return [first, again] if again and echoes_hint(first) else [raw]


def _items(data: Sequence[Path]) -> dict[str, QaItem]:
    return {item.id: item for path in data for item in load_qa(path)}


def replay(
    home: Path, items: Sequence[QaItem], records: dict[str, dict[str, Any]]
) -> list[Replayed]:
    """Each of ``items`` asked with its recorded raw answer, vault by vault."""

    def script(item: QaItem, llm: ScriptedLLM) -> None:
        record = records[item.id]
        llm.answers[:] = _attempts(record.get("raw") or "")
        if record.get("raw_rewritten"):
            llm.answers.append(record["raw_rewritten"])
        llm.yes = 0.0 if record.get("answer", "") == NOT_ANSWERED else 1.0

    done: list[Replayed] = []
    for asked in recorded_asks(load_settings(home=home), items, script):
        record = records[asked.item.id]
        outcome = outcome_of(asked.response)
        debug = asked.response.debug
        rewrote = debug is not None and bool(debug.raw_rewritten)
        needs_model = bool(asked.prompt) and (
            not record.get("raw") or (rewrote and not record.get("raw_rewritten"))
        )
        if needs_model:
            outcome = QaOutcome(outcome.retrieved_files, (), "", True, 0.0)
        read_then = record.get("reading_checked", _read_in(record))
        kept = (
            tuple(dict.fromkeys(c.rel_path for c in debug.retrieved_chunks if c.kept))
            if debug
            else ()
        )
        done.append(Replayed(asked.item, outcome, needs_model, asked.read and not read_then, kept))
    return done


def _show(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _table(report: QaReport) -> str:
    header = f"{'group':<15}{'n':>4}{'cited':>7}{'must':>7}{'wrong-abst':>11}{'abstained':>10}"
    rows = (
        f"{g.group:<15}{g.questions:>4}{_show(g.gold_cited):>7}{_show(g.must_contain):>7}"
        f"{_show(g.wrongly_abstained):>11}{_show(g.abstained):>10}"
        for g in report.groups
    )
    return "\n".join([header, *rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--records", type=Path, nargs="+", required=True)
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=list(QA_DEV_SETS),
        help="QA files the recorded ids are read from (default: the dev sets)",
    )
    parser.add_argument("--split", default="dev", help="only the items of this split")
    parser.add_argument("--out", type=Path, help="per-question outcomes, as JSON")
    args = parser.parse_args()

    known = _items(args.data)
    records = _records(args.records)
    items = [known[i] for i in records if i in known and known[i].split == args.split]
    if not items:
        raise SystemExit("no recorded question of the given sets and split")
    done = replay(args.home, items, records)
    report = score_qa([d.item for d in done], [d.outcome for d in done])
    print(f"{len(done)} recorded questions replayed (split {args.split})")
    print(_table(report))
    print(f"needs a model run: {sum(d.needs_model for d in done)}")
    print(f"read now, not then: {sum(d.read_now_only for d in done)}")
    if args.out is not None:
        rows = {
            d.item.id: {
                "abstained": d.outcome.abstained,
                "answer": d.outcome.answer,
                "cited": list(d.outcome.cited_files),
                "retrieved": list(d.outcome.retrieved_files),
                "in_prompt": list(d.kept_files),
                "needs_model": d.needs_model,
            }
            for d in done
        }
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
