"""The QA data file: the loader's checks on hand-made lines, the split rule, and the set in
bench/qa checked against the shared vaults it asks about."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from notecite.errors import ConfigError
from notecite.evaluate.qa import resolve_targets
from notecite.evaluate.qa_data import (
    ANSWERABLE_KINDS,
    QaItem,
    assign_splits,
    check_against_vault,
    check_against_vaults,
    load_qa,
    select,
    to_json,
)
from notecite.testing import write_files
from tests.evaluate.vaults import shared_vault_roots

REPO = Path(__file__).resolve().parents[2]
QA_FILE = REPO / "bench" / "qa" / "vaults.jsonl"

FACT: dict[str, Any] = {
    "id": "f1",
    "question": "When is the launch?",
    "kind": "fact",
    "vault": "work",
    "gold_files": ["projects/apollo.md"],
    "gold_headings": ["Apollo > Launch"],
    "must_contain": ["March 14", ["Lisbon", "Portugal"]],
    "answerable": True,
    "split": "dev",
}


def write_lines(path: Path, *lines: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_full_line_reads_with_alternatives(tmp_path: Path) -> None:
    (item,) = load_qa(write_lines(tmp_path / "qa.jsonl", FACT))
    assert (item.id, item.kind, item.vault, item.split) == ("f1", "fact", "work", "dev")
    assert item.must_contain == (("March 14",), ("Lisbon", "Portugal"))
    assert to_json(item) == FACT


def test_a_line_of_the_older_format_still_reads(tmp_path: Path) -> None:
    data = write_lines(
        tmp_path / "qa.jsonl",
        {"question": "q?", "answerable": True, "gold_files": ["a.md"], "must_contain": ["x"]},
        {"question": "r?", "answerable": False},
    )
    first, second = load_qa(data)
    assert (first.id, first.kind_or_default, first.vault, first.split) == (
        "line-1",
        "answerable",
        None,
        None,
    )
    assert (second.id, second.kind_or_default) == ("line-2", "unanswerable")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "trivia"}, "unknown kind"),
        ({"split": "train"}, "unknown split"),
        ({"answerable": "yes"}, "true or false"),
        ({"must_contain": [[]]}, "empty list of alternatives"),
        ({"gold_files": "a.md"}, "list of strings"),
        ({"answerable": False}, "must have answerable=True"),
        ({"gold_headings": []}, "needs gold_headings"),
        ({"must_contain": []}, "needs must_contain"),
        ({"vault": None}, "no vault"),
        ({"kind": "multi-note"}, "two gold files"),
        ({"kind": "folder-scoped"}, "needs folders"),
        ({"kind": "folder-scoped", "folders": ["recipes"]}, "lies in one of its folders"),
    ],
)
def test_the_loader_refuses_a_line_missing_what_its_kind_needs(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    data = write_lines(tmp_path / "qa.jsonl", {**FACT, **change})
    with pytest.raises(ConfigError, match=message):
        load_qa(data)


def test_unanswerable_kinds_carry_no_gold_and_near_misses_name_their_terms(
    tmp_path: Path,
) -> None:
    near = {"id": "n1", "question": "Kanban?", "kind": "near-miss", "vault": "work"}
    near.update(answerable=False)
    with pytest.raises(ConfigError, match="needs absent_terms"):
        load_qa(write_lines(tmp_path / "a.jsonl", near))
    with pytest.raises(ConfigError, match="no gold_files or must_contain"):
        load_qa(
            write_lines(
                tmp_path / "b.jsonl", {**near, "absent_terms": ["k"], "must_contain": ["x"]}
            )
        )
    assert load_qa(write_lines(tmp_path / "c.jsonl", {**near, "absent_terms": ["kanban"]}))


def test_ids_are_unique_and_a_bad_line_names_its_number(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="duplicate id 'f1'"):
        load_qa(write_lines(tmp_path / "a.jsonl", FACT, FACT))
    bad = tmp_path / "b.jsonl"
    bad.write_text(json.dumps(FACT) + "\n\n{not json\n")
    with pytest.raises(ConfigError, match=r"b.jsonl:3"):
        load_qa(bad)


def test_checks_against_a_vault_find_each_kind_of_mistake(tmp_path: Path) -> None:
    root = write_files(
        tmp_path / "notes",
        {
            "projects/apollo.md": "# Apollo\n\n## Launch\n\nThe launch of the rocket is planned "
            "for March 14 in Lisbon after the final review.\n",
            "misc/board.md": "---\ntitle: Team Board\n---\nWe track work on a kanban board.\n",
        },
    )
    good = QaItem(
        "When does the rocket go up?",
        True,
        ("projects/apollo.md",),
        (("March 14",),),
        id="a",
        kind="fact",
        vault="work",
        gold_headings=("Apollo > Launch",),
    )
    assert check_against_vault(good, root) == []
    titled = replace(
        good,
        gold_files=("misc/board.md",),
        gold_headings=("Team Board",),
        must_contain=(("kanban board",),),
    )
    assert check_against_vault(titled, root) == []  # a note without headings: its title
    # the headings the indexer reads: an org note's, a setext one, a daily note's file name
    more = write_files(
        tmp_path / "more",
        {
            "log.org": "#+title: Analysis log\n* Models\nThe GLMM converged with nAGQ = 0.\n",
            "setext.md": "Marking\n=======\n\nEach report gets 20 minutes.\n",
            "Daily/2026-02-03.md": "Ringed four dippers at the weir.\n",
        },
    )
    for gold, heading, fact in [
        ("log.org", "Analysis log > Models", "nAGQ = 0"),
        ("setext.md", "Marking", "20 minutes"),
        ("Daily/2026-02-03.md", "2026-02-03", "four dippers"),
    ]:
        item = replace(good, gold_files=(gold,), gold_headings=(heading,), must_contain=((fact,),))
        assert check_against_vault(item, more) == [], gold
    bad = QaItem(
        "So the launch of the rocket is planned for when?",
        True,
        ("projects/apollo.md", "projects/gone.md"),
        (("March 15", "15 March"),),
        id="b",
        kind="fact",
        gold_headings=("Apollo > Budget",),
        absent_terms=("kanban", "syncthing"),
    )
    problems = check_against_vault(bad, root)
    assert "gold file projects/gone.md not found" in problems
    assert any("'Apollo > Budget' is no heading" in p for p in problems)
    assert any("copies 8 words" in p for p in problems)
    assert "must_contain ['March 15', '15 March'] is in none of the gold files" in problems
    assert "absent term 'kanban' occurs in misc/board.md" in problems
    assert not any("syncthing" in p for p in problems)
    # every item against the folder of its vault, absent terms looked up once per vault
    many = check_against_vaults(
        [good, replace(bad, vault="work"), replace(good, vault="x")], {"work": root}
    )
    assert "b: gold file projects/gone.md not found" in many
    assert "work: 'kanban' occurs in misc/board.md" in many
    assert "a: no folder for vault 'x'" in many
    assert not any(p.startswith("a: gold") for p in many)


def _items(kinds: dict[str, int]) -> list[QaItem]:
    return [
        QaItem(f"q{n}?", kind in ANSWERABLE_KINDS, id=f"{kind}-{n}", kind=kind)
        for kind, count in kinds.items()
        for n in range(count)
    ]


def test_the_split_is_stratified_per_kind_and_does_not_depend_on_order() -> None:
    items = _items({"fact": 10, "time": 5, "off-topic": 3})
    split = assign_splits(items)
    dev = Counter(i.kind for i in split if i.split == "dev")
    assert dev == {"fact": 4, "time": 2, "off-topic": 1}  # round(0.4 * n) of each kind
    again = {i.id: i.split for i in assign_splits(list(reversed(items)))}
    assert {i.id: i.split for i in split} == again
    assert [i.id for i in select(split, "dev", limit=3)] == [
        i.id for i in split if i.split == "dev"
    ][:3]
    assert len(select(split, "all")) == 18
    with pytest.raises(ValueError, match="unknown split"):
        select(split, "train")


# ---- the set kept in the repository ------------------------------------------------------

MINIMUM = {
    "fact": 40,
    "how-to": 30,
    "multi-note": 15,
    "time": 10,
    "folder-scoped": 15,
    "near-miss": 30,
    "off-topic": 30,
}
SHARED_WORDS = re.compile(
    r"\b(notes?|links?|graph|templates?|publish\w*|vault|tags?|daily|journal|lookup|schema"
    r"|hierarchy|preview)\b",
    re.IGNORECASE,
)


def test_the_repository_set_has_every_kind_and_its_split() -> None:
    items = load_qa(QA_FILE)  # the loader's own checks pass: fields, kinds, unique ids
    counts = Counter(i.kind for i in items)
    assert all(counts[kind] >= n for kind, n in MINIMUM.items()), counts
    assert len(items) >= 170
    assert {i.vault for i in items} == {"foam", "dendron"}
    expected = {i.id: i.split for i in assign_splits(items)}
    assert {i.id: i.split for i in items} == expected  # the documented rule, nothing by hand
    off_topic = [i for i in items if i.kind == "off-topic"]
    assert sum(bool(SHARED_WORDS.search(i.question)) for i in off_topic) >= 12
    for item in items:
        if item.kind in {"near-miss", "off-topic"}:
            assert not item.gold_files, item.id
            assert not item.must_contain, item.id


def test_the_manifest_points_at_both_shared_vaults(shared_data: Path) -> None:
    items = load_qa(QA_FILE)
    targets = resolve_targets(items, QA_FILE, {}, None)
    assert targets["foam"].folder is not None
    assert targets["foam"].folder.resolve() == (shared_data / "vault-foam" / "docs").resolve()
    assert targets["dendron"].folder is not None
    assert (
        targets["dendron"].folder.resolve() == (shared_data / "vault-dendron" / "vault").resolve()
    )


def test_every_item_holds_against_its_shared_vault(shared_data: Path) -> None:
    """Gold files exist, gold headings and must-contain phrases are found in them, no
    question copies 8 words of a gold note, and every near-miss term occurs nowhere in the
    vault (one pass per vault)."""
    items = load_qa(QA_FILE)
    for vault in ("foam", "dendron"):  # each vault has near misses to look up
        assert [t for i in items if i.vault == vault for t in i.absent_terms], vault
    problems = check_against_vaults(items, shared_vault_roots(shared_data))
    assert problems == []
