"""The third development question set, bench/qa/vaults-dev3.jsonl: its fields, its counts,
its place beside the first two sets (all dev, nothing shared with vaults.jsonl or
vaults-dev2.jsonl), and every item checked against the shared vault it asks about."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from notecite.evaluate.qa_data import check_against_vaults, check_set, load_qa
from tests.evaluate.vaults import shared_vault_roots

QA_DIR = Path(__file__).resolve().parents[2] / "bench" / "qa"
DEV3_FILE = QA_DIR / "vaults-dev3.jsonl"
EARLIER_FILES = (QA_DIR / "vaults.jsonl", QA_DIR / "vaults-dev2.jsonl")

COUNTS = {
    ("fact", "foam"): 8,
    ("fact", "dendron"): 8,
    ("how-to", "foam"): 7,
    ("how-to", "dendron"): 7,
    ("multi-note", "foam"): 4,
    ("multi-note", "dendron"): 4,
    ("time", "dendron"): 6,
    ("folder-scoped", "foam"): 8,
    ("near-miss", "foam"): 2,
    ("near-miss", "dendron"): 2,
    ("off-topic", "foam"): 2,
    ("off-topic", "dendron"): 2,
}
SHARED_WORDS = re.compile(
    r"\b(notes?|links?|graph|templates?|publish\w*|vault|tags?|daily|journal|lookup|schema"
    r"|hierarchy|preview)\b",
    re.IGNORECASE,
)
ID = re.compile(r"^(foam|dendron)-(fact|howto|multi|time|folder|near|off)-d3-\d\d$")


def _question_key(text: str) -> str:
    return " ".join(text.lower().split())


def test_the_third_dev_set_is_well_formed_and_all_dev() -> None:
    items = load_qa(DEV3_FILE)
    assert check_set(items) == []
    assert Counter((i.kind, i.vault) for i in items) == COUNTS
    assert len(items) == 60
    assert sum(i.answerable for i in items) == 52
    assert {i.split for i in items} == {"dev"}  # not split by hash: the test split stays as is
    bad_ids = [i.id for i in items if not (m := ID.match(i.id)) or m.group(1) != i.vault]
    assert bad_ids == []
    off_topic = [i for i in items if i.kind == "off-topic"]
    assert sum(bool(SHARED_WORDS.search(i.question)) for i in off_topic) >= 2
    for item in items:
        if item.kind in {"near-miss", "off-topic"}:
            assert not item.gold_files, item.id
            assert not item.must_contain, item.id
        if item.answerable:
            assert len(item.gold_headings) == len(item.gold_files), item.id


def test_the_third_dev_set_shares_no_id_or_question_with_the_earlier_sets() -> None:
    items = load_qa(DEV3_FILE)
    earlier = [i for path in EARLIER_FILES for i in load_qa(path)]
    assert {i.id for i in items}.isdisjoint({i.id for i in earlier})
    earlier_questions = {_question_key(i.question) for i in earlier}
    assert [i.id for i in items if _question_key(i.question) in earlier_questions] == []


def test_every_dev3_item_holds_against_its_shared_vault(shared_data: Path) -> None:
    """Gold files exist, gold headings and must-contain phrases are found in them, no
    question copies 8 words of a gold note, and every near-miss term occurs nowhere in the
    vault (one pass per vault)."""
    items = load_qa(DEV3_FILE)
    for vault in ("foam", "dendron"):  # each vault has near misses to look up
        assert [t for i in items if i.vault == vault for t in i.absent_terms], vault
    problems = check_against_vaults(items, shared_vault_roots(shared_data))
    assert problems == []
