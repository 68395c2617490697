"""Questions as people type them: the vault QA sets written in lowercase and with a typo.

A person types "does foam sync with logseq" or "How do I create a note from a tempalte?"
as often as the tidy question of a QA set. This asks every question of the sets (dev split
by default) three ways through ``notecite eval qa`` (``run_qa``), on the same indexes:

- ``as-written``: the question as the set writes it;
- ``lowercase``: all in lowercase, the question mark dropped ("does foam sync with logseq");
- ``typo``: the longest plain lowercase word of six or more letters that is no salient term
  has two neighbouring inner letters swapped ("extension" -> "extnesion"; seeded, so every
  run makes the same typos), a question with no such word left as written.

and reports, per form, the answerable questions' gold note cited, must-contain and wrongly
abstained, and the near misses' and off-topic questions' abstention. ``--typos-as-written``
turns the reading of misspelt words off (``notecite.retrieve.typos.respell`` finds none), to
show what it does. The indexes are those of ``notecite eval qa`` under ``--home`` (run it
first); the test split is read only when ``--split test`` is given.

    python bench/question_forms.py --home H --llm extractive
    python bench/question_forms.py --home H --llm extractive --typos-as-written
"""

from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from _measure import QA_DEV_SETS
from notecite.config import load_settings
from notecite.evaluate.qa import MANIFEST, run_qa
from notecite.evaluate.qa_data import QaItem, load_qa, to_json
from notecite.evaluate.qa_metrics import QaReport
from notecite.retrieve.salient import salient_terms
from notecite.retrieve.terms import STOPWORDS

FORMS = ("as-written", "lowercase", "typo")
_PLAIN_WORD = re.compile(r"(?<![\w`'\"./#@-])[a-z]{6,}(?![\w`'\"/-])")


def lowercase(question: str, rng: random.Random) -> str:
    return question.lower().rstrip(" ?")


def with_typo(question: str, rng: random.Random) -> str:
    named = {t.lower() for t in salient_terms(question)}
    words = [w for w in _PLAIN_WORD.findall(question) if w not in STOPWORDS | named]
    if not words:
        return question
    word = max(words, key=len)
    i = rng.randrange(1, len(word) - 2)
    typo = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return re.sub(rf"(?<![\w-]){word}(?![\w-])", typo, question, count=1)


TRANSFORMS: dict[str, Callable[[str, random.Random], str]] = {
    "as-written": lambda question, rng: question,
    "lowercase": lowercase,
    "typo": with_typo,
}


def _manifest(data: Path) -> dict[str, str]:
    """The vault folders named beside ``data``, as absolute paths."""
    named = json.loads((data.parent / MANIFEST).read_text(encoding="utf-8"))
    return {name: str((data.parent / folder).resolve()) for name, folder in named.items()}


def _write(items: Sequence[QaItem], form: str, folder: Path, seed: int) -> Path:
    rng = random.Random(seed)
    path = folder / f"{form}.jsonl"
    lines = []
    for item in items:
        line = to_json(item)
        line["question"] = TRANSFORMS[form](item.question, rng)
        lines.append(json.dumps(line))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _row(form: str, items: int, run_report: QaReport) -> str:
    answerable = run_report.group("answerable")
    near = run_report.group("near-miss")
    off = run_report.group("off-topic")
    return (
        f"| {form} | {items} | {answerable.gold_cited:.2f} | {answerable.must_contain:.2f} | "
        f"{answerable.wrongly_abstained:.2f} | {near.abstained:.2f} | {off.abstained:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, nargs="+", default=list(QA_DEV_SETS))
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--llm", default="extractive")
    parser.add_argument("--form", action="append", choices=FORMS, help="default: all three")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--typos-as-written", action="store_true")
    args = parser.parse_args()
    if args.typos_as_written:
        import notecite.retrieve.searched_question as searched_question

        searched_question.__dict__["respell"] = lambda question, salient, held: {}
    manifests = {name: folder for data in args.data for name, folder in _manifest(data).items()}
    items = [i for data in args.data for i in load_qa(data) if i.split == args.split]
    settings = load_settings(home=args.home)
    print(f"{len(items)} {args.split} questions, answered by {args.llm}")
    print(
        "| form | questions | gold cited | must-contain | wrongly abstained | near-miss "
        "| off-topic |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / MANIFEST).write_text(json.dumps(manifests), encoding="utf-8")
        for form in args.form or FORMS:
            path = _write(items, form, folder, args.seed)
            run = run_qa(settings, path, llm=args.llm, split=args.split)
            print(_row(form, len(items), run.report), flush=True)


if __name__ == "__main__":
    main()
