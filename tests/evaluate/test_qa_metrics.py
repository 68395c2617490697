"""The scores of `eval qa`, computed on a hand-made set whose outcomes are known."""

from __future__ import annotations

import pytest

from notecite.evaluate.qa_data import QaItem
from notecite.evaluate.qa_metrics import QaOutcome, holds, says_not_in_notes, score_qa


def item(kind: str, gold: tuple[str, ...] = (), must: tuple[tuple[str, ...], ...] = ()) -> QaItem:
    answerable = kind not in {"near-miss", "off-topic", "unanswerable"}
    legacy = kind in {"answerable", "unanswerable"}  # lines of the older format name no kind
    return QaItem("q?", answerable, gold, must, kind="" if legacy else kind)


ITEMS = [
    item("fact", ("projects/a.md",), (("March 14",),)),
    item("fact", ("b.md",), (("40000", "40,000"),)),
    item("how-to", ("c.md",), (("F2",), ("rename",))),
    item("multi-note", ("d.md", "e.md"), (("d1",), ("e1",))),
    item("near-miss"),
    item("near-miss"),
    item("off-topic"),
    item("off-topic"),
]
OUTCOMES = [
    # gold at rank 2 of the retrieved files, cited, holds "March 14"
    QaOutcome(("x.md", "projects/a.md"), ("projects/a.md",), "On March 14 [N1].", False, 100),
    # gold (suffix match) retrieved first, cites another file, holds an alternative
    QaOutcome(("notes/b.md",), ("other.md",), "It costs 40,000 euros.", False, 300),
    # abstains although the gold note is retrieved and listed as the closest reference
    QaOutcome(("c.md",), ("c.md",), "The notes don't say; press F2 to rename.", True, 200),
    # cites one of the two gold notes, holds both facts
    QaOutcome(("d.md", "e.md"), ("e.md",), "Both d1 and e1 [N1].", False, 400),
    # says the notes do not mention it: counts as abstained for a near miss
    QaOutcome(("a.md",), ("a.md",), "Your notes don't mention Kanban [N1].", False, 50),
    # asserts the absent feature
    QaOutcome(("a.md",), ("a.md",), "Yes, use the Kanban view [N1].", False, 60),
    QaOutcome((), (), "The notes don't say.", True, 10),
    # the same words do not count for off-topic: only a real abstention does
    QaOutcome(("a.md",), ("a.md",), "The notes don't mention that [N1].", False, 20),
]


def test_scores_per_kind_by_hand() -> None:
    report = score_qa(ITEMS, OUTCOMES, k=1)
    assert [g.group for g in report.groups] == [
        "fact",
        "how-to",
        "multi-note",
        "near-miss",
        "off-topic",
        "answerable",
        "all",
    ]
    fact = report.group("fact")
    assert (fact.questions, fact.answerable) == (2, 2)
    assert fact.gold_cited == pytest.approx(1 / 2)  # item 1 cites gold, item 2 does not
    assert fact.gold_retrieved == pytest.approx(1 / 2)  # k=1: only item 2 has gold first
    assert fact.must_contain == 1.0  # "March 14", and the alternative "40,000"
    assert (fact.wrongly_abstained, fact.abstained) == (0.0, 0.0)
    assert fact.p50_ms == pytest.approx(200)
    how_to = report.group("how-to")
    # an abstention cites nothing and holds nothing, whatever its text and references
    assert (how_to.gold_cited, how_to.must_contain) == (0.0, 0.0)
    assert (how_to.wrongly_abstained, how_to.abstained, how_to.gold_retrieved) == (1.0, 1.0, 1.0)
    multi = report.group("multi-note")
    assert (multi.gold_cited, multi.must_contain) == (1.0, 1.0)
    near = report.group("near-miss")
    assert near.abstained == pytest.approx(1 / 2)
    assert (near.gold_cited, near.must_contain, near.wrongly_abstained) == (None, None, None)
    assert report.group("off-topic").abstained == pytest.approx(1 / 2)
    answerable = report.group("answerable")
    assert answerable.questions == 4
    assert answerable.gold_cited == pytest.approx(2 / 4)
    assert answerable.gold_retrieved == pytest.approx(3 / 4)
    assert answerable.must_contain == pytest.approx(3 / 4)
    assert answerable.wrongly_abstained == pytest.approx(1 / 4)
    everything = report.group("all")
    assert everything.abstained == pytest.approx(3 / 8)  # items 3, 5 and 7
    assert everything.p50_ms == pytest.approx(80)  # median of the eight wall times
    assert report.questions == 8


def test_a_deeper_k_counts_gold_further_down() -> None:
    assert score_qa(ITEMS, OUTCOMES, k=2).group("fact").gold_retrieved == 1.0


def test_lines_of_the_older_format_form_two_groups() -> None:
    items = [item("answerable", ("a.md",), (("x",),)), item("unanswerable")]
    outcomes = [QaOutcome(("a.md",), ("a.md",), "x", False), QaOutcome((), (), "", True)]
    report = score_qa(items, outcomes)
    assert [g.group for g in report.groups] == ["unanswerable", "answerable", "all"]
    assert report.group("answerable").gold_cited == 1.0
    assert report.group("unanswerable").abstained == 1.0
    with pytest.raises(KeyError):
        report.group("fact")


def test_one_outcome_per_item() -> None:
    with pytest.raises(ValueError, match="one outcome per item"):
        score_qa(ITEMS, OUTCOMES[:3])


@pytest.mark.parametrize(
    "answer",
    [
        "Your notes don't mention Syncthing.",
        "Your notes don\u2019t mention Syncthing.",  # a typographic apostrophe
        "The provided notes do not say how to do that.",
        "The context doesn't cover Zotero at all [N1].",
        "There is no information about Zotero in the vault.",
        "Kanban is not mentioned in your notes.",
    ],
)
def test_saying_the_notes_lack_it_is_recognised(answer: str) -> None:
    assert says_not_in_notes(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Use the Kanban view [N1].",
        "The note says to press F2.",
        "Notes that link to it are shown in the panel.",
        "Tags do not start with a number [N1].",
    ],
)
def test_an_answer_is_not_mistaken_for_a_refusal(answer: str) -> None:
    assert not says_not_in_notes(answer)


def test_every_requirement_needs_one_of_its_alternatives() -> None:
    assert holds("Press ALT+D.", [("alt+d", "Open Daily Note")])
    assert holds("Run foam daily --create, or Alt+D.", [("--create",), ("alt+d", "alt + d")])
    assert not holds("Run foam daily --create.", [("--create",), ("alt+d",)])
    assert holds("anything", [])
