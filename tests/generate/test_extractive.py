"""The extractive provider: quoted sentences that share the question's words, each cited."""

from __future__ import annotations

import pytest

from notecite.config import GenerationSettings
from notecite.generate.base import ContextSource, GenerationRequest
from notecite.generate.citations import FALLBACK_ANSWER, validate_citations
from notecite.generate.extractive import LABEL, ExtractiveLLM, statements
from notecite.generate.registry import available_llms, create_llm

SOURCES = (
    ContextSource(
        "N1",
        "v1",
        "projects/apollo.md",
        "# Apollo > ## Launch",
        "## Launch\nThe Apollo launch is scheduled for March 14. The room is booked.",
    ),
    ContextSource(
        "N2",
        "v1",
        "meetings/standup.md",
        "# Standup",
        "- We moved the Apollo launch review to Thursday.\n- Lunch was pizza today.",
    ),
    ContextSource("N3", "v1", "readme.md", "", "Apollo launch notes of the Lisbon team."),
)


def request(question: str, style: str = "numbered") -> GenerationRequest:
    return GenerationRequest(messages=(), question=question, sources=SOURCES, citation_style=style)


def test_it_quotes_matching_sentences_each_with_its_citation() -> None:
    answer = ExtractiveLLM().generate(request("When is the Apollo launch scheduled?"))
    assert answer.startswith(LABEL + "\n")  # a line of its own: not a claim to check
    assert "The Apollo launch is scheduled for March 14 [N1]." in answer
    assert "We moved the Apollo launch review to Thursday [N2]." in answer
    assert "pizza" not in answer
    assert "## Launch" not in answer  # heading lines are not quoted
    assert answer.index("[N1]") < answer.index("[N2]")  # best overlap first


def test_it_quotes_at_most_max_sentences() -> None:
    answer = ExtractiveLLM(max_sentences=1).generate(request("Apollo launch"))
    assert answer.count("[N") == 1


def test_file_section_citations_use_the_heading_or_top_of_note() -> None:
    answer = ExtractiveLLM().generate(request("Apollo launch Lisbon", "file_section"))
    assert "[File: readme.md, Section: (top of note)]" in answer
    assert "[File: projects/apollo.md, Section: # Apollo > ## Launch]" in answer


@pytest.mark.parametrize("style", ["numbered", "file_section"])
def test_every_citation_it_writes_is_valid(style: str) -> None:
    answer = ExtractiveLLM().generate(request("Apollo launch Lisbon Thursday", style))
    result = validate_citations(answer, SOURCES, style)
    assert result.invalid == ()
    assert set(result.cited) == {"N1", "N2", "N3"}


def test_one_shared_word_is_enough_only_in_the_best_ranked_source() -> None:
    # five question terms: a sentence must share two of them, or one in the first source
    answer = ExtractiveLLM().generate(request("Which room did facilities reserve for the review?"))
    assert "The room is booked [N1]." in answer  # shares "room" only
    assert "Thursday" not in answer  # shares "review" only, in the second source
    answer = ExtractiveLLM().generate(request("Which pizza place catered the kickoff?"))
    assert answer == FALLBACK_ANSWER  # "pizza" alone, in the second source: not an answer


def test_no_shared_word_gives_the_fallback_answer() -> None:
    assert ExtractiveLLM().generate(request("quantum chromodynamics")) == FALLBACK_ANSWER


def test_the_stream_concatenates_to_the_generated_answer() -> None:
    llm = ExtractiveLLM()
    pieces = list(llm.stream(request("Apollo launch")))
    assert len(pieces) > 5
    assert "".join(pieces) == llm.generate(request("Apollo launch"))


def test_it_is_registered_as_extractive() -> None:
    assert {"extractive", "openai", "ollama", "local"} <= set(available_llms())
    llm = create_llm("extractive", GenerationSettings())
    assert isinstance(llm, ExtractiveLLM)
    assert (llm.name, llm.model_id) == ("extractive", "extractive")


def test_image_link_definition_and_bare_link_lines_are_never_quoted() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "graph.md",
        "# Graph",
        "![graph view of the launch](assets/graph-launch.gif)\n"
        "[launch-graph]: https://example.com/launch-graph\n"
        "[The launch graph](https://example.com/graph)\n"
        "The launch graph shows every note linked to the launch.",
    )
    answer = ExtractiveLLM().generate(
        GenerationRequest(
            messages=(), question="What does the launch graph show?", sources=(source,)
        )
    )
    assert "gif" not in answer
    assert "https://" not in answer
    assert "The launch graph shows every note linked to the launch [N1]." in answer


def test_two_sentences_of_one_section_cite_it_once() -> None:
    first = ContextSource("N1", "notes", "a.md", "# A > ## Launch", "The launch is in March.")
    second = ContextSource("N2", "notes", "a.md", "# A > ## Launch", "The launch moved to April.")
    answer = ExtractiveLLM().generate(
        GenerationRequest(messages=(), question="When is the launch?", sources=(first, second))
    )
    assert "[N2]" not in answer
    assert answer.count("[N1]") == 2


def _answer(question: str, *sources: ContextSource) -> str:
    return ExtractiveLLM().generate(
        GenerationRequest(messages=(), question=question, sources=sources)
    )


def test_a_lead_in_is_quoted_with_the_command_it_introduces() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "cli/daily.md",
        "# Daily",
        "Create today's daily note:\n\n```bash\nfoam daily --create\n```\n",
    )
    answer = _answer("How do I create today's daily note from the terminal?", source)
    assert "Create today's daily note: `foam daily --create` [N1]." in answer


def test_labels_block_ids_and_repeated_lines_are_not_quoted_twice() -> None:
    first = ContextSource(
        "N1",
        "notes",
        "changelog.md",
        "# 0.115",
        "duplicateSearchMode\n"
        "enhance(publish): make search mode the default for the search bar (#3575) @joshi\n",
    )
    second = ContextSource(
        "N2",
        "notes",
        "release.md",
        "# Release",
        "enhance(publish): make search mode the default for the search bar\n"
        "The search bar finds titles and contents. ^search-bar",
    )
    answer = _answer("Which search mode does the published search bar use?", first, second)
    assert "duplicateSearchMode" not in answer  # one word: a label, not a statement
    assert answer.count("make search mode the default") == 1  # the same line in two notes
    assert "The search bar finds titles and contents [N2]." in answer  # no "^search-bar"


def test_a_task_lists_boxes_are_not_quoted() -> None:
    source = ContextSource(
        "N1", "notes", "todo.md", "# Todo", "- [ ] check out the Apollo launch checklist\n"
    )
    answer = _answer("Where is the Apollo launch checklist?", source)
    assert "check out the Apollo launch checklist [N1]." in answer
    assert "[ ]" not in answer


def test_a_code_span_is_never_cut_at_its_question_mark() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "search.md",
        "# Search",
        "To do full text search add a prefix `?` like `? Onboarding` in the search bar.",
    )
    answer = _answer("How do I do a full text search?", source)
    assert "like `? Onboarding` in the search bar [N1]." in answer


FRAMED = (
    ContextSource(
        "N1", "v1", "journal.md", "# Journal", "Journal notes use the date format yy.MM.dd."
    ),
    ContextSource(
        "N2",
        "v1",
        "tasks/config/date-format.md",
        "# Task date format > ## Summary",
        "The default value is `y.MM.dd` unless you change it.",
        title="Task date format",
    ),
)


def test_a_sentence_is_read_under_its_notes_title_and_section() -> None:
    question = "What date format do task notes get by default?"
    answer = ExtractiveLLM().generate(
        GenerationRequest(messages=(), question=question, sources=FRAMED)
    )
    # "task", "date" and "format" are in the second note's title, not in its sentence
    assert "`y.MM.dd` unless you change it [N2]." in answer


def test_asked_when_it_arrived_only_a_release_note_frames_its_sentences() -> None:
    sources = (
        ContextSource(
            "N1", "v1", "releases/0.3.md", "# 0.3", "Sites can have a password now.", title="0.3"
        ),
        ContextSource(
            "N2",
            "v1",
            "publish/password.md",
            "# Password protection",
            "Set the password you would like to use.",
            title="Password protection for sites",
        ),
    )
    question = "Which release added password protection for sites?"
    answer = ExtractiveLLM().generate(
        GenerationRequest(messages=(), question=question, sources=sources)
    )
    assert "password now [N1]" in answer
    assert "[N2]" not in answer


def test_a_hard_wrapped_sentence_is_quoted_whole() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "images.md",
        "# Images",
        "VS Code can now paste images from the clipboard, or drag-and-drop image\n"
        "files, directly into markdown documents.",
    )
    answer = _answer("Can I drop image files into markdown documents?", source)
    assert (
        "paste images from the clipboard, or drag-and-drop image files, directly into "
        "markdown documents [N1]." in answer
    )


def test_the_mark_of_left_out_lines_is_no_part_of_a_sentence() -> None:
    text = "birthday: 06-30\n…\nBirthday **June 30**, dinner at the usual place."
    assert statements(text) == [
        "birthday: 06-30",
        "Birthday **June 30**, dinner at the usual place.",
    ]


DAY = (
    ContextSource(
        "N1",
        "me",
        "daily/2026-01-22.md",
        "# Thursday 22 January 2026",
        "Boiler service today. Priya arrived at 9:40.\nPaid £95 by card.\nBread in the oven.",
    ),
)


@pytest.mark.parametrize(
    "question",
    ["What did I do on 22 January?", "Summarize my week of 19 January 2026"],
)
def test_a_day_or_a_summary_is_answered_with_the_opening_sentences(question: str) -> None:
    answer = ExtractiveLLM().generate(
        GenerationRequest(messages=(), question=question, sources=DAY)
    )
    assert answer == (
        f"{LABEL}\nBoiler service today [N1]. Priya arrived at 9:40 [N1]. Paid £95 by card [N1]."
    )


def test_a_summary_quotes_the_best_ranked_note_first() -> None:
    answer = ExtractiveLLM(max_sentences=2).generate(request("Summarize the Apollo project"))
    assert answer == (
        f"{LABEL}\nThe Apollo launch is scheduled for March 14 [N1]. The room is booked [N1]."
    )


def test_an_inline_field_is_quoted_for_its_value() -> None:
    source = ContextSource(
        "N1",
        "notes",
        "projects/garden-shed.md",
        "# Garden shed",
        "# Garden shed\nBudget:: £1,800\nBuilder:: Tom Hale\ndue:: 2026-04-15\n",
    )
    answer = _answer("What's the budget for the shed?", source)
    assert "Budget:: £1,800 [N1]." in answer
    assert "Tom Hale" not in answer  # the next field is a statement of its own
