"""The reading check's threshold (``ask.reading_threshold``), chosen on dev questions.

The questions are asked through ``Engine.ask`` as ``notecite eval qa --llm local`` and
``bench/ask_squad.py`` ask them, with a scripted model named ``local`` (so the local budget
and prompt apply) that records the answer prompt it was sent; the reading check's messages
are that prompt (without the absent-terms hint, as the product sends it) with
``READING_QUESTION`` after it. The bundled model then weighs each of them
(``LocalLLM.yes_probability``), one at a time, as it would after its answer. Questions:

- every answerable **dev** question of the vault QA sets that reaches the model (the
  indexes of ``notecite eval qa`` under ``--home``; run that first);
- ``--squad-n`` answerable and as many unanswerable SQuAD 2.0 questions drawn (seed
  ``--seed``) from those **outside** ``bench/ask_squad.py``'s seed-0 sample of 200, which is
  where the figures are reported (its index under ``bench/out/squad``; run that first).

Questions answered yes or no are not checked (``asks_yes_or_no``) and are counted apart.
Each weighed question's P(yes) and the gate's P(answerable) are logged to ``--out``.
For each threshold: SQuAD unanswerable refused, SQuAD answerable kept, vault answerable
refused; with ``--records`` (the JSON lines of ``notecite eval qa --out``, or
``bench/records/local-dev.jsonl``), how many of the refused vault answers held the key fact
or cited a gold note in that run, and how many of the model's raw answers held the key fact
(a run with the check on refused some of them: its final answer holds nothing).

    python bench/fit_reading_check.py --home /tmp/qa-scratch/home --records RUN.jsonl ...
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

from _measure import QA_DEV_SETS, REPO, machine
from ask_squad import OUT, load_questions, sample
from notecite import Engine
from notecite.config import (
    AskSettings,
    EmbedderSettings,
    GenerationSettings,
    Settings,
    StoreSettings,
    load_settings,
)
from notecite.evaluate.beir import eval_settings
from notecite.evaluate.qa_data import QaItem, load_qa
from notecite.evaluate.qa_metrics import holds
from notecite.generate.base import ChatMessage
from notecite.generate.local import LocalLLM
from notecite.generate.prompts import ABSENT_HINT
from notecite.generate.reading import asks_yes_or_no, reading_messages
from notecite.schemas.ask import AskRequest
from notecite.store.sqlite import SQLiteStore
from notecite.testing import ScriptedLLM

_HINT_START = ABSENT_HINT.split("{", 1)[0]
THRESHOLDS = (0.45, 0.5, 0.53, 0.55, 0.57, 0.6, 0.62, 0.65, 0.7)

Asked = tuple[str, str, bool, tuple[ChatMessage, ...] | None, float | None]
"""(set, question id, answerable, the reading check's messages (None: not checked), the
gate's P(answerable))."""


def _recorder() -> ScriptedLLM:
    return ScriptedLLM("I don't know.", name="local", model_id="recorder")


def _checked(llm: ScriptedLLM, question: str) -> tuple[ChatMessage, ...] | None:
    """The reading check's messages for the last answer prompt (None: a yes/no question,
    which is not checked)."""
    if asks_yes_or_no(question):
        return None
    *head, user = llm.answer_calls[-1].messages
    lines = user.content.split("\n")
    if lines[-1].startswith(_HINT_START):  # the absent-terms hint: the check goes without
        lines = lines[:-1]
    return reading_messages((*head, ChatMessage(user.role, "\n".join(lines).rstrip())))


def vault_items() -> list[QaItem]:
    """The answerable dev questions of the vault QA sets."""
    return [
        item
        for path in QA_DEV_SETS
        for item in load_qa(path)
        if item.split == "dev" and item.answerable
    ]


def vault_questions(home: Path, items: Sequence[QaItem]) -> list[Asked]:
    asked: list[Asked] = []
    for vault in sorted({i.vault for i in items if i.vault}):
        llm = _recorder()
        with Engine(eval_settings(load_settings(home=home), f"qa-{vault}"), llm=llm) as engine:
            for item in (i for i in items if i.vault == vault):
                answers = len(llm.answer_calls)
                response = engine.ask(
                    AskRequest(
                        question=item.question,
                        vaults=[vault],
                        folders=[*item.folders],
                        debug=True,
                    )
                )
                if len(llm.answer_calls) > answers:  # reached the model
                    gate = response.debug.answerability if response.debug else None
                    asked.append(("vault", item.id, True, _checked(llm, item.question), gate))
    return asked


def squad_questions(n: int, seed: int) -> list[Asked]:
    _data, questions = load_questions()
    reported = {q.qid for q in sample(questions, 200, 0)}
    rest = [q for q in questions if q.qid not in reported]
    rng = random.Random(seed)
    chosen = rng.sample([q for q in rest if q.answerable], n)
    chosen += rng.sample([q for q in rest if not q.answerable], n)
    out = OUT.resolve()
    if not (out / "index.done").is_file():
        raise SystemExit(f"no SQuAD index in {out}: run bench/ask_squad.py first")
    settings = Settings(
        home=out,
        store=StoreSettings(path=out / "index.db"),
        embedder=EmbedderSettings(name="minilm"),
        ask=AskSettings(folder_ranking="off"),
    )
    llm = _recorder()
    asked: list[Asked] = []
    with Engine(settings, store=SQLiteStore(out / "index.db"), llm=llm) as engine:
        for q in chosen:
            answers = len(llm.answer_calls)
            response = engine.ask(AskRequest(question=q.question, debug=True))
            if len(llm.answer_calls) > answers:
                gate = response.debug.answerability if response.debug else None
                messages = _checked(llm, q.question)
                asked.append(("squad", q.qid, q.answerable, messages, gate))
    return asked


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    pairs = [(p > n) + 0.5 * (p == n) for p in positive for n in negative]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="notecite eval qa's home")
    parser.add_argument("--squad-n", type=int, default=30, help="SQuAD questions per side")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--records", type=Path, nargs="*", default=[])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "reading.jsonl")
    args = parser.parse_args()

    items = vault_items()
    asked = squad_questions(args.squad_n, args.seed) + vault_questions(args.home, items)
    model = LocalLLM(GenerationSettings(threads=args.threads), args.home / "models")
    print(f"# fit_reading_check\nmachine: {machine()}\n{len(asked)} questions reached the model")
    scores: dict[str, float] = {}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with args.out.open("w") as log:
        for kind, qid, answerable, messages, gate in asked:
            if messages is None:
                continue
            chance = model.yes_probability(messages)
            scores[qid] = chance if chance is not None else 1.0
            record = {"set": kind, "id": qid, "answerable": answerable, "p_yes": chance}
            log.write(json.dumps({**record, "p_gate": gate}) + "\n")
    print(f"weighed {len(scores)} in {time.perf_counter() - started:.0f} s; log: {args.out}")
    records = {
        r["id"]: r
        for path in args.records
        for line in path.read_text().splitlines()
        if line.strip()
        for r in [json.loads(line)]
    }

    def group(kind: str, answerable: bool) -> list[str]:
        return [q for k, q, a, m, _ in asked if k == kind and a is answerable and m is not None]

    skipped = {
        k: sum(1 for kk, _, _, m, _ in asked if kk == k and m is None) for k in ("squad", "vault")
    }
    sq_a, sq_u, vault = group("squad", True), group("squad", False), group("vault", True)
    print(
        f"checked: SQuAD {len(sq_a)} answerable + {len(sq_u)} unanswerable, vault "
        f"{len(vault)} answerable; not checked (yes/no questions): {skipped}"
    )
    print(
        f"AUC, SQuAD answerable vs unanswerable: "
        f"{auc([scores[q] for q in sq_a], [scores[q] for q in sq_u]):.3f}"
    )
    musts = {item.id: item.must_contain for item in items}
    print(
        "| threshold | SQuAD unanswerable refused | SQuAD answerable kept | vault answerable "
        "refused | of them: key fact / gold cited in --records | key fact in its raw answer |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for threshold in THRESHOLDS:
        refused = [q for q in vault if scores[q] < threshold]
        right = sum(bool(records.get(q, {}).get("must_contain")) for q in refused)
        cited = sum(bool(records.get(q, {}).get("gold_cited")) for q in refused)
        raw = sum(holds(records.get(q, {}).get("raw") or "", musts[q]) for q in refused)
        print(
            f"| {threshold:.2f} | {sum(scores[q] < threshold for q in sq_u)} of {len(sq_u)} | "
            f"{sum(scores[q] >= threshold for q in sq_a)} of {len(sq_a)} | {len(refused)} of "
            f"{len(vault)} | {right} / {cited} | {raw} |"
        )


if __name__ == "__main__":
    main()
