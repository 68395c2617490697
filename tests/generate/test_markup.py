"""Lines of markup a prompt can leave out."""

from __future__ import annotations

import pytest

from notecite.generate.markup import compact, is_markup, is_markup_or_link, names_section


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
