"""Evidence-sized context: each block cut down to the lines that carry the answer."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from notecite.generate.context import ContextBlock
from notecite.generate.evidence import CODE_LINES, GAP, score_lines, select_evidence


def words(texts: Sequence[str]) -> list[int]:
    return [len(text.split()) for text in texts]


def block(lines: list[str], path: str = "a.md", start: int = 1) -> ContextBlock:
    return ContextBlock("v", path, "A", start, start + len(lines) - 1, list(lines), [0])


RELEASE = [
    "# Releasing",
    "The team meets every Monday.",
    "Coffee is in the kitchen.",
    "Run the publish workflow from the Actions tab.",
    "It tags the version and uploads the package.",
    "Lunch is at noon.",
    "The office closes at six.",
    "Parking is behind the building.",
]


def test_the_lines_holding_the_question_terms_are_kept_with_the_lines_after_them() -> None:
    (chosen,) = select_evidence(
        [block(RELEASE, start=10)], "How do I run the publish workflow?", 200, words
    )
    assert chosen.lines == [
        "Run the publish workflow from the Actions tab.",
        "It tags the version and uploads the package.",
        "Lunch is at noon.",
    ]
    assert chosen.line_start == 13  # the first kept line's place in the note


def test_a_line_that_goes_on_from_the_one_before_keeps_it() -> None:
    for line in (
        "It then tags the release and uploads the package.",
        "- tags the release and uploads the package",
        "then tags the release and uploads the package.",
    ):
        lines = [
            "Coffee is in the kitchen.",
            "Run the publish workflow.",
            line,
            "Lunch is at noon.",
        ]
        (chosen,) = select_evidence([block(lines)], "Which step tags the release?", 200, words)
        assert chosen.lines[:2] == ["Run the publish workflow.", line], line


def test_windows_apart_are_joined_by_a_gap_mark_in_note_order() -> None:
    lines = [*RELEASE, "More filler here.", "And more filler.", "Publish notes go to the blog."]
    (chosen,) = select_evidence([block(lines)], "publish workflow blog", 200, words)
    assert GAP in chosen.lines
    gap = chosen.lines.index(GAP)
    assert "Run the publish workflow from the Actions tab." in chosen.lines[:gap]
    assert chosen.lines[-1] == "Publish notes go to the blog."


def test_rarer_terms_weigh_more_than_terms_every_line_holds() -> None:
    lines = ["Foam notes are markdown.", "Foam graphs show links.", "Foam templates use snippets."]
    (scored,) = score_lines([block(lines)], "Foam templates")
    assert max(scored, key=lambda line: line.score).text == "Foam templates use snippets."


def test_a_block_with_no_matching_line_keeps_its_opening_lines() -> None:
    first = block(RELEASE)
    other = block(["Alpha beta.", "Gamma delta.", "Epsilon.", "Zeta.", "Eta."], "b.md")
    chosen = select_evidence([first, other], "publish workflow", 200, words)
    assert [b.rel_path for b in chosen] == ["a.md", "b.md"]
    assert chosen[1].lines == ["Alpha beta.", "Gamma delta.", "Epsilon."]


def test_the_budget_drops_later_blocks_but_keeps_the_first_one() -> None:
    blocks = [block(RELEASE, "a.md"), block(RELEASE, "b.md"), block(RELEASE, "c.md")]
    chosen = select_evidence(blocks, "publish workflow", 25, words)
    assert [b.rel_path for b in chosen] == ["a.md"]
    tiny = select_evidence([block(RELEASE, "a.md")], "publish workflow", 1, words)
    assert [b.rel_path for b in tiny] == ["a.md"]
    assert "Run the publish workflow from the Actions tab." in tiny[0].lines


def test_a_later_block_whose_window_does_not_fit_keeps_its_best_line_alone() -> None:
    first = block(["Run the publish workflow from the Actions tab."], "a.md")
    later = [
        "The publish log names the release tag.",
        "It lists each package with its new version and the time it took to upload.",
        "Reviewers read it before the announcement goes out to the mailing list.",
    ]
    chosen = select_evidence([first, block(later, "b.md")], "publish workflow log", 20, words)
    assert [b.rel_path for b in chosen] == ["a.md", "b.md"]
    assert chosen[1].lines == ["The publish log names the release tag."]


def test_markup_lines_and_the_section_heading_are_left_out_without_a_gap_mark() -> None:
    lines = [
        "## Publishing",
        "![diagram](img/flow.png)",
        "```bash",
        "npm run publish --tag next",
        "```",
        "| Flag  |   Meaning        |",
        "| ----- | ---------------- |",
        "| --tag |   the npm tag    |",
        "[publish]: ../tools/publish.md",
    ]
    shown = ContextBlock("v", "a.md", "# Guide > ## Publishing", 1, 9, list(lines), [0])
    (chosen,) = select_evidence([shown], "Which tag does npm publish use?", 200, words)
    assert chosen.lines == [
        "npm run publish --tag next",
        "| Flag | Meaning |",
        "| --tag | the npm tag |",
    ]
    assert GAP not in chosen.lines


def test_a_heading_the_header_does_not_name_is_kept() -> None:
    lines = ["## Other step", "Run the publish workflow."]
    other = ContextBlock("v", "a.md", "# Guide > ## Publishing", 1, 2, list(lines), [0])
    (chosen,) = select_evidence([other], "publish workflow", 200, words)
    assert chosen.lines == lines


SUPPORTER_PLANS = [
    "Members support the project every month.",
    "There are four levels of supporter plans:",
    "- seed",
    "- sprout",
    "- tree",
    "- forest",
    "Plans renew on the first of the month.",
    "The office closes at six.",
]
KEYBINDING = [
    "Bind a key to the command.",
    "Add this entry to your keybindings file:",
    "```json",
    "{",
    '  "key": "cmd+j q",',
    '  "command": "notes.create"',
    "}",
    "```",
    "Lunch is at noon.",
]


@pytest.mark.parametrize(
    ("lines", "question", "kept"),
    [
        # the lead-in and all four items
        (SUPPORTER_PLANS, "What are the levels of supporter plans?", SUPPORTER_PLANS[1:6]),
        # the lead-in and the code block, without its fences
        (KEYBINDING, "What entry goes in my keybindings file?", [KEYBINDING[1], *KEYBINDING[3:7]]),
    ],
    ids=["list", "code block"],
)
def test_a_line_that_introduces_a_list_or_a_code_block_keeps_it(
    lines: list[str], question: str, kept: list[str]
) -> None:
    (chosen,) = select_evidence([block(lines)], question, 200, words)
    assert chosen.lines == kept


def test_a_long_code_block_is_kept_up_to_its_line_cap() -> None:
    code = [f"  step_{n}();" for n in range(20)]
    lines = ["Add this to your build script:", "```js", *code, "```"]
    (chosen,) = select_evidence([block(lines)], "What goes in my build script?", 500, words)
    assert chosen.lines == [lines[0], *code[:CODE_LINES]]


def test_a_setting_name_holds_the_words_it_is_made_of() -> None:
    lines = [
        "Set your default embed behavior in the settings:",
        "{",
        '  "foam.preview.embedNoteType": "full-card"',
        "}",
        "Lunch is at noon.",
    ]
    (scored,) = score_lines([block(lines)], "Which embed note type does the preview use?")
    assert max(scored, key=lambda line: line.score).text.strip().startswith('"foam.preview')


def test_a_code_span_in_triple_backticks_is_shown_after_the_line_that_introduces_it() -> None:
    lines = [
        "Run the converter script.",
        "  * if you receive an error, try running this line to bypass security:",
        "     ```Set-ExecutionPolicy Bypass -Scope Process```",
        "Lunch is at noon.",
    ]
    question = "The script fails with a security error?"
    (chosen,) = select_evidence([block(lines)], question, 200, words)
    assert "     ```Set-ExecutionPolicy Bypass -Scope Process```" in chosen.lines


def test_a_line_inside_a_code_block_is_shown_with_the_line_that_introduces_the_block() -> None:
    lines = [
        "Coffee is in the kitchen.",
        "Lunch is at noon.",
        "Create a file named `custom.css` next to the config. Add the following contents.",
        "",
        "```css",
        "body {",
        "  /* The background color of the preview. */",
        "  background-color: #002b5c;",
        "}",
        "```",
        "The office closes at six.",
    ]
    (chosen,) = select_evidence([block(lines)], "How do I set my own background color?", 200, words)
    assert chosen.lines[0] == lines[2]
    assert "  background-color: #002b5c;" in chosen.lines
    assert lines[0] not in chosen.lines
    assert lines[1] not in chosen.lines


def test_a_list_item_is_shown_with_the_line_that_introduces_its_list() -> None:
    lines = [
        "The export turns your notes into plain files.",
        "Some features cannot be carried over, as nothing stands for them there:",
        "- diagrams",
        "- LaTeX formulas",
        "- footnotes",
        "Report others on the tracker.",
    ]
    (chosen,) = select_evidence(
        [block(lines)], "Does the export keep my LaTeX formulas?", 200, words
    )
    assert lines[1] in chosen.lines
    assert chosen.lines.index(lines[1]) < chosen.lines.index(lines[3])


@pytest.mark.parametrize(
    "lead_in",
    [
        "The following keybinding opens lookup set to make a journal note.",
        "1. Add the following keybinding, which opens lookup set to make a journal note:",
    ],
    ids=["sentence", "list item"],
)
def test_a_line_that_speaks_of_the_following_brings_the_code_block_a_line_after_it(
    lead_in: str,
) -> None:
    lines = [
        lead_in,
        "See the modifiers note for more.",
        "```json",
        '{"command": "notes.lookupNote", "args": {"noteType": "journal"}}',
        "```",
        "Lunch is at noon.",
    ]
    question = "Which keybinding opens lookup for a journal note?"
    (chosen,) = select_evidence([block(lines)], question, 200, words)
    assert lines[3] in chosen.lines


PERSON = [
    "role: Senior backend engineer",
    "timezone: Europe/Warsaw",
    "people:",
    "  - dana",
    "  - aiko",
    "# Tomasz Brenner",
    "Owns the billing export and is backup on Postgres.",
    "Prefers meetings before four, picks up the kids.",
    "Birthday in November.",
]


def with_properties(lines: list[str], properties: int) -> ContextBlock:
    shown = block(lines)
    shown.properties = properties
    return shown


def test_a_property_is_kept_when_the_question_names_its_key() -> None:
    (chosen,) = select_evidence(
        [with_properties(PERSON, 5)], "Which timezone is Tomasz in?", 200, words
    )
    assert "timezone: Europe/Warsaw" in chosen.lines
    assert "role: Senior backend engineer" not in chosen.lines
    assert chosen.properties == 1


def test_a_property_named_by_a_word_of_the_question_it_begins_is_kept() -> None:
    owned = ["owner: dana", "# Loki migration", "Move the logs from ELK to Loki."]
    (chosen,) = select_evidence([with_properties(owned, 1)], "Who owns it?", 200, words)
    assert chosen.lines[0] == "owner: dana"


def test_a_list_property_is_kept_whole_when_its_value_holds_a_name_of_the_question() -> None:
    (chosen,) = select_evidence(
        [with_properties(PERSON, 5)], "What does Aiko say about the billing export?", 200, words
    )
    assert chosen.lines[:3] == ["people:", "  - dana", "  - aiko"]
    assert "Owns the billing export and is backup on Postgres." in chosen.lines


def test_properties_no_question_term_names_are_not_shown_in_their_place_the_text_is() -> None:
    (chosen,) = select_evidence(
        [with_properties(PERSON, 5)], "What is the weather on Mars?", 200, words
    )
    assert chosen.lines == [  # the text's opening lines, as for any block
        "# Tomasz Brenner",
        "Owns the billing export and is backup on Postgres.",
        "Prefers meetings before four, picks up the kids.",
    ]
    assert chosen.properties == 0


def test_a_property_does_not_push_a_line_of_the_text_out_of_its_windows() -> None:
    question = "When are meetings best for Tomasz, and which timezone?"
    plain = block(PERSON[5:])
    (without,) = select_evidence([plain], question, 200, words)
    (shown,) = select_evidence([with_properties(PERSON, 5)], question, 200, words)
    assert shown.lines[0] == "timezone: Europe/Warsaw"
    assert [line for line in shown.lines if line != GAP][1:] == [
        line for line in without.lines if line != GAP
    ]


def test_a_plain_word_of_the_question_in_a_value_does_not_show_the_property() -> None:
    book = ["status: finished", "# Winter Harbour", "Gave up at page 140 of 410."]
    (chosen,) = select_evidence(
        [with_properties(book, 1)], "Which novel did I not finish, and where?", 200, words
    )
    assert "status: finished" not in chosen.lines


ROASTING = [
    "- Out of the fridge 1 h before.",
    "- Stuff with a halved lemon, half a head of garlic, a big bunch of thyme.",
    "- Rub 30 g soft butter under the breast skin.",
    "- Salt the skin well.",
    "- **220°C for 20 min**, then down to **190°C for 50 min**.",
    "- Rest under foil while the gravy is made.",
]


def test_a_block_with_no_matching_line_keeps_the_lines_holding_the_kind_of_value_asked_for() -> (
    None
):
    first = block(RELEASE)
    other = block(ROASTING, "chicken.md")
    chosen = select_evidence(
        [first, other], "publish workflow: what oven temperatures and timings?", 200, words
    )
    assert "- **220°C for 20 min**, then down to **190°C for 50 min**." in chosen[1].lines
    # without a kind asked for, the block opens as before
    (_, opening) = select_evidence([block(RELEASE), block(ROASTING, "c.md")], "publish", 200, words)
    assert opening.lines == ROASTING[:3]


QUOTES = [
    "| | Fenwick Joinery | Brightwork Kitchens | Hollis & Daughter |",
    "| --- | --- | --- | --- |",
    "| Quote received | 26 Jan | 14 Feb | 2 Feb |",
    "| Chimney breast removal | included | included | included |",
    "| Earliest start | September | April | June |",
    "| Total (inc. VAT) | £16,200 | £12,900 | £14,850 |",
    "| Deposit | 25% | 40% | fixed |",
]


def test_a_table_header_holding_a_question_word_leaves_the_rows_to_the_kind() -> None:
    (scored,) = score_lines([block(QUOTES)], "Which kitchen contractor was cheapest?")
    by_text = {line.text: line.score for line in scored}
    assert by_text["| Total (inc. VAT) | £16,200 | £12,900 | £14,850 |"] > 0.0
    assert by_text["| Quote received | 26 Jan | 14 Feb | 2 Feb |"] == 0.0
    # a row that holds a question word still keeps the kind out
    rows = [*QUOTES, "| Kitchen contractor rating | good | mixed | glowing |"]
    (scored,) = score_lines([block(rows)], "Which kitchen contractor was cheapest?")
    assert {line.text: line.score for line in scored}[QUOTES[5]] == 0.0


def test_the_kind_of_value_asked_for_does_not_outweigh_a_question_word() -> None:
    lines = [
        "Booked the flights on 3 Feb.",
        "The flights leave on Thu 16 Apr at 07:10.",
        "Lunch on Friday in Belém.",
        "Dinner on Saturday in Alfama.",
    ]
    (scored,) = score_lines([block(lines)], "What day did I book the flights?")
    by_text = {line.text: line.score for line in scored}
    assert by_text["Lunch on Friday in Belém."] == 0.0  # a day, but no word of the question
