"""Dendron's frontmatter variables (``{{ fm.desc }}``) read as their values: in the parsed
note, in the search, and in the line a citation points at."""

from __future__ import annotations

from datetime import UTC, datetime

from notecite import Engine
from notecite.config import Settings
from notecite.ingest.markdown import lines_as_read, parse_markdown
from notecite.ingest.variables import substitute_variables
from notecite.schemas.ask import AskRequest
from notecite.testing import ScriptedLLM
from tests.helpers import MakeVault

MTIME = datetime(2024, 1, 1, tzinfo=UTC)

OPTION_NOTE = """---
id: amnef
title: enableSiteLastModified
desc: 'Enable displaying the last modified date at the bottom of your published notes.'
updated: 1645177539226
created: 1645177481620
---

- type: `boolean`
- default: `true`

## Description
{{fm.desc}}

## Example

```yml
  publishing:
    enableSiteLastModified: false
```
"""


def test_a_variable_is_read_as_its_frontmatter_value() -> None:
    meta = {"title": "Tags", "desc": "How  tags\nwork.", "custom": {"shortcut": "ctrl+t"}}
    assert substitute_variables("# {{ fm.title }}\n{{fm.desc}}", meta) == "# Tags\nHow tags work."
    assert substitute_variables("press {{fm.custom.shortcut}}", meta) == "press ctrl+t"
    assert substitute_variables("{{fm.draft}} {{fm.n}}", {"draft": False, "n": 3}) == "false 3"


def test_created_and_updated_are_written_as_dates() -> None:
    meta = {"created": 1645177481620, "updated": "2022-03-01T10:00:00Z"}
    assert substitute_variables("{{fm.created}} / {{fm.updated}}", meta) == (
        "2022-02-18 / 2022-03-01"
    )


def test_code_an_unknown_field_and_a_list_stay_as_written() -> None:
    meta = {"desc": "Described.", "tags": ["a", "b"]}
    text = (
        "The syntax is `{{ fm.desc }}`.\n"
        "```markdown\n{{fm.desc}}\n```\n"
        "{{fm.missing}} and {{fm.tags}} and {{fm.desc}}"
    )
    assert substitute_variables(text, meta).split("\n") == [
        "The syntax is `{{ fm.desc }}`.",
        "```markdown",
        "{{fm.desc}}",
        "```",
        "{{fm.missing}} and {{fm.tags}} and Described.",
    ]


def test_the_parsed_note_holds_the_description_on_the_variables_line() -> None:
    note = parse_markdown(
        "dendron.topic.publish.config.enableSiteLastModified.md", OPTION_NOTE, MTIME
    )
    description = next(s for s in note.sections if "Description" in str(s.heading_path))
    assert description.text == (
        "## Description\n"
        "Enable displaying the last modified date at the bottom of your published notes."
    )
    # every line keeps its number in the file: the description is read on line 13
    lines = lines_as_read(OPTION_NOTE)
    assert OPTION_NOTE.split("\n")[12] == "{{fm.desc}}"
    assert lines[12].startswith("Enable displaying the last modified date")
    assert len(lines) == len(OPTION_NOTE.split("\n"))


def test_a_broken_frontmatter_is_given_as_written() -> None:
    text = "---\ndesc: [unclosed\n---\n{{fm.desc}}\n"
    assert lines_as_read(text) == text.split("\n")


def test_the_description_is_searched_answered_and_cited_on_its_line(
    settings: Settings, make_vault: MakeVault
) -> None:
    vault = make_vault(
        {
            "site.config.enableSiteLastModified.md": OPTION_NOTE,
            "other.md": "# Other\nUnrelated text about gardens.\n",
        }
    )
    llm = ScriptedLLM(
        "Yes: it displays the last modified date at the bottom of published notes [N1]"
    )
    with Engine(settings, llm=llm) as engine:
        engine.add_vault("site", vault)
        list(engine.index())
        hits = engine.search("last modified date at the bottom of published pages", k=3)
        assert hits
        assert hits[0].rel_path == "site.config.enableSiteLastModified.md"
        assert "Enable displaying the last modified date" in hits[0].text
        response = engine.ask(
            AskRequest(question="Will readers see the last modified date at the bottom of pages?")
        )
    assert not response.abstained, response.answer
    cited = [r for r in response.references if r.cid]
    assert cited
    assert cited[0].quote_line == 13
    assert "Enable displaying the last modified date" in (cited[0].quote or "")


def test_a_note_saved_with_a_byte_order_mark_has_its_lines_read_as_indexed(
    settings: Settings, make_vault: MakeVault
) -> None:
    """The lines a citation's quote is looked for in are read as the index reads the file
    (BOM dropped, line ends normalised): the frontmatter is found, and the variable's line
    holds its value."""
    vault = make_vault({"other.md": "# Other\nUnrelated text about gardens.\n"})
    note = vault / "site.config.enableSiteLastModified.md"
    note.write_bytes(b"\xef\xbb\xbf" + OPTION_NOTE.replace("\n", "\r\n").encode())
    with Engine(settings, llm=ScriptedLLM("x")) as engine:
        engine.add_vault("site", vault)
        list(engine.index())
        lines = engine.parts.note_lines("site", "site.config.enableSiteLastModified.md")
    assert lines is not None
    assert lines[0] == "---"
    assert lines[12] == lines_as_read(OPTION_NOTE)[12]
    assert "{{" not in lines[12]
