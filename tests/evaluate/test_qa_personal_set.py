"""The personal-notes dev set, bench/qa/personal-dev.jsonl, and the vault it asks about,
bench/qa/vault-personal: one person's notes (work meetings, runbooks, projects and people;
daily notes, recipes, travel, reading, home and running), written for the project, unlike
the two shared vaults of software documentation."""

from __future__ import annotations

import re
from collections import Counter

from notecite.engine import Engine
from notecite.evaluate.qa_data import check_against_vaults, check_set, load_qa
from tests.evaluate.written_sets import QA_DIR, field_problems, manifest_folder, shared_with

ITEMS = QA_DIR / "personal-dev.jsonl"
VAULT = QA_DIR / "vault-personal"
WRITTEN_BEFORE = ("vaults.jsonl", *(f"vaults-dev{n}.jsonl" for n in range(2, 12)))
# (kind, half) -> questions: the work half (w) and the personal half (l) alike
COUNTS = {
    (kind, half): n
    for kind, n in {
        "fact": 14,
        "how-to": 8,
        "multi-note": 5,
        "time": 5,
        "folder-scoped": 4,
        "near-miss": 4,
        "off-topic": 4,
    }.items()
    for half in ("w", "l")
}
ID = re.compile(r"^personal-(fact|howto|multi|time|folder|near|off)-(w|l)-\d\d$")


def test_the_personal_set_is_well_formed_and_all_dev() -> None:
    items = load_qa(ITEMS)
    assert check_set(items) == []
    assert [i.id for i in items if not ID.match(i.id)] == []
    halves = Counter((i.kind, i.id.split("-")[2]) for i in items)
    assert halves == COUNTS
    assert field_problems(items, "personal") == []


def test_the_personal_set_shares_no_id_or_question_with_the_other_sets() -> None:
    assert shared_with(load_qa(ITEMS), WRITTEN_BEFORE) == []


def test_every_personal_item_holds_against_its_vault() -> None:
    """Gold files exist, gold headings and must-contain phrases are found in them, no
    question copies 8 words of a gold note, and every near-miss term occurs nowhere in the
    vault."""
    items = load_qa(ITEMS)
    assert check_against_vaults(items, {"personal": VAULT}) == []


def test_the_manifest_names_the_personal_vault() -> None:
    assert manifest_folder("personal") == VAULT.resolve()


def test_every_note_of_the_personal_vault_is_indexed(engine: Engine) -> None:
    """Markdown with frontmatter, a plain-text file and a saved HTML page: none fails."""
    engine.add_vault("personal", VAULT)
    (report,) = engine.index("personal")
    files = [p for p in VAULT.rglob("*") if p.is_file()]
    assert report.failed == 0, report.summary()
    assert report.added == len(files)
    assert {p.suffix for p in files} == {".md", ".txt", ".html"}
