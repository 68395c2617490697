"""How far an index run got: notes and chunks done, their rates and the time left.

An index run has two phases. ``keyword`` parses, chunks and writes every changed note: at its
end each note is findable by keyword (BM25). ``vectors`` then embeds the chunks that have no
vector yet; a note is fully indexed once all its chunks have one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

Phase = Literal["keyword", "vectors"]


@dataclass(frozen=True)
class IndexProgress:
    """One progress report of an index run.

    Attributes:
        phase: ``keyword`` (notes parsed and written) or ``vectors`` (chunks embedded).
        done: units of this phase done (notes for ``keyword``, chunks for ``vectors``).
        total: units of this phase in all.
        notes_written: notes written (findable by keyword) so far in this run.
        chunks_embedded: chunks embedded so far in this run.
        notes_per_s: notes written a second, over this run.
        chunks_per_s: chunks embedded a second, over the ``vectors`` phase.
        eta_s: seconds left in this phase at the current rate (None before a rate is known).
        elapsed_s: seconds since the run started.
        current: the note being worked on (``keyword``), else None.
    """

    phase: Phase
    done: int
    total: int
    notes_written: int
    chunks_embedded: int
    notes_per_s: float
    chunks_per_s: float
    eta_s: float | None
    elapsed_s: float
    current: str | None = None

    def line(self) -> str:
        """One plain line, for output that is not a terminal (piped, a log)."""
        eta = f", {format_eta(self.eta_s)} left" if self.eta_s is not None else ""
        if self.phase == "keyword":
            what = f"notes {self.done}/{self.total} ({self.notes_per_s:.1f} notes/s{eta})"
            return f"indexing: keyword {what}"
        return (
            f"indexing: vectors chunks {self.done}/{self.total} "
            f"({self.chunks_per_s:.1f} chunks/s{eta})"
        )


ProgressCallback = Callable[[IndexProgress], None]
"""Receives each :class:`IndexProgress` of a run (after each note, each embedded batch)."""


def format_eta(seconds: float) -> str:
    """``42 s``, ``3 m 05 s`` or ``1 h 02 m``."""
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} m {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} m"


class ProgressTracker:
    """Counts an index run's work and turns it into :class:`IndexProgress` reports."""

    def __init__(self, callback: ProgressCallback | None, clock: Callable[[], float]) -> None:
        self._callback = callback
        self._clock = clock
        self._started = clock()
        self._vectors_started: float | None = None
        self.notes_written = 0
        self.chunks_embedded = 0

    @classmethod
    def start(cls, callback: ProgressCallback | None) -> ProgressTracker:
        """A tracker on the monotonic clock, started now."""
        return cls(callback, time.monotonic)

    def keyword(self, done: int, total: int, current: str) -> None:
        """Report the ``keyword`` phase: ``done`` of ``total`` notes looked at."""
        if self._callback is None:
            return
        elapsed = self._clock() - self._started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else None
        self._callback(
            IndexProgress(
                "keyword", done, total, self.notes_written, self.chunks_embedded,
                self.notes_written / elapsed if elapsed > 0 else 0.0, 0.0, eta, elapsed, current,
            )
        )  # fmt: skip

    def vectors(self, done: int, total: int) -> None:
        """Report the ``vectors`` phase: ``done`` of ``total`` chunks embedded."""
        now = self._clock()
        if self._vectors_started is None:
            self._vectors_started = now
        if self._callback is None:
            return
        elapsed = now - self._started
        spent = now - self._vectors_started
        rate = done / spent if spent > 0 else 0.0
        eta = (total - done) / rate if rate > 0 else None
        self._callback(
            IndexProgress(
                "vectors", done, total, self.notes_written, self.chunks_embedded,
                self.notes_written / elapsed if elapsed > 0 else 0.0, rate, eta, elapsed,
            )
        )  # fmt: skip
