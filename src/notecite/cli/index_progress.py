"""What `notecite index` shows while it runs, and how Ctrl+C or SIGTERM stop it cleanly.

On a terminal, a rich bar per phase with the rate (notes/s, chunks/s) and the time left;
otherwise (piped, a log) one plain line every few seconds. The first Ctrl+C (or a SIGTERM)
asks the run to stop after the note or batch at hand, so that every note written is kept; a
second Ctrl+C stops at once.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TextIO

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from notecite.ingest.progress import IndexProgress, format_eta

_UNITS = {"keyword": "notes", "vectors": "chunks"}


class PlainProgress:
    """One line per ``interval_s`` seconds (and at each phase's start and end) to ``out``."""

    def __init__(self, out: TextIO, interval_s: float) -> None:
        self._out = out
        self._interval_s = interval_s
        self._last = -float("inf")
        self._key: tuple[str, int] = ("", -1)

    def __call__(self, progress: IndexProgress) -> None:
        now = time.monotonic()
        key = (progress.phase, progress.done)
        if key == self._key:
            return
        boundary = progress.phase != self._key[0] or progress.done == progress.total
        if not boundary and now - self._last < self._interval_s:
            return
        self._key, self._last = key, now
        self._out.write(progress.line() + "\n")
        self._out.flush()


class TerminalProgress:
    """A rich bar of the phase at hand: done of total, rate, elapsed and time left."""

    def __init__(self, console: Console) -> None:
        self._bar = Progress(
            TextColumn("[bold]{task.fields[phase]}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[unit]}"),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("{task.fields[eta]}"),
            TextColumn("{task.description}"),
            console=console,
            transient=True,
        )
        self._tasks: dict[str, TaskID] = {}

    def __enter__(self) -> TerminalProgress:
        self._bar.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._bar.stop()

    def __call__(self, progress: IndexProgress) -> None:
        task = self._tasks.get(progress.phase)
        if task is None:
            label = "keyword index" if progress.phase == "keyword" else "vectors"
            task = self._bar.add_task("", total=None, phase=label, unit="", rate="", eta="")
            self._tasks[progress.phase] = task
        rate = progress.notes_per_s if progress.phase == "keyword" else progress.chunks_per_s
        self._bar.update(
            task,
            completed=progress.done,
            total=progress.total,
            description=(progress.current or "")[-40:],
            unit=_UNITS[progress.phase],
            rate=f"{rate:.1f}/s",
            eta=f"{format_eta(progress.eta_s)} left" if progress.eta_s is not None else "",
        )


def _to_stderr(message: str) -> None:
    click.echo(message, err=True)


@contextmanager
def stop_on_signals(say: Callable[[str], None] = _to_stderr) -> Iterator[threading.Event]:
    """An event set by the first Ctrl+C or SIGTERM while inside, which ``say`` announces (a
    second Ctrl+C raises KeyboardInterrupt at once). Outside the main thread nothing is
    installed."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handle(signum: int, _frame: FrameType | None) -> None:
        if stop.is_set() and signum == signal.SIGINT:
            raise KeyboardInterrupt
        stop.set()
        name = "Ctrl+C" if signum == signal.SIGINT else "SIGTERM"
        say(
            f"{name}: stopping after the note at hand; every note written is kept "
            "(Ctrl+C again to quit now)"
        )

    previous = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
