"""Checks shared by the tests of the QA sets written over a vault of their own (the personal
and the researcher vaults): each is a dev set of one vault, new beside the sets before it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from notecite.evaluate.qa_data import QaItem, load_qa

QA_DIR = Path(__file__).resolve().parents[2] / "bench" / "qa"


def field_problems(items: Sequence[QaItem], vault: str) -> list[str]:
    """What ``check_set`` does not ask of such a set: every item of ``vault`` and ``dev``, an
    unanswerable one with no gold file or key fact, an answerable one with a gold heading
    for each gold file."""
    problems = [f"{i.id}: vault {i.vault!r}" for i in items if i.vault != vault]
    problems += [f"{i.id}: split {i.split!r}" for i in items if i.split != "dev"]
    for item in items:
        if not item.answerable and (item.gold_files or item.must_contain):
            problems.append(f"{item.id}: gold files or key facts for an unanswerable question")
        if item.answerable and len(item.gold_headings) != len(item.gold_files):
            problems.append(f"{item.id}: not one gold heading for each gold file")
    return problems


def shared_with(items: Sequence[QaItem], written_before: Sequence[str]) -> list[str]:
    """The ids of ``items`` whose id or question (case and spacing aside) a set of
    ``written_before`` (file names in ``bench/qa``) has already."""
    others = [i for name in written_before for i in load_qa(QA_DIR / name)]
    ids = {i.id for i in others}
    asked = {" ".join(i.question.lower().split()) for i in others}
    return [i.id for i in items if i.id in ids or " ".join(i.question.lower().split()) in asked]


def manifest_folder(vault: str) -> Path:
    """The folder ``bench/qa/vaults.json`` names for ``vault``, resolved."""
    manifest = json.loads((QA_DIR / "vaults.json").read_text(encoding="utf-8"))
    return (QA_DIR / manifest[vault]).resolve()
