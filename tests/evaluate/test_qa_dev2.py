"""The second development question set, bench/qa/vaults-dev2.jsonl: its fields, its counts,
its place beside the first set (all dev, nothing shared with vaults.jsonl), and every item
checked against the shared vault it asks about."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from notecite.evaluate.qa_data import check_against_vaults, check_set, load_qa
from tests.evaluate.vaults import shared_vault_roots

QA_DIR = Path(__file__).resolve().parents[2] / "bench" / "qa"
DEV2_FILE = QA_DIR / "vaults-dev2.jsonl"
FIRST_FILE = QA_DIR / "vaults.jsonl"

COUNTS = {
    ("fact", "foam"): 8,
    ("fact", "dendron"): 8,
    ("how-to", "foam"): 6,
    ("how-to", "dendron"): 6,
    ("multi-note", "foam"): 4,
    ("multi-note", "dendron"): 4,
    ("time", "dendron"): 6,
    ("folder-scoped", "foam"): 6,
    ("near-miss", "foam"): 3,
    ("near-miss", "dendron"): 3,
    ("off-topic", "foam"): 3,
    ("off-topic", "dendron"): 3,
}
SHARED_WORDS = re.compile(
    r"\b(notes?|links?|graph|templates?|publish\w*|vault|tags?|daily|journal|lookup|schema"
    r"|hierarchy|preview)\b",
    re.IGNORECASE,
)
ID = re.compile(r"^(foam|dendron)-(fact|howto|multi|time|folder|near|off)-d2-\d\d$")


def _question_key(text: str) -> str:
    return " ".join(text.lower().split())


def test_the_second_dev_set_is_well_formed_and_all_dev() -> None:
    items = load_qa(DEV2_FILE)
    assert check_set(items) == []
    assert Counter((i.kind, i.vault) for i in items) == COUNTS
    assert len(items) == 60
    assert {i.split for i in items} == {"dev"}  # not split by hash: the test split stays as is
    bad_ids = [i.id for i in items if not (m := ID.match(i.id)) or m.group(1) != i.vault]
    assert bad_ids == []
    off_topic = [i for i in items if i.kind == "off-topic"]
    assert sum(bool(SHARED_WORDS.search(i.question)) for i in off_topic) >= 3
    for item in items:
        if item.kind in {"near-miss", "off-topic"}:
            assert not item.gold_files, item.id
            assert not item.must_contain, item.id
        if item.answerable:
            assert len(item.gold_headings) == len(item.gold_files), item.id


def test_the_second_dev_set_shares_no_id_or_question_with_the_first() -> None:
    items = load_qa(DEV2_FILE)
    first = load_qa(FIRST_FILE)
    assert {i.id for i in items}.isdisjoint({i.id for i in first})
    first_questions = {_question_key(i.question) for i in first}
    assert [i.id for i in items if _question_key(i.question) in first_questions] == []


def test_every_dev2_item_holds_against_its_shared_vault(shared_data: Path) -> None:
    """Gold files exist, gold headings and must-contain phrases are found in them, no
    question copies 8 words of a gold note, and every near-miss term occurs nowhere in the
    vault (one pass per vault)."""
    items = load_qa(DEV2_FILE)
    for vault in ("foam", "dendron"):  # each vault has near misses to look up
        assert [t for i in items if i.vault == vault for t in i.absent_terms], vault
    problems = check_against_vaults(items, shared_vault_roots(shared_data))
    assert problems == []
