"""The second personal-notes dev set, bench/qa/researcher-dev.jsonl, and the vault it asks
about, bench/qa/vault-researcher: the Obsidian vault of an ecology PhD student (field work
on river birds, supervision, literature, teaching, a conference, a bike, a flat share,
recipes), kept in Obsidian's default habits rather than vault-personal's: daily notes with
no frontmatter, Dataview inline fields, Tasks dates, footnotes, callouts, highlights, a
setext heading, a plain-text file and one org-mode file."""

from __future__ import annotations

import re
from collections import Counter

from notecite.engine import Engine
from notecite.evaluate.qa_data import check_against_vaults, check_set, load_qa
from tests.evaluate.written_sets import QA_DIR, field_problems, manifest_folder, shared_with

ITEMS = QA_DIR / "researcher-dev.jsonl"
VAULT = QA_DIR / "vault-researcher"
WRITTEN_BEFORE = (
    "vaults.jsonl",
    *(f"vaults-dev{n}.jsonl" for n in range(2, 12)),
    "personal-dev.jsonl",
)
COUNTS = {
    "fact": 14,
    "how-to": 8,
    "multi-note": 6,
    "time": 6,
    "folder-scoped": 4,
    "near-miss": 5,
    "off-topic": 5,
}
ID = re.compile(r"^researcher-(fact|howto|multi|time|folder|near|off)-\d\d$")


def test_the_researcher_set_is_well_formed_and_all_dev() -> None:
    items = load_qa(ITEMS)
    assert check_set(items) == []
    assert [i.id for i in items if not ID.match(i.id)] == []
    assert Counter(i.kind for i in items) == COUNTS
    assert field_problems(items, "researcher") == []


def test_the_researcher_set_shares_no_id_or_question_with_the_other_sets() -> None:
    assert shared_with(load_qa(ITEMS), WRITTEN_BEFORE) == []


def test_every_researcher_item_holds_against_its_vault() -> None:
    """Gold files exist, gold headings and must-contain phrases are found in them, no
    question copies 8 words of a gold note, and every near-miss term occurs nowhere in the
    vault."""
    items = load_qa(ITEMS)
    assert check_against_vaults(items, {"researcher": VAULT}) == []


def test_the_manifest_names_the_researcher_vault() -> None:
    assert manifest_folder("researcher") == VAULT.resolve()


def test_every_note_of_the_researcher_vault_is_indexed(engine: Engine) -> None:
    """Markdown with and without frontmatter, a plain-text file and an org-mode file: none
    fails."""
    engine.add_vault("researcher", VAULT)
    (report,) = engine.index("researcher")
    files = [p for p in VAULT.rglob("*") if p.is_file()]
    assert report.failed == 0, report.summary()
    assert report.added == len(files)
    assert {p.suffix for p in files} == {".md", ".txt", ".org"}
