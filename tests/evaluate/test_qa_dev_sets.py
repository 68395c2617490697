"""The later development question sets, bench/qa/vaults-dev2.jsonl to vaults-dev11.jsonl:
their fields, their counts, their place beside the earlier sets (all dev, nothing shared
with them), and every item checked against the shared vault it asks about."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from notecite.evaluate.qa_data import check_against_vaults, check_set, load_qa
from tests.evaluate.vaults import shared_vault_roots

QA_DIR = Path(__file__).resolve().parents[2] / "bench" / "qa"
SHARED_WORDS = re.compile(
    r"\b(notes?|links?|graph|templates?|publish\w*|vault|tags?|daily|journal|lookup|schema"
    r"|hierarchy|preview)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DevSet:
    """A later dev set and what it must hold."""

    name: str  # the file in bench/qa
    tag: str  # its ids: <vault>-<kind>-<tag>-<nn>
    counts: dict[tuple[str, str], int]  # (kind, vault) -> questions
    shared_off_topic: int  # off-topic questions that share a word with the vaults
    size: int = 60  # questions in the set

    @property
    def items_path(self) -> Path:
        return QA_DIR / self.name


def _counts(per_kind: dict[str, tuple[int, int]]) -> dict[tuple[str, str], int]:
    """(foam, dendron) per kind, without the zero ones."""
    return {
        (kind, vault): n
        for kind, pair in per_kind.items()
        for vault, n in zip(("foam", "dendron"), pair, strict=True)
        if n
    }


# vaults-dev4 to vaults-dev8, vaults-dev10 and vaults-dev11, each written as a fresh set and
# run once before any tuning
FRESH_SET_COUNTS = _counts(
    {
        "fact": (7, 7),
        "how-to": (6, 6),
        "multi-note": (3, 3),
        "time": (0, 5),
        "folder-scoped": (5, 0),
        "near-miss": (5, 5),
        "off-topic": (4, 4),
    }
)
DEV_SETS = (
    DevSet(
        "vaults-dev2.jsonl",
        "d2",
        _counts(
            {
                "fact": (8, 8),
                "how-to": (6, 6),
                "multi-note": (4, 4),
                "time": (0, 6),
                "folder-scoped": (6, 0),
                "near-miss": (3, 3),
                "off-topic": (3, 3),
            }
        ),
        3,
    ),
    DevSet(
        "vaults-dev3.jsonl",
        "d3",
        _counts(
            {
                "fact": (8, 8),
                "how-to": (7, 7),
                "multi-note": (4, 4),
                "time": (0, 6),
                "folder-scoped": (8, 0),
                "near-miss": (2, 2),
                "off-topic": (2, 2),
            }
        ),
        2,
    ),
    DevSet(
        "vaults-dev4.jsonl",
        "d4",
        FRESH_SET_COUNTS,
        4,
    ),
    DevSet(
        "vaults-dev5.jsonl",
        "d5",
        FRESH_SET_COUNTS,
        4,
    ),
    DevSet(
        "vaults-dev6.jsonl",
        "d6",
        FRESH_SET_COUNTS,
        4,
    ),
    DevSet(
        "vaults-dev7.jsonl",
        "d7",
        FRESH_SET_COUNTS,
        4,
    ),
    DevSet(
        "vaults-dev8.jsonl",
        "d8",
        FRESH_SET_COUNTS,
        4,
    ),
    # technical questions from outside the vaults, most of them with a word of the vault's
    # own tools (hooks, pods, lookup, schema, tags, backlinks, template, embed, preview)
    DevSet("vaults-dev9.jsonl", "d9", _counts({"off-topic": (12, 12)}), 9, size=24),
    DevSet(
        "vaults-dev10.jsonl",
        "d10",
        FRESH_SET_COUNTS,
        4,
    ),
    DevSet("vaults-dev11.jsonl", "d11", FRESH_SET_COUNTS, 8),
)
BY_NAME = pytest.mark.parametrize("dev", DEV_SETS, ids=lambda d: d.name)
# the first set, then the later ones in the order they were written
WRITTEN = ("vaults.jsonl", *(d.name for d in DEV_SETS))


def _earlier(dev: DevSet) -> tuple[str, ...]:
    """The sets written before ``dev``."""
    return WRITTEN[: WRITTEN.index(dev.name)]


def _question_key(text: str) -> str:
    return " ".join(text.lower().split())


@BY_NAME
def test_a_later_dev_set_is_well_formed_and_all_dev(dev: DevSet) -> None:
    items = load_qa(dev.items_path)
    assert check_set(items) == []
    assert Counter((i.kind, i.vault) for i in items) == dev.counts
    assert len(items) == dev.size
    assert {i.split for i in items} == {"dev"}  # not split by hash: the test split stays as is
    id_pattern = re.compile(
        rf"^(foam|dendron)-(fact|howto|multi|time|folder|near|off)-{dev.tag}-\d\d$"
    )
    bad_ids = [i.id for i in items if not (m := id_pattern.match(i.id)) or m.group(1) != i.vault]
    assert bad_ids == []
    off_topic = [i for i in items if i.kind == "off-topic"]
    assert sum(bool(SHARED_WORDS.search(i.question)) for i in off_topic) >= dev.shared_off_topic
    for item in items:
        if item.kind in {"near-miss", "off-topic"}:
            assert not item.gold_files, item.id
            assert not item.must_contain, item.id
        if item.answerable:
            assert len(item.gold_headings) == len(item.gold_files), item.id


@BY_NAME
def test_a_later_dev_set_shares_no_id_or_question_with_the_earlier_sets(dev: DevSet) -> None:
    items = load_qa(dev.items_path)
    earlier = [i for name in _earlier(dev) for i in load_qa(QA_DIR / name)]
    assert {i.id for i in items}.isdisjoint({i.id for i in earlier})
    earlier_questions = {_question_key(i.question) for i in earlier}
    assert [i.id for i in items if _question_key(i.question) in earlier_questions] == []


@BY_NAME
def test_every_item_of_a_later_dev_set_holds_against_its_shared_vault(
    dev: DevSet, shared_data: Path
) -> None:
    """Gold files exist, gold headings and must-contain phrases are found in them, no
    question copies 8 words of a gold note, and every near-miss term occurs nowhere in the
    vault (one pass per vault)."""
    items = load_qa(dev.items_path)
    # each vault of a set with answerable questions has near misses to look up
    for vault in ("foam", "dendron"):
        near = [i for i in items if i.vault == vault and i.kind == "near-miss"]
        assert all(i.absent_terms for i in near), vault
        assert near or not any(i.answerable for i in items), vault
    assert check_against_vaults(items, shared_vault_roots(shared_data)) == []
