"""A model caught in a loop: the block it repeats at the end of its text is read once."""

from __future__ import annotations

from notecite.generate.loops import loop_start, without_loop

BLOCK = "To enable it, add this to `dendron.yml`:\ndev:\n  enableLinkCandidates: true\n"


def test_a_block_of_lines_repeated_at_the_end_is_kept_once() -> None:
    text = "Yes, it can.\n" + BLOCK * 5 + "To enable it, add th"  # the last copy unfinished
    assert without_loop(text) == "Yes, it can.\n" + BLOCK.rstrip()
    assert loop_start(text) == len("Yes, it can.\n" + BLOCK)


def test_lines_that_differ_only_in_their_spaces_are_one_line() -> None:
    tree = "│   └── post-receive\n│       └── post-receive\n" * 3
    text = "The layout:\n```\n.\n├── .git\n" + tree
    # the code block the cut leaves open is closed
    assert without_loop(text) == "The layout:\n```\n.\n├── .git\n│   └── post-receive\n```"


def test_two_copies_short_lines_and_distinct_lines_are_no_loop() -> None:
    assert loop_start("Intro.\n" + BLOCK * 2) is None  # twice can be meant
    assert loop_start('{\n  "a": {\n    "b": 1\n  }\n}\n}\n}\n') is None  # "}" is too short
    steps = "".join(f"{n}. Run step number {n} of the setup.\n" for n in range(1, 9))
    assert loop_start(steps) is None
    assert without_loop(steps) == steps


def test_sentences_repeated_at_the_end_of_one_paragraph_are_kept_once() -> None:
    once = (
        '[N4] also mentions it as a rule of "80/20": most running easy. '
        "I run my easy days too fast (5:40 instead of 6:00+). Trying to fix that. "
    )
    opening = "Running on Empty Roads is a memoir [N1]. "
    text = opening + once * 4 + "[N4] also men"
    assert loop_start(text) == len(opening + once)
    assert without_loop(text) == (opening + once).rstrip()


def test_sentences_said_twice_or_a_short_one_thrice_are_no_loop() -> None:
    assert loop_start("Yes [N1]. " + "It syncs the vault every hour [N1]. " * 2 + "Done.") is None
    assert loop_start("No. No. No. Then run it again [N1].") is None  # "No." is too short
