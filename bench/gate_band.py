"""The dev questions the answerability gate refuses, for choosing its read threshold.

Under the gate's threshold (``DEFAULT_MODEL.threshold``) a question is refused before any
model call, unless its P(answerable) is at or over the read threshold and a model that
weighs yes/no can read the context: that model is then asked whether the context answers
before it writes (``docs/answerability.md``, section 2). This script lists every dev
question of the vault QA sets (``_measure.QA_DEV_SETS``) whose P (as ask computes it,
retrieving with the extractive provider; with the local model it can differ a little) is in
``[--low, threshold)``, with its kind and whether it asks yes or no (after an answer, the
reading check reads no such question; a doubted one is read first like any other), and
writes those questions to ``--out`` as a QA set (with a ``vaults.json`` beside it). Asking
that set with the local model and the read threshold at ``--low`` shows what the model
makes of each:

    .venv/bin/python bench/gate_band.py --home /tmp/qa --low 0.2 --out /tmp/band.jsonl
    NOTECITE_ASK__ANSWERABILITY_READ_THRESHOLD=0.2 .venv/bin/notecite --home /tmp/qa \\
        --llm local eval qa --data /tmp/band.jsonl --split dev --out /tmp/band-out.jsonl

``--fit-skew`` also lists the questions whose P from the features the gate was fitted on
(``fit_answerability.collect``) differs from the P at ask by more than 0.02.

The indexes are those of ``notecite eval qa`` under ``--home`` (run it first). The test
split is never read.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _measure import QA_DEV_SETS
from fit_answerability import ANSWERABLE, collect
from notecite import Engine
from notecite.config import load_settings
from notecite.generate.reading import asks_yes_or_no
from notecite.retrieve.answerability import DEFAULT_MODEL, Features
from notecite.schemas.ask import AskRequest, DebugInfo

QA_DIR = Path(__file__).resolve().parent / "qa"


def gate_chances(home: Path, items: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each item's P(answerable) as the gate computes it at ask (``debug.answerability``),
    retrieved with the extractive provider; items the gate never weighs (an absent name
    settled them, or nothing passed the thresholds) are left out."""
    chances: dict[str, float] = {}
    for vault in sorted({i["vault"] for i in items}):
        settings = load_settings(
            home=home / "eval", store={"path": home / "eval" / f"qa-{vault}.db"}, llm="extractive"
        )
        with Engine(settings) as engine:
            for item in (i for i in items if i["vault"] == vault):
                debug = DebugInfo()
                request = AskRequest(question=item["question"], folders=item.get("folders") or [])
                engine.retrieve(request, debug=debug)
                if debug.answerability is not None:
                    chances[item["id"]] = debug.answerability
    return chances


def show_fit_skew(home: Path, chances: dict[str, float], items: dict[str, dict[str, Any]]) -> None:
    """The questions whose P(answerable) from the fit's features differs from the P at ask
    (``chances``) by more than 0.02, and whether the difference crosses a threshold."""
    rows, _, ids = collect(home, QA_DEV_SETS)
    fitted = {
        qid: DEFAULT_MODEL.probability(Features(*map(float, row)))
        for row, qid in zip(rows, ids, strict=True)
    }
    differ = [q for q, p in chances.items() if q in fitted and abs(fitted[q] - p) > 0.02]
    print(f"{len(differ)} of {len(chances)} differ by more than 0.02 between the fit and ask:")
    for qid in differ:
        fit, ask = fitted[qid], chances[qid]
        crosses = any(
            (fit < t) != (ask < t) for t in (DEFAULT_MODEL.read_threshold, DEFAULT_MODEL.threshold)
        )
        mark = "crosses a threshold" if crosses else ""
        print(f"  fit {fit:.3f}  ask {ask:.3f}  {items[qid]['kind']:<14} {qid} {mark}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--low", type=float, default=0.2, help="the lowest P listed")
    parser.add_argument("--out", type=Path, help="write the listed questions here (JSONL)")
    parser.add_argument(
        "--fit-skew",
        action="store_true",
        help="also list the questions whose P in the gate's fit (fit_answerability.collect) "
        "differs from the P at ask by more than 0.02",
    )
    args = parser.parse_args()
    items = {
        item["id"]: item
        for path in QA_DEV_SETS
        for line in path.read_text().splitlines()
        if line.strip()
        for item in [json.loads(line)]
        if item["split"] == "dev"
    }
    chances = gate_chances(args.home, list(items.values()))
    band = sorted(
        (qid for qid, p in chances.items() if args.low <= p < DEFAULT_MODEL.threshold),
        key=lambda qid: -chances[qid],
    )
    answerable = sum(1 for item in items.values() if item["kind"] in ANSWERABLE)
    print(
        f"{len(items)} dev questions ({answerable} answerable), {len(chances)} weighed by the "
        f"gate; its threshold {DEFAULT_MODEL.threshold}, read threshold "
        f"{DEFAULT_MODEL.read_threshold}"
    )
    print(f"{len(band)} with P in [{args.low}, {DEFAULT_MODEL.threshold}):")
    print(f"{'P':>6}  {'kind':<14} {'yes/no':<6} id")
    for qid in band:
        item = items[qid]
        yes_no = "yes" if asks_yes_or_no(item["question"]) else ""
        print(f"{chances[qid]:6.3f}  {item['kind']:<14} {yes_no:<6} {qid}")
    if args.fit_skew:
        show_fit_skew(args.home, chances, items)
    if args.out is not None:
        args.out.write_text("".join(json.dumps(items[qid]) + "\n" for qid in band))
        # the vaults beside it, as eval qa finds them (bench/qa/vaults.json, made absolute)
        vaults = json.loads((QA_DIR / "vaults.json").read_text())
        absolute = {name: str((QA_DIR / folder).resolve()) for name, folder in vaults.items()}
        (args.out.parent / "vaults.json").write_text(json.dumps(absolute, indent=2) + "\n")


if __name__ == "__main__":
    main()
