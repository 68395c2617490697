"""An answer printed as the model writes it, with a status line until its first words.

`notecite ask` and `notecite chat` wait while the notes are searched and the model reads
its prompt (seconds with the bundled model); on a terminal a status line says so and goes
away when the first piece of the answer arrives.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console

WAITING = "searching your notes and reading them ..."


class StreamedAnswer:
    """The pieces of one answer echoed to stdout as they come (``on_token``)."""

    def __init__(self, stop_waiting: Callable[[], None]) -> None:
        self.pieces: list[str] = []
        self._stop_waiting = stop_waiting

    def on_token(self, piece: str) -> None:
        """Print one piece; the first one ends the status line."""
        if not self.pieces:
            self._stop_waiting()
        self.pieces.append(piece)
        click.echo(piece, nl=False)

    def finish(self, final_answer: str, note: str = "\n(after citation checks) ") -> None:
        """End the streamed text; print ``final_answer`` when the checks changed it (or when
        nothing was streamed)."""
        if not self.pieces:
            click.echo(final_answer)
            return
        click.echo()
        if "".join(self.pieces).strip() != final_answer.strip():
            click.echo(note + final_answer)


def streams_to_terminal() -> bool:
    """Whether answers are streamed: stdout is a terminal."""
    return sys.stdout.isatty()


@contextmanager
def streamed_answer() -> Iterator[StreamedAnswer]:
    """A :class:`StreamedAnswer` with a status line on stderr (when it is a terminal) until
    its first piece; the line is gone when the block ends, however it ends."""
    waiting = Console(stderr=True).status(WAITING)
    if streams_to_terminal() and sys.stderr.isatty():
        waiting.start()
    try:
        yield StreamedAnswer(waiting.stop)
    finally:
        waiting.stop()
