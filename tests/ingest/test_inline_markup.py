"""Inline markup read as the words it shows: highlights, callouts and footnotes."""

from __future__ import annotations

from notecite.ingest.inline_markup import readable_inline_markup
from notecite.ingest.markdown import lines_as_read
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory


def test_highlights_and_callouts_read_as_the_words_they_show() -> None:
    text = (
        "The base is ==150 mm of hardcore== on clay.\n"
        "> [!warning]- Don't forget\n"
        "> Stay under 2.5 m.\n"
        "> [!tip]\n"
        "> > [!faq]+ Why hardcore?\n"
        "Capture==>Curate==>Create and a == b\n"
        "Write `==highlight==` or `> [!note]` for these.\n"
        "```\n==kept in code==\n```"
    )
    assert readable_inline_markup(text).split("\n") == [
        "The base is 150 mm of hardcore on clay.",
        "> Don't forget",
        "> Stay under 2.5 m.",
        "> Tip",
        "> > Why hardcore?",
        "Capture==>Curate==>Create and a == b",
        "Write `==highlight==` or `> [!note]` for these.",
        "```",
        "==kept in code==",
        "```",
    ]
    note = "---\ntags: [x]\n---\nThe base is ==150 mm==.\n> [!info] Status\n"
    assert lines_as_read(note)[3:] == ["The base is 150 mm.", "> Status", ""]


def test_a_footnote_is_read_where_it_is_referred_to() -> None:
    text = (
        "Short sleepers react slower[^1]. Naps help[^nap] and[^gone] rest.\n"
        "Also a claim^[Smith, 2023] here, and `[^1]` in code.\n"
        "\n"
        "[^1]: Van Dongen et al., 2003, Sleep 26(2).\n"
        "  [^nap]: The NASA nap study, with `20 min` naps.\n"
        "```\n[^1]: a definition in code\nx[^1]\n```"
    )
    assert readable_inline_markup(text).split("\n") == [
        "Short sleepers react slower (Van Dongen et al., 2003, Sleep 26(2)). Naps help (The "
        "NASA nap study, with `20 min` naps) and[^gone] rest.",
        "Also a claim (Smith, 2023) here, and `[^1]` in code.",
        "",
        "Van Dongen et al., 2003, Sleep 26(2).",
        "  The NASA nap study, with `20 min` naps.",
        "```",
        "[^1]: a definition in code",
        "x[^1]",
        "```",
    ]


def test_the_source_a_footnote_gives_is_quoted_with_its_sentence(
    notecite_engines: EngineFactory,
) -> None:
    note = (
        "# Sleep research\n\nAdults who sleep under six hours show slower reaction "
        "times[^1]. Naps of 20 minutes restore alertness[^2].\n\n"
        "[^1]: Van Dongen et al., 2003.\n[^2]: NASA nap study, 1995.\n"
    )
    engine = notecite_engines(vaults={"me": {"sleep.md": note}})
    question = "Which study found that adults who sleep under six hours react slower?"
    response = engine.ask(AskRequest(question=question))
    assert "slower reaction times (Van Dongen et al., 2003)" in response.answer
    assert "[^" not in response.answer


def test_inline_html_for_emphasis_is_read_as_its_words() -> None:
    text = "\n".join(
        [
            'The backup server is <b>nas-02</b> in the <span style="color:red">rack</span>.<br>',
            "Press <kbd>Ctrl</kbd>+<kbd>P</kbd>; call <code>sync()</code>.",
            "<summary>Old setup</summary>",
            "Code keeps `<b>bold</b>` and a <div> stays; so does x < y > z.",
            "```html",
            "<b>kept in a block</b>",
            "```",
        ]
    )
    assert readable_inline_markup(text).split("\n") == [
        "The backup server is nas-02 in the rack. ",
        "Press Ctrl+P; call `sync()`.",
        "Old setup",
        "Code keeps `<b>bold</b>` and a <div> stays; so does x < y > z.",
        "```html",
        "<b>kept in a block</b>",
        "```",
    ]
