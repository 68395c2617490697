"""Citation validation: keep citations that match a source, drop and count the rest."""

from __future__ import annotations

import pytest

from notecite.generate.base import ContextSource
from notecite.generate.citations import (
    acknowledges_gap,
    as_said_of_the_notes,
    validate_citations,
)

SOURCES = (
    ContextSource("N1", "v1", "projects/work/apollo.md", "# Apollo > ## Launch", "March 14."),
    ContextSource("N2", "v1", "projects/work/apollo.md", "# Apollo > ## Budget", "40000 euros."),
    ContextSource("N3", "v1", "meetings/standup.md", "# Standup > ## Decisions", "Thursday."),
    ContextSource("N4", "v1", "readme.md", "", "Work notes of the Lisbon team."),
)


def test_valid_numbered_citations_are_kept_in_first_cited_order() -> None:
    result = validate_citations(
        "Budget is set [N2]. Launch is in March [N1][N2].", SOURCES, "numbered"
    )
    assert result.text == "Budget is set [N2]. Launch is in March [N1][N2]."
    assert result.cited == ("N2", "N1")
    assert result.invalid == ()


def test_an_unknown_numbered_citation_is_removed_and_reported() -> None:
    result = validate_citations(
        "Launch is in March [N1]. It costs a lot [N9].", SOURCES, "numbered"
    )
    assert result.text == "Launch is in March [N1]. It costs a lot."
    assert result.cited == ("N1",)
    assert result.invalid == ("N9",)


def test_a_grouped_citation_keeps_only_its_valid_ids() -> None:
    result = validate_citations("Both hold [N1, N7; N3].", SOURCES, "numbered")
    assert result.text == "Both hold [N1][N3]."
    assert result.cited == ("N1", "N3")
    assert result.invalid == ("N7",)


def test_code_keeps_its_indent_where_a_removed_citation_leaves_spaces() -> None:
    answer = (
        "Add this to `dendron.yml` [N9]:\n```yaml\ncommands:\n  insertNoteLink:\n"
        '    aliasMode:  "title"\n```\n[N1]\nThen  reload it .'
    )
    result = validate_citations(answer, SOURCES, "numbered")
    assert result.text == (
        "Add this to `dendron.yml`:\n```yaml\ncommands:\n  insertNoteLink:\n"
        '    aliasMode:  "title"\n```\n[N1]\nThen reload it.'
    )
    # a block written without fences keeps its indent too (grounding fences it later)
    bare = validate_citations('Use:\n{\n  "key": "alt+f"\n}', SOURCES, "numbered")
    assert bare.text == 'Use:\n{\n  "key": "alt+f"\n}'


def test_an_answer_citing_nothing_valid_cites_nothing() -> None:
    result = validate_citations("Made up [N0] [N12].", SOURCES, "numbered")
    assert result.text == "Made up."
    assert result.cited == ()
    assert result.invalid == ("N0", "N12")


@pytest.mark.parametrize(
    "citation",
    [
        "[File: projects/work/apollo.md, Section: # Apollo > ## Launch]",
        "[File: apollo.md, Section: Apollo > Launch]",
        "[File: apollo.md, Section: Launch]",
        "[file: APOLLO.md, section: ## launch]",
    ],
)
def test_file_section_citations_match_by_path_or_name_and_section(citation: str) -> None:
    answer = f"The launch is on March 14 {citation}."
    kept = validate_citations(answer, SOURCES, "file_section")
    assert kept.text == answer
    assert kept.cited == ("N1",)
    assert kept.invalid == ()
    converted = validate_citations(answer, SOURCES, "numbered")
    assert converted.text == "The launch is on March 14 [N1]."


def test_a_file_section_citation_of_text_before_the_first_heading_is_valid() -> None:
    """The context labels such text ``Section: (top of note)``; citing it so must count."""
    answer = "The notes belong to the Lisbon team [File: readme.md, Section: (top of note)]."
    result = validate_citations(answer, SOURCES, "file_section")
    assert result.cited == ("N4",)
    assert result.invalid == ()
    assert result.text == answer


@pytest.mark.parametrize(
    "citation",
    [
        "[File: hermes.md, Section: Status]",
        "[File: apollo.md, Section: Risks]",
        "[File: standup.md, Section: Launch]",
    ],
)
def test_file_section_citations_matching_no_source_are_removed(citation: str) -> None:
    result = validate_citations(f"Something {citation}.", SOURCES, "file_section")
    assert result.text == "Something."
    assert result.cited == ()
    assert result.invalid == (citation,)


def test_both_styles_are_recognised_in_one_answer() -> None:
    answer = "March 14 [N1]. Thursday [File: standup.md, Section: Decisions]. Costs [N8]."
    result = validate_citations(answer, SOURCES, "numbered")
    assert result.text == "March 14 [N1]. Thursday [N3]. Costs."
    assert result.cited == ("N1", "N3")
    assert result.invalid == ("N8",)


@pytest.mark.parametrize(
    "text",
    [
        "The notes don't mention the launch date.",
        "Your notes do not contain that.",
        "There is not enough information to answer.",
        "I cannot determine who approved it.",
        "The budget is not mentioned in the context.",
        "No information about Hermes is given.",
    ],
)
def test_answers_that_admit_a_gap_are_recognised(text: str) -> None:
    assert acknowledges_gap(text)


@pytest.mark.parametrize(
    "text", ["The launch is on March 14.", "Maria approved the budget.", "Hermes is blocked."]
)
def test_plain_answers_do_not_admit_a_gap(text: str) -> None:
    assert not acknowledges_gap(text)


@pytest.mark.parametrize(
    ("said", "shown"),
    [
        ("The context does not specify the port.", "Your notes do not specify the port."),
        ("The given context doesn't say who.", "Your notes do not say who."),
        ("The information provided specifies no date.", "Your notes specify no date."),
        ("No, it is not in the context.", "No, it is not in your notes."),
        # a context menu, and "in the context of", are not the prompt
        ("It is not in the context menu.", "It is not in the context menu."),
        ("In the context of publishing, no.", "In the context of publishing, no."),
    ],
)
def test_an_answer_saying_the_notes_lack_something_calls_them_the_notes(
    said: str, shown: str
) -> None:
    assert as_said_of_the_notes(said) == shown
