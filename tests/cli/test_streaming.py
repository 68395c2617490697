"""The streamed-answer printer shared by `notecite ask` and `notecite chat`."""

from __future__ import annotations

import pytest

from notecite.cli.streaming import StreamedAnswer


def test_first_piece_ends_the_status_line_once(capsys: pytest.CaptureFixture[str]) -> None:
    stops: list[int] = []
    printer = StreamedAnswer(lambda: stops.append(1))
    for piece in ("Atlas ", "ships ", "in May [N1]."):
        printer.on_token(piece)
    printer.finish("Atlas ships in May [N1].")
    assert stops == [1]
    assert capsys.readouterr().out == "Atlas ships in May [N1].\n"


def test_an_answer_the_checks_changed_is_printed_again(capsys: pytest.CaptureFixture[str]) -> None:
    printer = StreamedAnswer(lambda: None)
    printer.on_token("Atlas ships in May [N1]. It uses Rust [N2].")
    printer.finish("Atlas ships in May [N1].")
    out = capsys.readouterr().out
    assert out.endswith("\n(after citation checks) Atlas ships in May [N1].\n")


def test_nothing_streamed_prints_the_answer(capsys: pytest.CaptureFixture[str]) -> None:
    printer = StreamedAnswer(lambda: None)
    printer.finish("The notes don't mention Rust.")
    assert capsys.readouterr().out == "The notes don't mention Rust.\n"
