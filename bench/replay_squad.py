"""Recorded SQuAD 2.0 answers of the bundled model through this code's checks, no model run.

``bench/ask_squad.py --providers local`` asks its draw of SQuAD 2.0 questions through
``Engine.ask`` and logs each question's raw answer (``raw``) and the reading check's P(yes)
(``reading``). ``bench/records/local-squad.jsonl`` keeps those of the four draws reported
in ``bench/RESULTS.md`` (seeds 0-3, 240 questions, half of them unanswerable). Each is asked
again on the same index with a scripted model named ``local`` that writes the recorded raw
answer and gives the recorded P(yes): retrieval, the gate, the prompt's sources and every
check after the model are this checkout's. Reported: the answer rate on answerable
questions, the abstention on unanswerable ones (issue 15's SQuAD target: 0.60 at an answer
rate of 0.85), and each question whose outcome differs from the recorded one.

A question that abstained before any model call when recorded and reaches the model now
has no answer to replay: it is counted (``needs a model run``) and scored as abstained.

    python bench/replay_squad.py [--records bench/records/local-squad.jsonl] [--out DIR]

The index is ``ask_squad.py``'s (``--out``, default ``bench/out/squad``), built on first use.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from _measure import REPO
from ask_squad import OUT, judge, load_questions, open_engine
from notecite.generate.reading import NOT_ANSWERED
from notecite.schemas.ask import AskRequest
from notecite.testing import ScriptedLLM

RECORDS = REPO / "bench" / "records" / "local-squad.jsonl"


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _yes(record: dict[str, Any]) -> float:
    """The recorded reading check's P(yes); where it did not run, what passes or refuses as
    the recorded answer did."""
    if record.get("reading") is not None:
        return float(record["reading"])
    return 0.0 if record.get("answer") == NOT_ANSWERED else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--out", type=Path, default=OUT, help="ask_squad.py's index folder")
    args = parser.parse_args()

    data, questions = load_questions()
    by_id = {q.qid: q for q in questions}
    records = _records(args.records)
    llm = ScriptedLLM("I don't know.", name="local", model_id="recorder")
    engine = open_engine(data, args.out.resolve(), 2, None, llm=llm)
    answered = refused = needs_model = 0
    changed: list[str] = []
    for record in records:
        question = by_id[record["qid"]]
        llm.answers[:] = [record.get("raw") or "I don't know."]
        llm.yes = _yes(record)
        calls = len(llm.answer_calls)
        outcome = judge(
            question, engine.ask(AskRequest(question=question.question, debug=True, llm="local"))
        )
        abstained = outcome.abstained
        if len(llm.answer_calls) > calls and not record.get("raw"):
            needs_model += 1
            abstained = True
        if question.answerable:
            answered += not abstained
        else:
            refused += abstained
        if abstained != record["abstained"]:
            kind = "answerable" if question.answerable else "unanswerable"
            now = "abstains" if abstained else "answers"
            changed.append(f"  {kind}, {now} now: {question.question}")
    engine.close()
    answerable = sum(by_id[r["qid"]].answerable for r in records)
    unanswerable = len(records) - answerable
    recorded_answered = sum(not r["abstained"] for r in records if by_id[r["qid"]].answerable)
    recorded_refused = sum(r["abstained"] for r in records if not by_id[r["qid"]].answerable)
    print(f"{len(records)} recorded SQuAD 2.0 questions replayed")
    print(
        f"answer rate (answerable): {answered}/{answerable} ({answered / answerable:.2f}); "
        f"recorded {recorded_answered}"
    )
    print(
        f"abstention (unanswerable): {refused}/{unanswerable} ({refused / unanswerable:.2f}); "
        f"recorded {recorded_refused}"
    )
    print(f"needs a model run: {needs_model}")
    print(f"outcomes that differ from the recorded ones: {len(changed)}")
    print("\n".join(changed))


if __name__ == "__main__":
    main()
