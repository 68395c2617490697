"""Lines of markup a prompt can leave out."""

from __future__ import annotations

import pytest

from notecite.generate.markup import (
    code_roles,
    compact,
    is_field,
    is_markup,
    is_markup_or_link,
    names_section,
    unwrap,
)


@pytest.mark.parametrize(
    "line",
    [
        "![a screenshot](assets/shot.png)",
        "[daily]: cli/daily.md 'foam daily'",
        "| --- | :---: |",
        "---",
        "```python",
        "  ~~~",
        "<br/>",
        # an embedded video: several tags and no words
        '<div style="position: relative;"><iframe src="https://x.test/embed/1" '
        "allowfullscreen></iframe></div>",
    ],
)
def test_markup_only_lines(line: str) -> None:
    assert is_markup(line)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "See [the guide](guide.md) for more.",
        "[Getting started](start.md)",
        "| `--tag` | the npm tag |",
        "- a list item",
        "x --- y",
        "<kbd>Ctrl</kbd>+<kbd>D</kbd>",
        "<p>Tags between words</p>",
        # a code span written with three backticks on one line is no fence (CommonMark)
        "```Set-ExecutionPolicy Bypass -Scope Process```",
    ],
)
def test_lines_with_words_are_not_markup(line: str) -> None:
    assert not is_markup(line)


def test_a_heading_line_names_the_section_only_when_it_is_on_the_path() -> None:
    path = "# Daily Notes > ## Creating Daily Notes"
    assert names_section("## Creating daily notes", path)
    assert names_section("# Daily Notes #", path)
    assert not names_section("### Templates", path)
    assert not names_section("Creating Daily Notes", path)


def test_table_padding_is_one_space_and_indentation_stays() -> None:
    assert compact("| `a`    |  first   |") == "| `a` | first |"
    assert compact("    indented  code") == "    indented code"


def test_a_bare_link_is_a_pointer_but_a_link_in_a_sentence_is_not() -> None:
    assert is_markup_or_link("  [Getting started](start.md) ")
    assert is_markup_or_link("![shot](a.png)")
    assert not is_markup_or_link("See [the guide](guide.md) for more.")


def test_unwrap_joins_a_hard_wrapped_paragraph_and_keeps_where_each_line_began() -> None:
    lines = [
        "# Images",
        "VS Code (since",
        "[1.79](https://example.com/v1_79)) can paste images from the clipboard, or drop image",
        "files, directly into markdown documents. The file is created in the",
        "workspace.",
        "",
        "- A list item that wraps",
        "  onto a second line.",
        "- Another item",
        "```",
        "code that does not",
        "end a sentence",
        "```",
        "duplicateSearchMode",
        "enhance(publish): make search mode the default",
        "The search bar finds titles.",
    ]
    found = unwrap(lines)
    texts = [u.text.strip() for u in found]
    paragraph = found[1]
    assert paragraph.text.startswith("VS Code (since [1.79](https://example.com/v1_79)) can")
    assert paragraph.text.endswith("The file is created in the workspace.")
    assert paragraph.index == 1
    assert paragraph.line_of(paragraph.text.index("files, directly")) == 3
    assert paragraph.line_of(paragraph.text.index("The file is")) == 3
    assert paragraph.line_of(paragraph.text.index("workspace.")) == 4
    assert "- A list item that wraps onto a second line." in texts
    assert "- Another item" in texts  # a list item starts a block of its own
    assert texts[texts.index("```") + 1 :][:2] == ["code that does not", "end a sentence"]
    assert "duplicateSearchMode" in texts  # one word: a label, not a wrapped sentence
    # a capital starts a statement of its own: a line without a stop is not run on into it
    assert "enhance(publish): make search mode the default" in texts
    assert texts[0] == "# Images"


def test_code_roles_name_each_fence_and_the_lines_between() -> None:
    lines = ["Run:", "```bash", "foam daily", "```", "Done.", "~~~", "left open"]
    assert code_roles(lines) == ["text", "open", "code", "close", "text", "open", "code"]
    # a code span written with three backticks on one line opens nothing
    assert code_roles(["```x```", "text"]) == ["text", "text"]


def test_an_inline_field_is_a_statement_of_its_own() -> None:
    lines = [
        "alias:: Tom, the builder",
        "phone:: 07700 900123",
        "a wrapped line of prose that",
        "goes on here.",
        "Builder:: Tom Hale",
        "due:: 2026-04-15",
        "the question is whether:: this wraps",
    ]
    texts = [u.text for u in unwrap(lines)]
    assert texts[:3] == [
        "alias:: Tom, the builder",
        "phone:: 07700 900123",
        "a wrapped line of prose that goes on here.",
    ]
    assert texts[3:5] == ["Builder:: Tom Hale", "due:: 2026-04-15"]
    assert is_field("Budget:: £1,800")
    assert is_field("  due:: 2026-04-15")
    assert not is_field("due::")
    assert not is_field("std::vector holds them")
